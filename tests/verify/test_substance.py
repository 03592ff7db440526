"""The rules of substance: NO_CONTENT, WRONG_LANGUAGE and UNSOURCED_FIGURE, each with the
look-alikes that must not be flagged."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.verify import Citation, Source, feedback, figures, verify
from tests.examples import examples

PREAMBLES = [
    "Absolutely, here is what you need:",
    "Below are the steps:",
    "Happy to help! Let me explain.",
    "Sure! Let me break this down for you.",
    "Great question — here's a step-by-step guide:",
    "Klar, hier ist die Anleitung:",
    "Bien sûr ! Voici les étapes :",
    "¡Claro! Te explico a continuación.",
    "Certo! Ecco i passaggi:",
    "もちろんです。以下に手順を示します。",
    "当然！下面是具体步骤：",
    "Конечно! Вот что нужно сделать:",
    "*Here's how to do it:*",
    # what ends on a hand or arrow pointing down, or an hourglass
    "Claro, te lo explico paso a paso 👇",
    "Un attimo, controllo subito ⏳",
    "いい質問ですね。順番に見ていきましょう⬇️",
    "Claro, te lo explico paso a paso 👇🏽",
    "Here's what to check :point_down:",
    "Un momento, lo reviso :hourglass_flowing_sand:",
    "Here you go: 🎉",  # the colon ends it, whatever emoji follows
    # no letters, or a quoted preamble that ends open, is no quotation to send
    ":point_down:",
    "👇👇👇",
    '"Sure! Here are the steps:"',
    "“Klar, hier ist die Anleitung:”",
]
ANSWERS = [
    "Yes.",
    "42.",
    "8080.",
    "Sure.",  # a yes to a yes/no question
    "Sure! Here are the steps:\n1. Open *Settings*\n2. Click *Save*",
    "Happy to help — the port is 5432.",
    "Here is the command: `kubectl get pods -n billing`",
    "Here's the link: <https://status.example.com|the status page>",
    "I don't know, but <#C0PEOPLE|people-ops> will.",
    "Here are the four DORA metrics, deployment frequency, lead time, change failure rate "
    "and time to restore service.",
    "Great question. The four DORA metrics are deployment frequency, lead time, change "
    "failure rate and MTTR.",
    "Klar: `git rebase --abort` bricht den Rebase ab.",
    "もちろんです。`git stash` で変更を退避できます。",
    # a statement first is an answer, whatever offer follows it
    "You don't need to restart; the config reloads itself. I can walk you through it.",
    "The config reloads itself. Let me explain.",
    "Great question! Since v2 the flag is gone. Let me explain.",
    "Good news! You can keep your laptop when you move teams. I can walk you through it.",
    "¡Sí! Puedes conservar tu portátil cuando cambies de equipo. Te explico cómo hacerlo.",
    # trailing off, or pointing down, after a fact
    "Yes, it comes back on its own after the reboot, you don't have to do anything…",
    "Ja, das läuft automatisch, solange du angemeldet bist...",
    "The full build takes about 10 minutes ⏳",
    "Disk usage dropped by 30% this week ⬇️",
    "Not sure, it might be the DNS cache...",
    "It supports JSON, YAML, TOML, etc...",
    "部署大约需要十分钟……",
    # a shortcode's closing colon is no colon to end on; an ellipsis after a long answer
    "Yes, on Fridays — leave them out of the kitchen. :dog:",
    "Gern geschehen — der Zugang ist ab Montag wieder frei :+1:",
    # a translation or a text to send, all in quotation marks: no promise of Vouch's own
    "「자료는 내일까지 보내드리겠습니다.」",
    '"I will look into it and get back to you by Friday."',
    "Restart the worker first, then clear the queue and wait for the health check to turn "
    "green; after that, deploy again and watch the error rate for ten minutes, and if it "
    "climbs, roll back and page the on-call engineer. It usually settles within minutes, "
    "though on a busy day with many retries queued it can take a while longer…",
]


@pytest.mark.parametrize("draft", PREAMBLES)
def test_a_preamble_with_nothing_after_it_has_no_content(draft: str) -> None:
    verdict = verify(draft, question="How do I rotate the staging database password?")
    assert "NO_CONTENT" in verdict.codes and not verdict.passed


@pytest.mark.parametrize("draft", ANSWERS)
def test_an_answer_after_an_opener_has_content(draft: str) -> None:
    assert "NO_CONTENT" not in verify(draft, question="Which port? Is it right?").codes


ENGLISH = (
    "Run the deploy workflow from the Actions tab and pick the staging environment; the "
    "job waits for a reviewer before it starts."
)
GERMAN = (
    "Starte den Deploy-Workflow im Actions-Tab und wähle die Staging-Umgebung aus; der Job "
    "wartet auf eine Freigabe, bevor er beginnt."
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Wie starte ich die Auslieferung auf die Testumgebung?", ENGLISH),
        ("Comment est-ce que je lance le déploiement sur l'environnement de test ?", ENGLISH),
        ("ステージング環境へのデプロイはどうやって始めますか？", ENGLISH),
        # by script, without a model: Arabic, Hindi, Thai, Hebrew, Greek, Korean
        ("كيف أنشر خدمة الفواتير على بيئة الاختبار؟", ENGLISH),
        ("बिलिंग सेवा को परीक्षण वातावरण में कैसे भेजें?", ENGLISH),
        ("ฉันจะปรับใช้บริการเรียกเก็บเงินในสภาพแวดล้อมทดสอบได้อย่างไร", ENGLISH),
        ("איך אני מפרסם את שירות החיוב לסביבת הבדיקות?", ENGLISH),
        ("Πώς ξεκινάω την ανάπτυξη στο περιβάλλον δοκιμών;", ENGLISH),
        ("스테이징 환경에 배포하려면 어떻게 시작하나요?", ENGLISH),
        # close pairs, by model
        (
            "Как запустить развёртывание на тестовом окружении, если пайплайн упал?",
            "Щоб запустити розгортання, відкрийте вкладку Actions і виберіть тестове "
            "середовище; завдання чекає на схвалення.",
        ),
        (
            "Hur startar jag driftsättningen till testmiljön efter att pipelinen har fallerat?",
            "Du kan starte utrullingen fra fanen Actions. Velg testmiljøet, og jobben venter "
            "på godkjenning før den starter. Det tar vanligvis noen minutter.",
        ),
        ("How do I start the deployment to the staging environment?", GERMAN),
    ],
)
def test_an_answer_in_another_language_is_flagged(question: str, answer: str) -> None:
    assert "WRONG_LANGUAGE" in verify(answer, question=question).codes


def test_english_words_in_a_question_do_not_make_it_english() -> None:
    """ "Deployment" and "Staging" are the words of every language's technical questions:
    this one is German all the same, and an English answer to it is in another language."""
    question = "Wie starte ich das Deployment auf die Staging-Umgebung?"
    assert "WRONG_LANGUAGE" in verify(ENGLISH, question=question).codes
    assert "WRONG_LANGUAGE" not in verify(GERMAN, question=question).codes


@pytest.mark.parametrize(
    ("question", "answer", "thread"),
    [
        ("Wie starte ich das Deployment auf Staging?", GERMAN, ()),
        # technical questions mix English words into the language
        ("Wie deploye ich den Billing-Service auf Staging?", GERMAN, ()),
        # too short to tell: answers of numbers, commands, names
        ("Welcher Port ist das?", "8080.", ()),
        ("Wie heißt der Befehl?", "`kubectl rollout undo deploy/billing -n staging`", ()),
        ("Wer ist zuständig?", "<@U024BE7LH> and <#C0PEOPLE|people-ops>.", ()),
        ("Quel est le port de Postgres ?", "5432.", ()),
        # a message in another script with English terms, answered in its script
        (
            "कल staging पर deploy fail क्यों हुआ?",
            "कल deploy इसलिए fail हुआ क्योंकि staging पर database का पासवर्ड बदल गया था।",
            (),
        ),
        (
            "Как перезапустить deployment в Kubernetes?",
            "Выполните `kubectl rollout restart deployment/app`: поды пересоздаются по "
            "очереди, без простоя.",
            (),
        ),
        # digits and signs of another script's block are no letters of it
        ("١٢٣٤٥٦٧٨٩٠١٢٣٤ ok?", ENGLISH, ()),
        (
            "status\ufeff\ufeff\ufeff\ufeff\ufeff\ufeff\ufeff\ufeff\ufeff\ufeff\ufeff\ufeff?",
            ENGLISH,
            (),
        ),
        # the message asks for a language
        ("Kannst du mir das auf Englisch erklären?", ENGLISH, ()),
        ("Traduis ceci pour l'équipe de Berlin : « le déploiement est en pause »", GERMAN, ()),
        # the conversation was in the answer's language
        ("und für prod?", ENGLISH, ("How do I start the deploy to staging on GitHub?",)),
        (
            "Und wie ist das in der Produktion bei uns geregelt?",
            ENGLISH,
            ("How do I start the deployment workflow to staging from the Actions tab?",),
        ),
    ],
)
def test_answers_that_may_be_in_their_language_are_not_flagged(
    question: str, answer: str, thread: tuple[str, ...]
) -> None:
    assert "WRONG_LANGUAGE" not in verify(answer, question=question, thread=thread).codes


# Close neighbours the model does not make clear, told by the letters only one side writes
SWEDISH_Q = "Varför tar det så lång tid innan ändringar i DNS syns för alla?"
NORWEGIAN = (
    "Det skyldes TTL-verdien på DNS-postene. Resolvere rundt om i verden mellomlagrer svaret "
    "så lenge TTL-en sier, så en endring blir ikke synlig for alle før den gamle verdien har "
    "gått ut. Står TTL-en på et døgn, tar det opptil et døgn."
)
SWEDISH = (
    "Det beror på TTL-värdet på DNS-posterna. Resolvrar runt om i världen cachar svaret så "
    "länge TTL:en säger, så en ändring syns inte för alla förrän det gamla värdet har gått ut."
)
UKRAINIAN_Q = "Як додати колегу до групи в Google Workspace, якщо я її власник?"
RUSSIAN = (
    "Открой groups.google.com, выбери группу, слева нажми «Участники», затем «Добавить "
    "участников». Введи адрес коллеги и выбери, добавить его сразу или отправить приглашение."
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (SWEDISH_Q, NORWEGIAN),
        (SWEDISH_Q, "Snakk med Bjørn Sæther om det, han kan ordne TTL-en før endringen i morgon."),
        (
            "Kde si změním heslo? Nemůžu ho najít v nastavení účtu.",
            "Môžeš to urobiť v nastaveniach: klikni na Účet, potom na Heslo. Ak to nejde, napíš "
            "na helpdesk, veľmi rýchlo ti pomôžu.",
        ),
        (UKRAINIAN_Q, RUSSIAN),  # the model makes this one clear
    ],
)
def test_an_answer_in_the_close_neighbour_of_the_message_is_flagged(
    question: str, answer: str
) -> None:
    assert "WRONG_LANGUAGE" in verify(answer, question=question).codes


@pytest.mark.parametrize(
    ("question", "answer", "thread"),
    [
        (SWEDISH_Q, SWEDISH, ()),
        # the neighbour's names in an answer of the message's language
        (
            SWEDISH_Q,
            "Fråga Bjørn Sæther i nätverksteamet, han sänker TTL:en åt dig före ändringen.",
            (),
        ),
        (
            "Vem kan sänka TTL:en åt oss?",
            "Bjørn Sæther og Jørgen Løkke sköter DNS, be dem om hjälp.",
            (),
        ),
        # asked for, or where the conversation went
        ("Kan du svara på norska? " + SWEDISH_Q, NORWEGIAN, ()),
        ("Kan du svara på danska? " + SWEDISH_Q, NORWEGIAN, ()),  # the model cannot tell
        (SWEDISH_Q, NORWEGIAN, ("Hvorfor oppdateres ikke DNS-en med én gang hos meg?",)),
    ],
)
def test_a_neighbours_names_requests_and_turns_leave_the_answer_alone(
    question: str, answer: str, thread: tuple[str, ...]
) -> None:
    assert "WRONG_LANGUAGE" not in verify(answer, question=question, thread=thread).codes


RETENTION = Source(
    "s1",
    "Logging › Retention",
    "https://wiki.example.com/logging",
    "Application logs are kept for 30 days, then deleted. Audit logs are kept for 1 year. "
    "Deploys take about 1.5 minutes. The quota is 2048 MB per team; version 2.3 of the "
    "agent is required since 2026-03-03. Keys rotate daily.",
)
QUOTE = "Application logs are kept for 30 days, then deleted."


def figures_flagged(claim: str, thread: tuple[str, ...] = (), question: str = "?") -> bool:
    verdict = verify(
        f"{claim} See the logging page.",
        question=question,
        sources=(RETENTION,),
        citations=(Citation("s1", "", QUOTE, claim),),
        thread=thread,
    )
    return "UNSOURCED_FIGURE" in verdict.codes


@pytest.mark.parametrize(
    "claim",
    [
        "Application logs are kept for 60 days.",
        "Application logs are kept for 30 hours.",
        "Audit logs are kept for 2 years.",
        "The quota is 4 GB per team.",
        "Version 2.4 of the agent is required.",
        "It is required since 2026-03-04.",
        "Deploys take about 5 minutes.",
        "Keys rotate every 12 hours.",
    ],
)
def test_a_figure_its_source_does_not_give_is_flagged(claim: str) -> None:
    assert figures_flagged(claim)


@pytest.mark.parametrize(
    "claim",
    [
        "Application logs are kept for 30 days.",
        "Logs have a 30-day retention.",
        "Audit logs are kept for 12 months.",
        "Deploys take about 90 seconds.",
        "The quota is 2 GB per team.",
        "v2.3 of the agent is required since March 3, 2026.",
        "Keys rotate every 24 hours.",
        "Step 2: check that logs older than 30 days are gone.",  # a lone digit: a step
        "Run `logrotate -f /etc/logrotate.d/app-7` after 30 days.",  # code is not a claim
        "Logs are kept for 30 days, so 1,000 lines from the week are still there.",
    ],
)
def test_a_figure_its_source_gives_in_another_form_passes(claim: str) -> None:
    assert not figures_flagged(claim, question="we log 1000 lines a week; are they kept?")


def test_a_figure_from_the_thread_or_arithmetic_on_given_figures_passes() -> None:
    thread = ("Our bucket holds 800 GB and grows by 200 GB a month.",)
    assert not figures_flagged("In a month you would need 1,000 GB in all.", thread)
    assert not figures_flagged("The audit window is 1 year less 30 days: 335 days.", thread)
    clock = ("The migration ran from 14:02 to 14:20.",)
    assert not figures_flagged("It took 18 minutes, under the 30 days of retention.", clock)
    assert figures_flagged("In a month you would need 1,200 GB in all.", thread)


def restated_flagged(claim: str, source: str, question: str = "?") -> bool:
    verdict = verify(
        f"{claim} See the page.",
        question=question,
        sources=(Source("s1", "Page", "https://wiki.example.com/p", source),),
        citations=(Citation("s1", "", source, claim),),
    )
    return "UNSOURCED_FIGURE" in verdict.codes


# (claim, what its source says): the same figure in another form, or derived from two.
RESTATED = [
    ("Seats cost $1.2k a year.", "Seats cost $1,200 per year."),
    ("The budget is €40k.", "The budget is €40,000."),
    ("We have 2.5M users.", "We have 2,500,000 users."),
    ("It serves 1.3bn requests.", "It serves 1.3 billion requests a month."),
    ("It costs 1,2 Mio. €.", "It costs EUR 1,200,000."),
    ("It is $300 a month.", "The plan is USD 300 per month."),
    ("It is €1,500.", "The fee is EUR 1.500,00."),
    ("It is 300 €.", "The fee is €300."),
    ("75% are migrated.", "60,000 of 80,000 records are migrated."),
    ("A third (33%) is left.", "1 of 3 regions is left."),
    ("You get 28 days.", "You get 25 vacation days and 3 personal days."),
    ("€37,500 is left.", "The budget is €50,000; €12,500 is spent."),
    ("Es dauert zwei Wochen.", "It takes 14 days."),
    ("Cela prend trois jours.", "It takes 72 hours."),
    # a one-letter word after a unit is no unit ("w roku": in a year; "s náhradou": with)
    ("Maksymalnie 210 dni w roku.", "Up to 210 days per year."),
    # a duration in two units is their sum; the texts' parts are given too
    ("Netto 8 Stunden 15 Minuten.", "9 Stunden einschließlich 45 Minuten Pause."),
    ("Det är 25 veckor och 5 dagar.", "Föräldralön i 180 kalenderdagar."),
    ("Dão 4 semanas e 2 dias.", "30 dias corridos de férias."),
    ("Ab 5 Jahren: 2 Monate.", "Notice: from 2 years 1 month, from 5 years 2 months."),
    # millions set apart by dots are no version; millions in words
    ("O total é R$ 2.500.000.", "Meta: R$ 2,5 milhões."),
    ("Bütçe 2.500.000 TL.", "Bütçe 2,5 milyon TL."),
    ("Budgeten är 2 miljoner kr.", "Budget: 2 000 000 kr."),
    # a unit is no word between a number and the next unit: two years, and four weeks
    ("Im ersten Jahr: vier Wochen.", "In den ersten zwei Jahren vier Wochen zum Fünfzehnten."),
    ("Sick days: 3 dny ročně, s náhradou 100 % mzdy.", "Sick days: 3 dny ročně s 100 %."),
    # hours at the end of a compound; ordinals and days of every month in CJK
    ("Je hebt nog 2 verlofuren.", "Je hebt nog 120 minuten verlof."),
    ("Du har 2 overtimer.", "Overtid: 120 minutter."),
    ("メンテナンスは毎月第1日曜日の02:00〜05:00です。", "Maintenance: first Sunday, 02:00–05:00."),
    ("每月1日开具发票，14天内付款。", "Invoices on the 1st of each month, due in 14 days."),
    ("Son cinco días.", "It takes 5 days."),
    ("Sono dieci giorni.", "It takes 10 days."),
    ("It takes twelve days.", "It takes 12 days."),
    ("The call is at 3:30 pm.", "The call is at 15:30."),
    ("Der Call ist um 9 Uhr.", "The call is at 09:00."),
    ("L'appel est à 18h.", "The call is at 6 pm."),
    ("L'appel est à 18h30.", "The call is at 18:30."),
    ("Der Call ist um 15.30 Uhr.", "The call is at 3:30 PM."),
    ("会議は午後3時です。", "The meeting is at 15:00."),
    ("It ships on 14 March 2026.", "It ships on 2026-03-14."),
    ("Es kommt am 14. März 2026.", "It ships on 2026-03-14."),
    ("Il sort le 14 mars 2026.", "It ships on 2026-03-14."),
    ("Sale el 14 de marzo de 2026.", "It ships on 2026-03-14."),
    ("リリースは2026年3月14日です。", "It ships on 2026-03-14."),
    ("It ships on 14/03/2026.", "It ships on 2026-03-14."),
    ("You have 2 days.", "You have 48 hours."),
    ("It takes 1.5 hours.", "It takes 90 minutes."),
    ("Es dauert anderthalb Stunden.", "It takes 90 minutes."),
    ("48時間以内に返信します。", "We answer within 2 days."),
    ("We have 1 000 users.", "We have 1,000 users."),
    ("We have 1'000 users.", "We have 1000 users."),
    ("Tu as vingt-cinq jours.", "You get 25 days."),
    ("Son veinticinco días.", "You get 25 days."),
    ("Du hast fünfundzwanzig Tage.", "You get 25 days."),
    ("Je hebt vijfentwintig dagen.", "You get 25 days."),
    ("Pro gives 240.000 calls more.", "Free: 10,000 calls. Pro: 250,000 calls."),
    ("Cancel by 16 November 2025.", "Renewal: 2026-01-15. Notice period: 60 days."),
    ("Es dauert ein halbes Jahr.", "It takes 6 months."),
    ("Es dauert eine halbe Stunde.", "It takes 30 minutes."),
    ("Zwei halbe Tage reichen.", "It takes one day: 24 hours."),
    ("You can carry over up to 5 days.", "Employees may carry over up to 5 unused PTO days."),
    ("Chiedilo con quindici giorni di anticipo.", "Ask 2 weeks ahead."),
    ("Demande-le quinze jours avant.", "Ask 14 days ahead."),
    ("一个迭代是十四天。", "每个迭代周期为两周。"),
    ("14 天。", "每个迭代周期为两周。"),
    ("二週間かかります。", "It takes 14 days."),
    ("十四日間かかります。", "It takes two weeks."),
    ("二十四小时内回复。", "We answer within 1 day."),
    ("Sono 30 centesimi al chilometro.", "Il rimborso è di 0,30 € per km."),
    ("Es sind 50 Cent pro Fahrt.", "A ride costs €0.50."),
    ("Je hebt 25 vakantiedagen.", "You get 25 days of leave."),
    ("In totaal 28 vrije dagen.", "25 vakantiedagen per jaar, en 3 collectieve vrije dagen."),
    ("Du hast 30 Urlaubstage.", "Urlaub: 30 Tage im Jahr."),
    ("Conversion rose by 12 percentage points.", "Conversion went from 35% to 47%."),
    ("Kopie trzymamy przez dwa tygodnie.", "Backups are kept for 14 days."),
    ("Odpowiadamy w ciągu dwóch dni.", "We answer within 48 hours."),
    # a product written out with its operands, one of them given
    ("Datadog: 9 × $1,850 = $16,650.", "Datadog: $1,850 per month, billed monthly."),
    ("240 km × 30 Cent pro Kilometer = 72,00 €.", "30 Cent pro Kilometer; gefahren: 240 km."),
    ("Anteilig: 30 Urlaubstage × 4/5 = 24.", "Vollzeit: 30 Urlaubstage pro Jahr."),
    ("It accrues monthly (8 × 1.75 = 14).", "Leave accrues at 1.75 days per full month."),
    ("200,000 segments at 0.75 cents ($0.0075) each.", "0.75 US cents per segment; 200k sent."),
    # a month holds 28 to 31 days, a year 365 or 366: a span of days, either way
    ("Raw events are kept just over 13 months.", "Raw events are kept for 400 days."),
    ("Notice is about 13 weeks.", "The notice period is 3 months."),
    ("Это примерно 90 дней, то есть 3 months.", "Retention: 90 days."),
    # working days, five to a week
    ("Uiterlijk over twee weken.", "Uitbetaald binnen 10 werkdagen na goedkeuring."),
    ("Refunds take two weeks.", "Refunds are paid within 10 business days."),
    ("Ça prend deux semaines.", "Remboursé sous 10 jours ouvrés."),
    ("Das dauert drei Wochen.", "Bearbeitung in 15 Arbeitstagen."),
    # half a year in Chinese and Japanese
    ("6か月分の手当です。", "在宅勤務手当は月額5,000円です。半年で？"),
    # units, spelled numbers, months and multipliers of more languages
    ("Sessionstoken gäller i 480 minuter.", "En sessionstoken gäller i 8 timmar."),
    ("Не больше 240 минут.", "Время ответа — не более 4 часов."),
    ("**1,800초**입니다.", "세션은 30분 동안 활동이 없으면 만료됩니다."),
    ("I 24 måneder.", "Logger lagres i 2 år."),
    ("Trvá to tři týdny.", "Zpracování trvá 21 dní."),
    ("До *240 тыс. ₽*.", "Премия — 240 000 рублей."),
    ("Dostaneš 5 000 Kč.", "Náhrada je 5 000 Kč."),
    ("*27. května 2025*.", "Certifikát vyprší 2025-05-27."),
    ("Do **14 квітня**.", "Термін: 2025-04-14."),
    ("*6월 19일*입니다.", "Release: 2025-06-19."),
    ("2025年に導入しました。", "Introduced in 2025."),
    # times of day in Chinese, Japanese and Korean, with or without the half of the day
    ("毎週水曜の午後3時から3時45分までです。", "定例会議は毎週水曜日の15:00から15:45までです。"),
    ("早上9点到晚上9点。", "Hotline: 09:00–21:00."),
    ("오후 2시에 진행돼요.", "배포는 14:00에 진행됩니다."),
    ("9 000 kr per år.", "25 % rabatt på 12 000 kr per år."),  # what a share leaves
    ("**下午6点半**出发。", "The shuttle leaves at 18:30."),
    # a date counted from a given one, with or without its year, by days, weeks or months
    ("Hasta el **12 de junio**.", "Acceso concedido el 2025-06-09; caduca a las 72 horas."),
    ("Du leverer fra deg **24. november**.", "Vakten starter 10. november og varer 14 dager."),
    ("Skončí **30. dubna**.", "Nástup 1. února 2025. Zkušební doba je tři měsíce."),
    ("入社から半年後の *10月1日* です。", "4月1日入社。有給休暇は入社6か月後に付与されます。"),
    # found by a blind review: words that are no units, and units written otherwise
    ("注意点は3点です。", "There are three points to note."),
    ("満点は100点です。", "The maximum score is 100."),
    ("大约需要一个半小时。", "It takes about 90 minutes."),
    ("3분기 매출은 50억 원입니다.", "3분기 매출: 50억 원."),
    ("회사는 올해 창립 10주년입니다.", "The company was founded 10 years ago."),
    ("Het team heeft 12 leden.", "The team has 12 members."),
    ("Встреча в 15 часов.", "Встреча в 15:00."),
    ("Стоимость 500 руб. в месяц.", "The price is 500 RUB a month."),
    ("Fiyat 500 TL.", "Price: 500 TRY."),
    ("Det tar 10 arbetsdagar.", "It takes two weeks."),
    ("Prisen er 500 kr om måneden.", "The price is 6,000 kr per year."),
    ("That is 10 requests per second.", "The limit is 600 requests per minute per token."),
    ("Es sind 48.000 € im Jahr.", "The allowance is €4,000 a month."),
    # definite forms of the Scandinavian units, Norwegian and Danish millions, Czech dates
    ("Det betalas i 180 dagar.", "Lön under de första 180 kalenderdagarna."),
    ("Det er 30 dager.", "Du har de 30 dagene til rådighet."),
    ("Det er 12 timer.", "De 12 timerne betales med tillæg."),
    ("Det er 1 800 000 kr.", "Budsjettet er 1,8 mill. kr for 2026."),
    ("Končí 30. 6. 2026.", "Zkušební doba končí 30.06.2026."),
    ("Це до 8 год 46 хв простою.", "Допустимий простій — 526 хвилин на рік."),  # hours
    ("Abgabe am **17.10.**", "Abgabeschluss: 2025-10-17."),
    ("A meta é R$ 2.500.000.", "Meta do trimestre: R$ 2,5 mi."),  # Brazilian millions
    ("Das Meeting geht bis 11.05.", "Meeting 10.30–11.05 Uhr."),  # a time, not 11 May
    ("Der Faktor ist 1.05.", "Der Faktor ist 1,05."),  # no date at a sentence's end
    ("P2 svar senest kl. 16.00.", "Arbejdstiden er kl. 08.00–16.00."),
    ("Договор на 1 год.", "Договор заключается на 12 месяцев."),  # a Russian year
    ("Зустріч триває 1 год.", "Зустріч триває 60 хвилин."),  # Ukrainian hours
    # after a number ending in 1, in letters both languages write: the language model's
    ("Навчання займе 21 год.", "Навчання триває 1260 хвилин."),  # Ukrainian hours
    ("Гарантия 21 год.", "Гарантийный срок — 252 месяца."),  # a Russian year
]


# Words that hold a numeral or a half, and no figure: a correct answer citing a source
# with other figures keeps them
NO_FIGURE = [
    "Backups are kept 30 days; 加班按 1:1 折算成调休。",  # converted, not a tenth off
    "Backups are kept 30 days in Sydney (UTC+10) and Mumbai (UTC+5:30).",  # offsets
    "Backups are kept 30 days; 这一点十分重要。",
    "Backups are kept 30 days. 三分之一的服务已经迁移。",
    "Backups are kept 30 days, 第二天 they are checked.",
    "Backups are kept 30 days, 最后一天 they are checked.",  # the last day
    "Backups are kept 30 days, 前一天 they are listed.",  # the day before
    "Backups are kept 30 days, 一元管理 in one bucket.",
    "Backups are kept 30 days; 四周 the building.",
    "Backups are kept 30 days (三月五日 was the last restore).",
    "Backups are kept 30 days, 一日も早く check them.",
    "Backups are kept 30 days; las medias de uso son estables.",
    "Backups are kept 30 days, restored at mediodía.",
    "Backups are kept 30 days, see halbem Weg.",
    "Backups are kept 30 days; ein paar Minuten lang fehlt der Zugriff.",  # a few
    "Backups are kept 30 days, eine Handvoll Tage mehr.",
    "Backups are kept 30 days, un paio di minuti per il restore.",
    "Backups are kept 30 days, on 5 Montage a month.",  # Mondays, no compound
    "Backups are kept 30 days, see 2 CT scans.",
    "Backups are kept 30 days, in 3 facturen and 4 structuren.",  # not hours
    # compounds of other words that end like a unit
    "Backups are kept 30 days, an 3 Mittwochen und 2 Samstagen im Monat.",
    "Backups are kept 30 days, in 2 Halbtage and 3 Viertelstunden.",
    "Backups are kept 30 days; una media hora basta.",
]


@pytest.mark.parametrize("claim", NO_FIGURE)
def test_words_holding_a_numeral_or_a_half_are_no_figures(claim: str) -> None:
    assert not restated_flagged(claim, "Backups are kept for 30 days.")


# (claim, source, question): a rate given per unit of time, times a count of its units the
# asker gives; and products written out with their operands
PAID = [
    ("Four weeks on call pay $1,000.", "The stipend is $250 per week.", "A four-week rotation?"),
    ("São R$ 900 no mês.", "O vale é de R$ 45 por dia útil.", "Quanto recebo em 20 dias úteis?"),
    ("10 hours × $40 = $400.", "Consulting is billed at $40 per hour.", "We need 10 hours."),
    ("12 × $1,234.56 = $14,814.72.", "The lease is $1,234.56 per month.", "For 12 months?"),
    ("Coverage: 3 shifts × 8 hours = 24 hours.", "A shift lasts 8 hours.", "?"),
    ("Retention: 4 × 7 days = 28 days.", "Snapshots are kept 7 days.", "?"),
    ("3 × 512 MB = 1.5 GB.", "Each pod gets 512 MB.", "?"),
    ("5 × 1.000 € = 5.000 €.", "Der Laptop kostet 1.000 €.", "?"),
    ("Datadog: 9 × $1,850 = **$16,650**.", "Datadog: $1,850 per month.", "?"),
    ("10 Stunden × 40 € = 400 €.", "Der Satz ist 40 €/h.", "Wir brauchen 10 Stunden."),
    # a given figure times or divided by a count the asker gives, or the claim's working
    ("You have 700 GB in total.", "The quota is 50 GB per user.", "We are 14 people."),
    ("Mindst 21 pods.", "Mindst 3 replikaer af hver tjeneste.", "Vi har 7 tjenester."),
    ("*180 zł*: 45 zł dziennie, razy 4 dni.", "Dieta wynosi 45 zł.", "Jadę na 4 dni."),
    ("12 × € 29 = € 348.", "Het abonnement kost € 29 per maand.", "?"),
    ("**3 600 kr i året**: 300 kr ganger tolv.", "Godtgjørelsen er 300 kr per måned.", "?"),
    ("45 k€ par trimestre : 180 k€ divisé par quatre.", "Le budget est de 180 000 €.", "?"),
    ("120 000 в сутки, делим на 24: 5 000 в час.", "Лимит — 120 000 в сутки.", "?"),
    ("年間で *60万円* です（月額5万円 × 12か月）。", "交通費の上限は月額5万円です。", "年間で？"),
    # found by a second review: CJK writes no spaces round the sign; ÷ is never a dimension
    ("年間で120万円です（10万円×12か月）。", "月額10万円です。", "年間で？"),
    ("一年是120万元（10万元×12个月）。", "每月10万元。", "一年多少？"),
    ("Each gets €250 (€1,000÷4).", "The budget is €1,000.", "?"),
    ("一年是120万元，10万元乘以12个月。", "每月10万元。", "一年多少？"),
    ("上半年收入为500万元。", "H1 revenue: 500万元.", "?"),
    # an amount times a count of its unit of time the asker writes, through the rate
    ("Za 4 dni dostaniesz 180 zł.", "Dieta wynosi 45 zł za dzień.", "Jadę na 4 dni."),
    ("Con 14 giornate ti arrivano 112,00 €.", "8,00 € per ogni giorno in ufficio.", "14 giorni?"),
    ("За 6 днів отримаєш **480 євро**.", "Добові — 80 євро на день.", "Їду на 6 днів."),
    # a time with a dot, as Scandinavian and Turkish write it; still a decimal too
    ("Det blir **11:00 AM–1:00 PM**.", "Kantina serverer lunsj kl. 11.00–13.00.", "?"),
    ("Misafirin için bu **6:15 PM** demek.", "Servis akşam 18.15'te kalkar.", "?"),
    ("The rate is 12.50 per hour.", "Der Satz ist 12,50 pro Stunde.", "?"),
    ("Es sind 1,25 Mio. €.", "Budget: 1.25 Mio €.", "?"),
    ("四半期で *360万円* です（月額120万円 × 3か月）。", "予算は月額120万円です。", "四半期だと？"),
    # (a slip in the count is the judge's: "$6,000" for $500 per user per month, 10 users
    # and 12 months passes, as $500 × 12)
]
# ... and what they may not explain away
NOT_PAID = [
    ("Four weeks on call pay $1,250.", "The stipend is $250 per week.", "A four-week rotation?"),
    ("It comes to $960.", "Support costs $40 per hour. We answer within 24 hours.", "?"),
    ("The late fee comes to $1,500.", "Late fee: $50 and interest. Due within 30 days.", "?"),
    ("1 licence × $1,200 = $1,200.", "A licence costs $1,000 a year. Tier-1 included.", "?"),
    ("5 admins × $100 = $3,000.", "Each admin seat costs $100 per month. 30 members.", "?"),
    ("2 × $500 = $1,000 × 12 = $24,000.", "A seat costs $500 per month for 12 months.", "?"),
    ("90 minutes × $40 = $3,600.", "Billed at $40 per hour. A session lasts 90 minutes.", "?"),
    ("2 × $600 = $1,200.", "A licence costs $500 a year.", "?"),
    ("3 × 20 ms = 60 seconds.", "Retry after 20 ms.", "?"),
    ("$50 × $20 = $1,000.", "The fee is $50; the tip is $20.", "?"),
]


@pytest.mark.parametrize(("claim", "source", "question"), PAID)
def test_a_rate_times_a_count_and_a_product_written_out_pass(
    claim: str, source: str, question: str
) -> None:
    assert not restated_flagged(claim, source, question)


@pytest.mark.parametrize(("claim", "source", "question"), NOT_PAID)
def test_products_explain_away_no_wrong_figure(claim: str, source: str, question: str) -> None:
    assert restated_flagged(claim, source, question)


@pytest.mark.parametrize(("claim", "source"), RESTATED)
def test_a_figure_restated_in_another_form_passes(claim: str, source: str) -> None:
    assert not restated_flagged(claim, source)


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Seats cost $12k a year.", "Seats cost $1,200 per year."),
        ("The budget is €45k.", "The budget is €40,000."),
        ("80% are migrated.", "60,000 of 80,000 records are migrated."),
        ("You get 30 days.", "You get 25 vacation days and 3 personal days."),
        ("The call is at 3:30 am.", "The call is at 15:30."),
        ("It ships on 14 April 2026.", "It ships on 2026-03-14."),
        ("You have 3 days.", "You have 48 hours."),
        ("Es dauert drei Wochen.", "It takes 14 days."),
        ("Downloads cost $0.09 per GB.", "Downloads cost $0.08 per GB."),
        ("Tu as vingt-six jours.", "You get 25 days."),
        ("Cancel by 17 November 2025.", "Renewal: 2026-01-15. Notice period: 60 days."),
        ("Es dauert ein halbes Jahr.", "It takes 12 months."),
        ("Es dauert eine halbe Stunde.", "It takes 60 minutes."),
        ("It takes 15 days.", "It takes 2 weeks."),  # only the spelled idiom is two weeks
        ("Es dauert zwei weitere Tage.", "It takes 3 more days."),  # a word between
        ("Es sind 40 Cent pro Fahrt.", "A ride costs €0.50."),
        ("Du hast 28 Urlaubstage.", "Urlaub: 30 Tage im Jahr."),
        ("Je hebt 3 werkweken.", "It takes 14 days."),
        ("Kopie trzymamy przez trzy tygodnie.", "Backups are kept for 14 days."),
        ("Datadog: 9 × $1,850 = $16,850.", "Datadog: $1,850 per month, billed monthly."),
        ("Datadog: 9 × $1,950 = $17,550.", "Datadog: $1,850 per month, billed monthly."),
        ("You earn €680.", "You earn €40 per hour; the shift ends at 17:00."),  # no duration
        ("Cela prend quinze minutes.", "It takes 14 minutes."),
        ("一个迭代是三周。", "每个迭代周期为两周。"),
        ("二十五小时内回复。", "We answer within 1 day."),
        ("Raw events are kept for 20 months.", "Raw events are kept for 400 days."),
        ("Notice is 10 weeks.", "The notice period is 3 months."),
        ("It lasts 57 weeks.", "It lasts 400 days."),  # days and weeks are exact
        ("Refunds take three weeks.", "Refunds are paid within 10 business days."),
        ("Refunds take 12 days.", "Refunds are paid within 10 days."),  # calendar days
        ("Das dauert zwei Wochen.", "Bearbeitung in 10 Tagen."),
        ("7か月分の手当です。", "在宅勤務手当は月額5,000円です。半年で？"),
        ("That is 20 requests per second.", "The limit is 600 requests per minute."),
        ("Es sind 50.000 € im Jahr.", "The allowance is €4,000 a month."),
        ("That is €1,000 a week.", "The allowance is €4,000 a month."),
        ("You have 750 GB in total.", "The quota is 50 GB per user. We are 14 people."),
        ("Sessionstoken gäller i 400 minuter.", "En sessionstoken gäller i 8 timmar."),
        ("I 25 måneder.", "Logger lagres i 2 år."),
        ("Trvá to čtyři týdny.", "Zpracování trvá 21 dní."),
        ("*28. května 2025*.", "Certifikát vyprší 2025-05-27."),
        ("*6월 20일*입니다.", "Release: 2025-06-19."),
        ("毎週水曜の午後4時からです。", "定例会議は毎週水曜日の15:00からです。"),
        ("Du leverer fra deg **25. november**.", "Vakten starter 10. november og varer 14 dager."),
        ("Skončí **30. května**.", "Nástup 1. února 2025. Zkušební doba je tři měsíce."),
        ("Dat is 3 weken.", "De proefperiode is 1 maand."),  # a month is four weeks, not three
        ("Es sind 13 Monate.", "Die Aufbewahrung beträgt 1 Jahr."),  # months compare exactly
        # found by a blind review: derivations that explained away slips
        ("The discount is 75%.", "The discount is 25%."),  # no complement of any percentage
        ("Each seat costs €100 per month.", "Seats cost €50 per month. For the Q2 budget?"),
        ("Max resolution is 1920×1080.", "Max resolution is 1280×720."),  # dimensions
        ("The new cache is 10× faster.", "The new cache is 5× faster."),
        ("The notice period is one month.", "Notice period: 3 months; invoices go out monthly."),
        ("保証期間は1年間です。", "保証期間は3年間です。"),
        ("Die Garantie beträgt 1 Jahr.", "Die Garantie beträgt 3 Jahre ab Ende des Jahres."),
        ("Coverage lasts 50 weeks.", "Coverage lasts 1 year."),
        ("It lasts 14 months.", "It lasts 400 days."),
        ("We have 1,998 seats.", "We have 2,000 seats on a 2-year contract."),
        ("合格点は85点です。", "The pass mark is 70."),
        ("单个任务的超时时间是一个半小时。", "单个任务的超时时间为7200秒。"),
        ("8 000 kr per år.", "25 % rabatt på 12 000 kr per år."),
        ("**下午7点半**出发。", "The shuttle leaves at 18:30."),
        ("Te toca renovarlo en 2026.", "Se renuevan cada 36 meses. Entregado en marzo de 2022."),
        (
            "45 k€ par trimestre : 180 k€ divisé par trois.",
            "Le budget est de 180 000 €.",
        ),
        ("Cela fait 90 jours.", "Les journaux sont gardés 30 jours et 3 ans ailleurs."),
        ("$50 × $20 = $1,000.", "The fee is $50; the tip is $20."),
        ("Es sind 13 Monate.", "Monatlich 100 €; die Aufbewahrung beträgt 1 Jahr."),
        ("Bayi indirimi %20'dir.", "Bayi indirimi %18'dir."),
        ("Maksymalnie 200 dni w roku.", "Up to 210 days per year."),
        ("O total é R$ 2.600.000.", "Meta: R$ 2,5 milhões."),
        ("Det är 25 veckor och 4 dagar.", "Föräldralön i 180 kalenderdagar."),
        ("Netto 8 Stunden 30 Minuten.", "9 Stunden einschließlich 45 Minuten Pause."),
        ("Ab 5 Jahren: 4 Monate.", "Notice: from 2 years 1 month, from 5 years 2 months."),
        ("Budgeten är 3 miljoner kr.", "Budget: 2 000 000 kr."),
        ("Im ersten Jahr: zwei Wochen.", "In den ersten zwei Jahren vier Wochen zum Fünfzehnten."),
        ("Je hebt nog 3 verlofuren.", "Je hebt nog 120 minuten verlof."),
        ("Du har 3 overtimer.", "Overtid: 120 minutter."),
        ("每月1日开具发票，15天内付款。", "Invoices on the 1st of each month, due in 14 days."),
        ("İndirim 40.000 TL × %18 = 7.300 TL olur.", "Bayi indirimi %18'dir. 40.000 TL."),
        ("Det er 1 700 000 kr.", "Budsjettet er 1,8 mill. kr for 2026."),
        ("Končí 30. 7. 2026.", "Zkušební doba končí 30.06.2026."),
        ("Це до 8 год 56 хв простою.", "Допустимий простій — 526 хвилин на рік."),
        ("Abgabe bis **24.10.**", "Abgabeschluss: 2025-10-17."),
        ("Abgabe am **18.10.**", "Abgabeschluss: 2025-10-17."),
        ("A meta é R$ 2.600.000.", "Meta do trimestre: R$ 2,5 mi."),
        ("Vedligehold fredag den 12. marts 2026.", "Vedligehold: 2026-03-12."),  # a Thursday
        ("Det betalas i 190 dagar.", "Lön under de första 180 kalenderdagarna."),
    ],
)
def test_a_figure_restated_wrongly_is_flagged(claim: str, source: str) -> None:
    assert restated_flagged(claim, source)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("indirim %18'dir", "indirim 18%'dir"),
        ("(%2,5)", "(2,5%)"),
        ("a%20b and /%2F", "a%20b and /%2F"),  # a URL's escapes
        ("printf('%5d')", "printf('%5d')"),  # a format
        ("100%18", "100%18"),
    ],
)
def test_a_percentage_written_sign_first_is_read_sign_last(text: str, read: str) -> None:
    assert figures.percent_last(text) == read


# (claim, source): a time converted to another zone with no working shown, or the wrong
# way, or its end by another duration: the judge's to weigh, never sourced by the rule (a
# blind review found any time passing once texts give a few zones and durations)
NOT_CONVERTED = [
    (
        "Vancouver is UTC−8: 8:00 a.m. to 8:15 a.m.",
        "The handover is at 16:00 UTC and takes 15 minutes.",
    ),
    ("Vancouver is UTC−8: 9:00 a.m.", "The handover is at 16:00 UTC and takes 15 minutes."),
    (
        "Vancouver is UTC−8: 8:00 a.m. to 8:30 a.m.",
        "The handover is at 16:00 UTC and takes 15 minutes.",
    ),
    ("Berlin ist UTC+1: 18:00.", "Der Call ist um 17:00 Kyjiwer Zeit (im Winter UTC+2)."),
]


@pytest.mark.parametrize(("claim", "source"), NOT_CONVERTED)
def test_a_time_converted_wrongly_is_flagged(claim: str, source: str) -> None:
    assert restated_flagged(claim, source)


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("Новосибирск живёт по UTC+7, Москва — по UTC+3", {7, 3}),
        ("window UTC 02:00–04:00, 北京时间", {0, 8}),
        ("北京时间UTC+8。", {8}),
        ("Mumbai is GMT+5:30; New York UTC−4", {5.5, -4}),
        ("МСК, KST and CEST", {3, 9, 2}),
        ("ESTIMATE the CESTA", set()),  # letters around are no zone
    ],
)
def test_offsets_from_utc_are_read(text: str, hours: set[float]) -> None:
    assert figures.zones(text) == {Fraction(int(h * 3600)) for h in hours}


def test_an_off_by_one_is_no_sum_of_given_figures() -> None:
    """Each operand must be a real part of the result: 2027 is not 2026 plus a stray 1."""
    thread = ("Step 1 is the 2026 plan; we keep 500 builds.",)
    assert figures_flagged("Builds are kept until 2027.", thread)
    assert figures_flagged("We keep 503 builds for 30 days.", thread)
    assert figures_flagged("We keep 0 builds after 30 days.", thread) is False  # 0: no figure


def test_without_sources_or_claims_figures_are_not_checked() -> None:
    assert "UNSOURCED_FIGURE" not in verify("Logs are kept 60 days.", question="?").codes
    unclaimed = (Citation("s1", "", QUOTE),)
    verdict = verify(
        "Logs are kept 60 days.", question="?", sources=(RETENTION,), citations=unclaimed
    )
    assert "UNSOURCED_FIGURE" not in verdict.codes


HOSTILE = st.one_of(
    st.from_regex(r"\d{400,5000}(,\d)?( ms)?", fullmatch=True),
    st.sampled_from(["ſep 3, 2024", "3 auguſt 2024", "aprıl 3", "ſix days", "fİve days"]),
    st.from_regex(r"(\d{1,3}[,. ]){1,30}\d{1,9}( GB| days|%)?", fullmatch=True),
)
FIGURISH = st.lists(
    st.sampled_from([*"0123456789.,:-/ $€%vVhmsdGBMKaypt", "March ", " days", " GB", "v"]),
    max_size=40,
).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(
    claim=st.one_of(FIGURISH, HOSTILE, st.text(max_size=80)),
    source=st.one_of(FIGURISH, HOSTILE, st.text()),
)
def test_figures_never_break_verification(claim: str, source: str) -> None:
    """Any text as a claim, a source or a thread (long digit runs, "ſep" that folds to
    "sep" in Unicode): verification returns, it never raises."""
    verify(
        claim or "x",
        question=source,
        sources=(Source("s", "S", None, source),),
        citations=(Citation("s", "", "", claim),),
        thread=(source,),
    )


FIGURE_PIECES = st.sampled_from(
    [
        *sorted(figures._WORDS)[::7],
        *sorted(figures._MONTHS)[::3],
        *figures._HALVES,
        *figures._CURRENCY_FIRST,
        *"0123456789$€£¥₹一二两十四周天年月日時分午後上下",
        " ",
        "-",
        ".",
        ",",
        ":",
        "/",
        "R$",
        "v",
        "version ",
        "release ",
        " days",
        " Uhr",
        " pm",
        "k",
        "%",
        "x",
        "_",
        "\u0131",
        "\u0130",
        "\u017f",
        "é",
        "st",
    ]
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.one_of(FIGURE_PIECES, st.text(max_size=2)), max_size=30).map("".join))
def test_figures_are_found_where_they_can_begin_as_finditer_finds_them(text: str) -> None:
    """Each pattern tried only where its figures can begin finds what finditer finds."""
    found_as_finditer(text)


def found_as_finditer(text: str) -> int:
    """How many figures `text` holds, each read as when every pattern is tried at every
    character (finditer)."""
    expected = list(figures.read(text, None))
    assert list(figures.claims(text)) == expected
    return len(expected)


# One text per way a figure can begin: each found by at least one pattern
FIGURE_BEGINNINGS = [
    "Der Call ist um 9 Uhr, 会議は午後3時です, 上午9時 also.",
    "Costs R$ 50 or USD 300 or €40k.",
    "Fixed in version 2.1, v3 and release 4.0.",
    "Ships March 3, 2026 or 3 March 2026.",
    "п'ять$ and дев'ять днів: a number word with an apostrophe",
    "Tu as vingt-cinq jours, anderthalb Stunden.",
    "每个迭代两周，十四日間。",
    "On 2026-03-14, 14.03.2026 or 3/14/2026 at 15:30 or 3 pm.",
    "We have 1 000 users.",
    "价格R$50, 約r$ 9",  # R$ right after a CJK character
    "約48時間で返信します",  # digits right after a CJK character
    "build2026-03-14 at T15:30",  # a date or a time glued to a letter
    "3月5日v2.1, 3月5日twenty days, 午後3時twenty minutes",  # a word opened by a blank
    "3時30分R$5, 3月5日USD 300, May 2ndtwo weeks",
]


@pytest.mark.parametrize("text", FIGURE_BEGINNINGS)
def test_each_way_a_figure_begins_is_tried(text: str) -> None:
    assert found_as_finditer(text)


def test_cyrillic_words_meet_by_a_shorter_stem() -> None:
    """Russian, Ukrainian, Bulgarian and Serbian inflect more than five letters hold: "файли"
    (files) and "файлові" (of files) are one word for OFF_TOPIC."""
    question = "Як знайти всі файли більше 1 ГБ на сервері?"
    answer = (
        "Скористайся `find / -xdev -type f -size +1G`: `-xdev` не дає заходити в інші файлові "
        "системи (наприклад, змонтовані мережеві диски), а `2>/dev/null` ховає помилки "
        "доступу. Щоб побачити, які каталоги займають найбільше місця, зручно ще "
        "`du -xh / --max-depth=2 | sort -h | tail -20`, це покаже двадцять найбільших."
    )
    assert "OFF_TOPIC" not in verify(answer, question=question).codes


@pytest.mark.parametrize(
    ("draft", "question"),
    [
        # a title over nothing, naming the question's subject
        (
            "*Feature flag cleanup after rollout*",
            "How do feature flags get cleaned up after a rollout?",
        ),
        ("## Before your last working day\n", "What should I do before my last working day?"),
        ("*Richiesta carta carburante*", "Come faccio la richiesta della carta carburante?"),
        ("# 本番ログの確認方法", "本番ログの確認方法を教えて？"),
        # emoji in reply to a question
        (":wave: :printer: :eyes:", "Printer on 2 keeps jamming, who do I tell?"),
        ("👋😊", "¿Quién aprueba las horas extra?"),
        # a title with an emoji beside it
        ("**Müşteri sözleşme şablonları** 📄", "Müşteri sözleşme şablonları nerede?"),
    ],
)
def test_a_title_or_emoji_alone_has_no_content(draft: str, question: str) -> None:
    assert "NO_CONTENT" in verify(draft, question=question).codes


@pytest.mark.parametrize(
    ("draft", "question"),
    [
        ("**Friday**", "When is the Q3 commission payout?"),  # one word: an answer
        ("*Yes, it rolls over automatically.*", "Does unused leave roll over?"),
        ("*Unused leave carries over.*", "Does unused leave carry over?"),  # a sentence
        ("*Room 4.12, second floor*", "Where is the meeting room?"),  # a fact
        ("*Badge office, building B2*", "Where is the badge office?"),
        ("**Ask the facilities team**", "Printer on 2 keeps jamming, who do I tell?"),  # new words
        ("🙌", "Thanks, that fixed it!"),  # no question
        ("👍", "Can I bring my dog on Friday?"),  # a yes
        (":white_check_mark:", "Is the VPN back up?"),
        ("## Yes.", "Does unused leave carry over?"),  # a heading that ends a sentence
        ("Hi! 👋", "hi"),  # a greeting to a greeting
        ("Hi 👋 yes, you can.", "Can I expense a taxi to the airport?"),
        # found by a blind review: terse answers that look like titles or greetings
        ("Marta 👋", "Who is on call tonight?"),
        ("Yes 👋", "Are you there?"),
        ("☑️", "Is the migration done?"),
        ("*Remote work: no*", "Is remote work allowed?"),
        ("*Enterprise plan*", "Which plan are we on, Business or Enterprise?"),
        ("**Yes, the Berlin office is closed**", "Is the Berlin office closed on Friday?"),
        ("🙏", "Deployed https://ci.example.com/run?id=42"),  # a "?" in a link asks nothing
    ],
)
def test_a_title_or_emoji_that_answers_has_content(draft: str, question: str) -> None:
    assert "NO_CONTENT" not in verify(draft, question=question).codes


def test_a_heading_alone_has_no_content_whatever_its_words() -> None:
    """In markdown a heading is never an answer alone (in mrkdwn it is repaired to a bold
    line, which may be one, and is read as above)."""
    verdict = verify("## VPN hemifrån", question="Hur kopplar jag upp mig?", dialect="markdown")
    assert "NO_CONTENT" in verdict.codes


@pytest.mark.parametrize(
    ("claim", "source", "question"),
    [
        # a count of the working must be given, or be the year or quarter the texts name
        (
            "年間で *65万円* です（月額5万円 × 13か月）。",
            "交通費の上限は月額5万円です。",
            "年間で？",
        ),
        # a count glued to a word is no count the asker gives
        ("Each seat costs €100 per month.", "Seats cost €50 per month.", "For the Q2 budget?"),
        ("That makes €100.", "The fee is €50.", "Is it the same for P2 tickets?"),
        # a year the texts count ("3年間") is no year they name
        ("*60万円* です（月額5万円 × 12か月）。", "月額5万円。契約は3年間です。", "?"),
        # the asker's count multiplies; only the working's divides
        ("You get 15 days.", "Leave is 30 days a year.", "Asking for 2 people?"),
        # found by a third review: period words and the claim's other numbers scale nothing
        ("Backups run every 3 months.", "Backups run monthly; a quarterly report sums up.", "?"),
        ("The annual plan costs $1,800.", "Monthly plan: $150. Annual plan: $1,500.", "?"),
        ("Express shipping costs $10 and arrives in 2 days.", "Express: $5, 2 days.", "?"),
        ("Room 12 costs $1,440 per night.", "Room 12: $120 per night.", "?"),
        ("The deposit is CHF 900, the rate CHF 30.", "Rate CHF 30. Deposit CHF 300.", "?"),
        ("The shop opens at 10.45 am.", "The shop opens at 9 am.", "?"),
        ("Přispívá 1 000 Kč měsíčně, tedy 10 000 Kč ročně.", "Příspěvek: 1 000 Kč měsíčně.", "?"),
        ("Det blir **11:30 AM**.", "Kantina serverer lunsj kl. 11.00–13.00.", "?"),
        # a count of time the asker writes multiplies only a rate per its unit (found by
        # reading the change again: minutes times an hourly rate passed)
        ("That comes to $3,600.", "Billed at $40 per hour.", "A session of 90 minutes?"),
        # a count of time the asker writes multiplies amounts only
        ("The notice is 60 days.", "The notice is 30 days.", "Can I leave within 2 weeks?"),
    ],
)
def test_the_working_explains_away_no_slip(claim: str, source: str, question: str) -> None:
    assert restated_flagged(claim, source, question)


# (claim, source, question): calculations written out, as the drafting prompt asks for a
# figure worked out from given ones: sums, differences, quotients, shares, running
# calculations, rounding to the digits written, a time of day plus a duration
CALCULATED = [
    ("Zusammen: 14 € + 14 € + 28 € = 56 €.", "28 € pro Tag, 14 € am An- und Abreisetag.", "?"),
    ("Soit 600 € ÷ 12 = 50 € par mois.", "Forfait : jusqu'à 600 € par an.", "?"),
    # a rate given per its unit of time before the amount
    (
        "Дежурства: 2 недели × 8 000 ₽ = 16 000 ₽.",
        "За каждую неделю дежурства — 8 000 ₽.",
        "Я дежурил 2 недели.",
    ),
    # a result, a word or two, then its working in parentheses
    ("Le total TTC est de 432 € au maximum (360 € × 1,2).", "TVA : 20 %.", "Devis : 360 € HT."),
    # a list of calculations: a line's dash is no minus of the line before
    (
        "- 3 × 12 500 zł = 37 500 zł\n- 15% z 37 500 zł = 5 625 zł",
        "Premia wynosi do 15% wynagrodzenia za kwartał.",
        "Zarabiam 12 500 zł miesięcznie.",
    ),
    # a running calculation that goes on after a comma, from its last result
    ("35 × $24 = $840 per month, × 12 = $10,080 per year.", "Pro: $24 per user per month.", "35?"),
    ("Cada paga: 35.000 € / 14 = 2.500 €.", "El salario se reparte en 14 pagas.", "35.000 €?"),
    ("Dus 600 € : 4 = 150 €.", "Budget: 600 € per kwartaal.", "?"),
    ("Ida y vuelta: 2 × 72 km = 144 km × 0,26 € = 37,44 €.", "0,26 € por km.", "72 km de ida"),
    (
        "Es bleiben 20.000 km − 19.800 km = 200 km.",
        "3,81 kr. für die ersten 20.000 km.",
        "19.800 km",
    ),
    ("Per day: €600 ÷ 7 ≈ €85.71.", "The allowance is €600 a week.", "?"),
    ("Tolerance: 100 % − 99,9 % = 0,1 %.", "SLA: 99,9 % par mois.", "?"),
    ("İndirim 40.000 TL × %18 = 7.200 TL olur.", "Bayi indirimi %18'dir.", "40.000 TL?"),
    ("TVA : 13 824 € × 0,20 = 2 764,80 €.", "TVA 20 % sur les prestations.", "13 824 € HT ?"),
    ("VAT: £1,450 × 0.20 = £290.", "UK customers pay VAT at 20%.", "£1,450 a year?"),  # 00:20
    # a percentage "of" an amount, and the working after its result, in parentheses
    (
        "3 × 180 000 ₽ = 540 000 ₽; 15 % от 540 000 ₽ = 81 000 ₽.",
        "Премия — 15 % от окладов за квартал.",
        "Оклад 180 000 ₽?",
    ),
    ("VAT to 460 zł (2 000 zł × 0,23).", "Stawka VAT 23 %.", "Cena 2 000 zł netto?"),
    ("VAT to 460 zł (2 000 × 23 %), razem 2 460 zł.", "Stawka VAT 23 %.", "2 000 zł netto?"),
    ("8万元 × 0.9 = 7.2万元。", "年度合同一次性付款可享9折优惠。", "年费8万元？"),
    # whole days count an amount; Korean and Russian hours and half past
    ("4 días × 53,34 € = 213,36 €.", "Dieta por día completo: 53,34 €.", "Voy 4 días."),
    (
        "3 mois de travail, à 2,5 jours par mois : 3 × 2,5 = 7,5 jours.",
        "2,5 jours ouvrables par mois de travail effectif, soit 30 jours par an.",
        "J'ai commencé le 1er mars. Combien au 31 mai ?",
    ),  # right, in a unit not carried over
    ("8 dní × 150 Kč = 1 200 Kč.", "Za každý celý den 150 Kč.", "Doma jsem byl 8 dní."),
    ("3 hela dagar × 290 kr = 870 kr.", "290 kr för hel dag.", "Tre hela dagar."),
    ("Zbývá 2 h − 45 min = 1 h 15 min.", "Reakce do 2 hodin.", "Zbývá 45 min?"),
    ("21:30 + 4시간 = 01:30입니다.", "P1: 4시간 이내 복구.", "밤 9시 반에 났어요."),
    ("20:00 + 4 ч = 00:00.", "Дежурство с 20:00 до 08:00.", "У него на 4 ч больше?"),
    # the asker's counts of days: after a month's name, and before another CJK count
    ("Voor 12 dagen: 12 × € 2,35 = € 28,20.", "€ 2,35 per dag.", "In maart 12 dagen gewerkt."),
    ("4天共 150元 × 4天 = 600元。", "一线城市餐补每天150元。", "去上海出差4天3晚。"),
    ("14.03 + 7 днів = 21.03.", "Оновлення ставляться через 7 днів після виходу.", "Вийшло 14.03."),
    ("Примусово 21.03.", "Оновлення ставляться через 7 днів після виходу.", "Вийшло 14.03."),
    ("85折：1,000元 × 0.85 = 850元。", "老客户85折。", "1,000元？"),
    ("2割引で 5,000円 × 0.8 = 4,000円です。", "会員は2割引です。", "5,000円の場合は？"),
    ("Feriepenger: 620 000 kr × 0,12 = 74 400 kr.", "Feriepenger er 12 %.", "620 000 kr?"),
    ("Bayi indirimi %18, yani 18% az.", "Bayi indirimi 18 %.", "?"),
    ("Per day: €600 ÷ 7 ≈ €86.", "The allowance is €600 a week.", "?"),
    ("First update by 14:10 + 15 min = 14:25 UTC.", "First update within 15 minutes.", "At 14:10?"),
    ("This week: €250 + 2 × €50 = €350.", "€250 per week plus €50 per incident.", "2 incidents"),
    ("$29 × 120 × 12 = $41,760 − 10% = $37,584 a year.", "Team: $29. Discount: 10%.", "120?"),
    ("L'employeur paie 60 % × 190 € = 114 €.", "Financés à 60 % par l'employeur.", "190 € ?"),
    ("日当は2,500円 × 3日 = 7,500円です。", "日当は1日あたり2,500円です。", "2泊3日"),
    ("자가 차량은 300원 × 240km = 72,000원입니다.", "km당 300원을 지급합니다.", "왕복 240km"),
    ("32 ore ÷ 8 ore = 4.", "Orario standard: 8 ore giornaliere.", "32 ore di ROL?"),
    # given numbers alone: the result may carry a unit
    ("32 ÷ 8 = *4 giorni*.", "Orario standard: 8 ore giornaliere.", "32 ore di ROL?"),
    ("Zostały 4 − 1 = *3 dni*.", "4 dni urlopu na żądanie w roku.", "1 wykorzystałem."),
    ("30 ÷ 5 × 4 = 24 Urlaubstage.", "5-Tage-Woche: 30 Urlaubstage.", "Ich arbeite 4 Tage."),
    ("Anteilig 30 × 4/5 = 24 Tage.", "5-Tage-Woche: 30 Urlaubstage.", "Ich arbeite 4 Tage."),
    ("Premia: 210 000 zł − 150 000 zł = 60 000 zł.", "Próg: 150 000 zł.", "Mam 210 000 zł."),
    # numbers the calendar gives, and a lone digit worked out before
    ("25 ÷ 5 = **5 veckor**.", "Alla anställda har 25 semesterdagar per år.", "?"),
    ("200 ÷ 25 = 8, so 160 ÷ 8 = 20 dagen.", "200 uur per jaar (25 dagen).", "160 uur?"),
    # found by a blind review: forms a model writes
    ("Teil 2 – 30 Urlaubstage × 4/5 = 24 Urlaubstage.", "5-Tage-Woche: 30 Urlaubstage.", "4?"),
    ("日割りは600円÷7≒86円です。", "在宅手当は週600円です。", "1日あたりは？"),
    ("合计14元+14元+28元=56元。", "餐补：28元；出发和返回日14元。", "?"),
    ("CHF 14 + CHF 14 + CHF 28 = CHF 56.", "CHF 28 pro Tag, CHF 14 pro Reisetag.", "?"),
    ("€150 + €150 = €300, and €300 ÷ €1,200 = 25%.", "Each pays €150 of €1,200.", "?"),
    ("About 50 h ÷ 7 ≈ 7,1 h a day.", "The budget is 50 h a week.", "?"),
    ("From 10:30 − 9:00 = 90 min.", "Check-in 9:00, boarding 10:30.", "?"),
    ("Open 9:00 – 17:00 = 8 h.", "Opening hours: 9:00 to 17:00.", "?"),
    ("$29 × 120 × 12 ≈ $41.8k a year.", "Team: $29 per user per month.", "120 seats?"),
    # dates counted by days, weeks or months; what the calendar gives
    ("Nästa: 2 maj 2025 + 3 × 7 dagar = *23 maj 2025*.", "Sprint: 7 dagar.", "2 maj 2025?"),
    (
        "次は6月5日 + 14日（2週間）= *2025年6月19日*です。",
        "リリースは2週間ごと。",
        "6月5日でした。",
    ),
    ("11월 3일 + 7일 = **11월 10일**까지예요.", "복귀 후 7일 이내.", "11월 3일에 복귀했어요."),
    ("Scade: 31 dicembre 2024 + 18 mesi = 30 giugno 2026.", "Entro 18 mesi.", "31 dicembre 2024?"),
    ("Erinnerung: 1. Juni − 14 Tage = 18. Mai.", "14 Tage vorher.", "Ablauf am 1. Juni?"),
    ("Zweites Update: 14:40 + 1 Stunde = 15:40.", "Updates stündlich.", "Erstes um 14:40."),
    ("400日 − 365日 = 35日です。", "監査ログは400日保存。1年は365日。", "?"),
    ("Nachtschicht: 22:00 – 06:00 = 8 h.", "Nachtschicht von 22:00 bis 06:00.", "?"),
    ("2 x €180 = €360.", "Hotels: up to €180 a night.", "Two nights?"),
    ("Sur 20 jours : 20 × 9,50 € = 190 €.", "9,50 € par jour travaillé.", "20 jours ?"),
    ("Al mese: 4.000 GB × 0,023 $ = 92 $.", "Storage: 0,023 $ per GB al mese.", "4 TB?"),
    ("Zostały 4 − 1 = *3 dni*.", "4 dni urlopu na żądanie.", "Jeden wykorzystałem."),
    ("64 ÷ 4 = *16 台*。", "集群共有 64 台机器。", "四分之一？"),
    # a given percentage as a factor; a list of times or dates stepping by a given duration
    ("2.160 € × 0,9 = 1.944 € pro Monat.", "Jahresvorauszahlung: 10 % Rabatt.", "2.160 €?"),
    ("97 200 Kč × 1,21 = 117 612 Kč.", "DPH 21 %.", "Cena 97 200 Kč?"),
    ("1.5 × 3,500円 = 5,250円", "休日は50%増し。", "時給3,500円"),
    ("Updates at 08:22, 08:42 and 09:02.", "Then every 20 minutes.", "First one at 08:22?"),
    ("Releases: 20 January, 3 February, 17 February.", "Every 2 weeks.", "Last: 6 January?"),
    (
        "First response by 14:25, then every 30 minutes: 14:55, 15:25.",
        "First response within 20 minutes, then updates every 30 minutes.",
        "Declared at 14:05.",
    ),
    # bare numbers carrying the unit a given operand is in; the calendar's numbers alone
    (
        "26 ÷ 12 × 6 = 13 giorni.",
        "Le ferie sono 26 giorni all'anno, in ratei di 1/12.",
        "?",
    ),
    ("30 ÷ 12 × 6 = 15 Tage.", "Jahresurlaub von 30 Tagen.", "Sechs Monate?"),
    ("Рік: 365 × 24 = 8 760 годин.", "Доступність 99,9 % на рік.", "?"),
    ("Rok: 365 × 24 × 60 = 525 600 minut.", "Dostępność 99,99 % w skali roku.", "?"),
    (
        "100 % − 99,9 % = 0,1 %; 0,1 % × 8 760 год = 8,76 год.",
        "Доступність 99,9 % на рік. Рік — 8 760 годин.",
        "?",
    ),
    # a time converted by the difference of two offsets the texts or the answer give
    (
        "Новосибирск в UTC+7: 20:00 + 4 ч = 00:00.",
        "Дежурство с 20:00 до 08:00 по московскому времени (UTC+3).",
        "?",
    ),
    ("北京时间为UTC+8：02:00 + 8小时 = 10:00。", "发布窗口为每周二 UTC 02:00–04:00。", "?"),
    # a result's number as a later step's operand; a figure given in another unit; a week
    (
        "100 % − 99,9 % = 0,1 % ; mois de 30 jours : 30 × 24 × 60 = 43 200 minutes, "
        "et 43 200 × 0,1 % = 43,2 minutes.",
        "Le SLA de disponibilité est de 99,9 % par mois.",
        "?",
    ),
    ("Son 23 ÷ 5 = 4,6 semanas.", "Tienes 23 días laborables de vacaciones.", "¿En semanas?"),
    # rates per hour in the accusative, after "za" and "за"
    ("Celkem 5 × 16 h = 80 h × 35 Kč = 2 800 Kč.", "35 Kč za hodinu, 16 hodin denně.", "?"),
    ("Итого 6 ч × 500 ₽ = 3 000 ₽.", "Дежурство оплачивается 500 ₽ за час.", "Я дежурил 6 часов."),
    ("2 maj 2025 + 3 × 7 dagar = 23 maj 2025.", "Releaser görs var tredje vecka.", "2 maj 2025?"),
    (  # a day and month written with dots, after a weekday
        "Dienstag, 14.10., 14:00 UTC − 48 Stunden = Sonntag, 12.10., 14:00 UTC.",
        "Code freeze starts 48 hours before the cut.",
        "Der Branch 2025.41 wird am Dienstag, 14.10., um 14:00 UTC geschnitten.",
    ),
    (
        "Berlin ist UTC+1: 17:00 − 1 Stunde = 16:00.",
        "Der Call ist um 17:00 Kyjiwer Zeit (im Winter UTC+2).",
        "?",
    ),
]
# ... and the same calculations with a slip: wrong arithmetic, rounding too far, an operand
# nothing gives, bare counts for a figure with a unit
MISCALCULATED = [
    # a result before its working is no remainder (a blind review's slip)
    (
        "You'd have €1,879 left over (€899 + €240 + €740).",
        "Conference budget: €2,500 a year.",
        "Ticket €899, flight €240, hotel €740. How much is left?",
    ),
    (
        "Дежурства: 2 недели × 8 000 ₽ = 112 000 ₽.",
        "За каждую неделю дежурства — 8 000 ₽.",
        "Я дежурил 2 недели.",
    ),
    ("35 × $24 = $840 per month, × 12 = $10,800 per year.", "Pro: $24 per user per month.", "35?"),
    # a running calculation goes on after a comma only in the calendar's ratio of the
    # periods it names (a blind review's slips)
    ("3 × 500 € = 1.500 € pro Quartal, × 12 = 18.000 € im Jahr.", "500 € pro Monat.", "3?"),
    ("20 × $24 = $480 per month, × 52 = $24,960 per year.", "Pro: $24 per user per month.", "20?"),
    ("Celkem 5 × 16 h = 80 h × 35 Kč = 2 900 Kč.", "35 Kč za hodinu, 16 hodin denně.", "?"),
    ("Итого 6 ч × 500 ₽ = 3 500 ₽.", "Дежурство оплачивается 500 ₽ за час.", "Я дежурил 6 часов."),
    ("Da marzo a dicembre: 2.800 € × 10/12 = 2.433,33 €.", "Il premio annuo è di 2.800 €.", "?"),
    ("Da marzo a dicembre: 2.800 € × 14/12 = 3.266,67 €.", "Il premio annuo è di 2.800 €.", "?"),
    (
        "1 299 zł + 849 zł = 2 148 zł, więc zabraknie 158 zł.",
        "Budżet na sprzęt: 2 000 zł.",
        "Laptop za 1 299 zł i monitor za 849 zł?",
    ),
    ("Son 23 ÷ 5 = 4,8 semanas.", "Tienes 23 días laborables de vacaciones.", "¿En semanas?"),
    ("2 maj 2025 + 3 × 7 dagar = 24 maj 2025.", "Releaser görs var tredje vecka.", "2 maj 2025?"),
    ("2 maj 2025 + 3 × 8 dagar = 26 maj 2025.", "Releaser görs var tredje vecka.", "2 maj 2025?"),
    (
        "Dienstag, 14.10., 14:00 UTC − 48 Stunden = Montag, 13.10., 14:00 UTC.",
        "Code freeze starts 48 hours before the cut.",
        "Der Branch 2025.41 wird am Dienstag, 14.10., um 14:00 UTC geschnitten.",
    ),
    ("26 ÷ 12 × 6 = 13 ore.", "Le ferie sono 26 giorni all'anno, in ratei di 1/12.", "?"),
    ("26 ÷ 12 × 6 = 14 giorni.", "Le ferie sono 26 giorni all'anno, in ratei di 1/12.", "?"),
    ("Рік: 365 × 24 = 8 700 годин.", "Доступність 99,9 % на рік.", "?"),
    ("Rok: 12 × 30 = 360 dni.", "Dostępność 99,99 % w skali roku.", "?"),  # no calendar span
    (
        "Новосибирск в UTC+7: 20:00 + 5 ч = 01:00.",
        "Дежурство с 20:00 до 08:00 по московскому времени (UTC+3).",
        "?",
    ),
    (  # the right difference, the wrong way: 17:00 at UTC+2 is 16:00 at UTC+1
        "Berlin ist UTC+1: 17:00 + 1 Stunde = 18:00.",
        "Der Call ist um 17:00 Kyjiwer Zeit (im Winter UTC+2).",
        "?",
    ),
    ("Zusammen: 14 € + 14 € + 28 € = 66 €.", "28 € pro Tag, 14 € am An- und Abreisetag.", "?"),
    ("Zusammen: 14 € + 16 € + 28 € = 58 €.", "28 € pro Tag, 14 € am An- und Abreisetag.", "?"),
    ("Soit 600 € ÷ 12 = 60 € par mois.", "Forfait : jusqu'à 600 € par an.", "?"),
    ("Soit 720 € ÷ 12 = 60 € par mois.", "Forfait : jusqu'à 600 € par an.", "?"),
    ("Ida y vuelta: 2 × 72 km = 144 km × 0,29 € = 41,76 €.", "0,26 € por km.", "72 km de ida"),
    ("Ida y vuelta: 2 × 72 km = 154 km × 0,26 € = 40,04 €.", "0,26 € por km.", "72 km de ida"),
    ("Per day: €600 ÷ 7 ≈ €84.", "The allowance is €600 a week.", "?"),
    ("Per day: €600 ÷ 7 ≈ €90.", "The allowance is €600 a week.", "?"),
    ("First update by 14:10 + 15 min = 14:35 UTC.", "First update within 15 minutes.", "At 14:10?"),
    ("First update by 14:10 + 25 min = 14:35 UTC.", "First update within 15 minutes.", "At 14:10?"),
    ("$29 × 120 × 12 = $41,760 − 15% = $35,496 a year.", "Team: $29. Discount: 10%.", "120?"),
    ("Shifts: 3 × 8 = 24 hours.", "A shift lasts 6 hours.", "?"),
    ("3 × 20 ms = 60 seconds.", "Retry after 20 ms.", "?"),
    ("14:10 + 14:25 = 04:35.", "First update within 15 minutes.", "At 14:10?"),  # no sum
    ("Per person: €12 ÷ 5 = €2.", "The taxi costs €12.", "?"),  # 2.4 is not 2
    # a bare count nothing gives, among numbers: the result may not carry a unit
    ("Zostało 6 − 1 = *5 dni*.", "4 dni urlopu na żądanie w roku.", "Jeden wykorzystałem."),
    ("30 ÷ 8 × 4 = 15 Urlaubstage.", "5-Tage-Woche: 30 Urlaubstage.", "Ich arbeite 4 Tage."),
    ("200 ÷ 25 = 9, so 160 ÷ 8 = 20 dagen.", "200 uur per jaar (25 dagen).", "160 uur?"),
    # found by a blind review: bare digits, units that differ, digits written, time ranges
    ("Strecke: 9 + 9 + 6 = 24 km.", "Die Strecke ist 18 km lang.", "?"),
    ("45 mi + 12 km + 8 km = 65 km.", "Legs: 45 mi, 12 km and 8 km.", "?"),
    ("120 kg + 30 km + 50 km = 200 km.", "Load 120 kg; legs of 30 km and 50 km.", "?"),
    ("€14 + €14 + €28 = $56.", "€28 a day, €14 on travel days.", "?"),
    ("Per day: €600 ÷ 7 = €86.00.", "The allowance is €600 a week.", "?"),
    ("Per day: €600 ÷ 7 = €85.70.", "The allowance is €600 a week.", "?"),
    ("3 × €19.99 = €60.", "A seat costs €19.99.", "?"),
    ("14 € + 14 € + 28 € = 56 € − 10 % = 50 €.", "28 € am Tag, 14 € am Reisetag, 10 % Abzug.", "?"),
    ("Offen von 9:00 – 17:00 = 16 h.", "Geöffnet 9:00 bis 17:00.", "?"),
    ("09:00 – 11:00 = 22 h.", "Workshop 09:00 to 11:00.", "?"),
    ("Total : 1 200 € + 200 € + 200 € = 600 €.", "Plafond : 200 € et 1 200 €.", "?"),
    ("€600 ÷ 120/100 = €500.", "The allowance is €600.", "?"),
    ("Nästa: 2 maj 2025 + 3 × 7 dagar = *24 maj 2025*.", "Sprint: 7 dagar.", "2 maj 2025?"),
    # found by a second blind review: the calendar's numbers, a list's number, days, units
    ("Die Kündigungsfrist beträgt 12 × 5 = 60 Tage.", "Kündigungsfrist: 30 Tage.", "?"),
    ("Die Frist beträgt 30 + 12 = 42 Tage.", "Kündigungsfrist: 30 Tage.", "?"),
    ("SLA: 100 − 1 = 99 %.", "SLA: 99,9 %.", "?"),
    ("Die Gebühr beträgt 12 × 100 = 1.200 €.", "Die Gebühr beträgt 1.000 €.", "?"),
    ("Strecke: 12 km + 12 km = 24 km.", "Die Strecke ist 18 km lang.", "?"),
    ("Zweites Update: 14:40 + 1 Stunde = 15:40.", "Updates alle 2 Stunden.", "Um 14:40?"),
    ("Erinnerung: 1. Juni − 1 Woche = 25. Mai.", "Erinnerung 14 Tage vorher.", "1. Juni?"),
    ("500 € + 100 % = 1.000 €.", "Zuschlag 50 % auf 500 €.", "?"),
    ("€250 + 3 × €45 = €135.", "On-call €250 a week plus €45 per incident.", "?"),
    ("€10 + €120 + €80 + €45 = €245.", "Fees: €10, €120, €80 and €45.", "?"),
    ("Total: 3 × €180 × 2 = €360.", "Hotels: €180 a night.", "?"),
    ("11월 3일 + 8일 = 11월 11일.", "복귀 후 7일 이내.", "11월 3일에 복귀했어요."),
    ("Erinnerung: 1. Juni − 13 = 19. Mai.", "Erinnerung 14 Tage vorher.", "1. Juni?"),
    ("600 € ÷ 12 = 50 $.", "Forfait : 600 € par an.", "?"),
    ("2 × €180 = $360.", "Hotels: up to €180 a night.", "?"),
    ("2 × €14 + $28 = $56.", "€14 on travel days, $28 abroad.", "?"),
    ("500 MB × €0.10 = €50.", "Storage: €0.10 per GB.", "We store 500 MB."),
    ("€300 ÷ €1,200 = 0.25%.", "Each pays €300 of €1,200.", "?"),
    ("€1,200 ÷ €300 = €4.", "Each pays €300 of €1,200.", "?"),
    ("6月5日 + 14日 = 2019年6月19日。", "2週間ごと（14日）。", "6月5日でした。"),
    ("2.160 € × 0,85 = 1.836 €.", "Jahresvorauszahlung: 10 % Rabatt.", "2.160 €?"),
    ("Updates at 08:22, 08:45 and 09:02.", "Then every 20 minutes.", "First one at 08:22?"),
    ("Releases: 20 January, 3 February, 18 February.", "Every 2 weeks.", "Last: 6 January?"),
    ("11월 3일 + 7일 = **11월 11일**까지예요.", "복귀 후 7일 이내.", "11월 3일에 복귀했어요."),
    ("Scade: 31 dicembre 2024 + 18 mesi = 31 luglio 2026.", "Entro 18 mesi.", "31 dicembre 2024?"),
    ("Scade: 30 dicembre 2024 + 18 mesi = 30 giugno 2026.", "Entro 18 mesi.", "?"),
    ("Tolerance: 100 % − 99,9 % = 0,2 %.", "SLA: 99,9 % par mois.", "?"),
    # a percentage as a decimal: only a given one, and the arithmetic holds
    ("8万元 × 0.8 = 6.4万元。", "年度合同一次性付款可享9折优惠。", "年费8万元？"),
    ("4 días × 53,34 € = 223,36 €.", "Dieta por día completo: 53,34 €.", "Voy 4 días."),
    (
        "3 mois de travail, à 2,5 jours par mois : 3 × 2,5 = 8,5 jours.",
        "2,5 jours ouvrables par mois de travail effectif, soit 30 jours par an.",
        "J'ai commencé le 1er mars. Combien au 31 mai ?",
    ),
    ("5 días × 53,34 € = 266,70 €.", "Dieta por día completo: 53,34 €.", "Voy 4 días."),
    ("3 hela dagar × 290 kr = 880 kr.", "290 kr för hel dag.", "Tre hela dagar."),
    ("Zbývá 2 h − 45 min = 1 h 25 min.", "Reakce do 2 hodin.", "Zbývá 45 min?"),
    ("21:30 + 4시간 = 02:30입니다.", "P1: 4시간 이내 복구.", "밤 9시 반에 났어요."),
    ("20:00 + 4 ч = 01:00.", "Дежурство с 20:00 до 08:00.", "У него на 4 ч больше?"),
    ("Voor 13 dagen: 13 × € 2,35 = € 30,55.", "€ 2,35 per dag.", "In maart 12 dagen gewerkt."),
    ("5天共 150元 × 5天 = 750元。", "一线城市餐补每天150元。", "去上海出差4天3晚。"),
    ("14.03 + 7 днів = 22.03.", "Оновлення ставляться через 7 днів після виходу.", "Вийшло 14.03."),
    ("Примусово 22.03.", "Оновлення ставляться через 7 днів після виходу.", "Вийшло 14.03."),
    ("2割引で 5,000円 × 0.7 = 3,500円です。", "会員は2割引です。", "5,000円の場合は？"),
    ("TVA : 13 824 € × 0,25 = 3 456 €.", "TVA 20 % sur les prestations.", "13 824 € HT ?"),
    ("VAT: £1,450 × 0.20 = £300.", "UK customers pay VAT at 20%.", "£1,450 a year?"),
    (
        "3 × 180 000 ₽ = 540 000 ₽; 15 % от 540 000 ₽ = 91 000 ₽.",
        "Премия — 15 % от окладов за квартал.",
        "Оклад 180 000 ₽?",
    ),
    ("VAT to 470 zł (2 000 zł × 0,23).", "Stawka VAT 23 %.", "Cena 2 000 zł netto?"),
    ("VAT to 500 zł (2 000 zł × 0,25).", "Stawka VAT 23 %.", "Cena 2 000 zł netto?"),
    ("TVA : 13 824 € × 0,20 = 2 864,80 €.", "TVA 20 % sur les prestations.", "13 824 € HT ?"),
    ("TVA : 13 824 € × 2,0 = 27 648 €.", "TVA 20 % sur les prestations.", "13 824 € HT ?"),
    # the whole, 100 %, with shares nothing gives, or as a share itself
    ("SLA: 100 % − 1 % = 99 %.", "SLA: 99,9 % par mois.", "?"),
    ("Total: 100 % + 100 % = 200 %.", "Zuschlag 50 % auf 500 €.", "?"),
    ("Zuschlag: 50 % + 100 % = 150 %.", "Zuschlag 50 % auf 500 €.", "?"),
    ("Preis: 500 € × 100 % = 1.000 €.", "Zuschlag 50 % auf 500 €.", "?"),
    ("Tolerance: 100 % = 0,1 %.", "SLA: 99,9 % par mois.", "?"),
    ("Zweites Update: 14:40 + 2 Stunden = 16:40.", "Updates stündlich.", "Erstes um 14:40."),
    ("Premia: 210 000 zł − 150 000 zł = 50 000 zł.", "Próg: 150 000 zł.", "Mam 210 000 zł."),
]


@pytest.mark.parametrize(("claim", "source", "question"), CALCULATED)
def test_a_calculation_shown_with_given_figures_passes(
    claim: str, source: str, question: str
) -> None:
    assert not restated_flagged(claim, source, question)


@pytest.mark.parametrize(("claim", "source", "question"), MISCALCULATED)
def test_a_calculation_explains_away_no_slip(claim: str, source: str, question: str) -> None:
    assert restated_flagged(claim, source, question)


# (claim, source, question): a step on from results the answer shows, with a percentage
# the claim writes, or two results summed
CONTINUED = [
    (
        "List is $29 × 120 × 12 = $41,760 a year; minus 10% that's $37,584 per year.",
        "Team plan: $29 per user per month. Annual billing: 10% off.",
        "Quote for 120 users, billed annually?",
    ),
    (
        "Hotel: 2 × 180 € = 360 €; Bahn: 2 × 65 € = 130 €. Zusammen 490 €.",
        "Hotel bis 180 € pro Nacht. Bahn: 65 € je Fahrt.",
        "Zwei Nächte, Hin- und Rückfahrt.",
    ),
]

# The same forms, slipped: a given figure the claim does not write, a double count, what a
# budget leaves (a step a model gets wrong too often to read: a blind review's slips)
CONTINUED_SLIPS = [
    (
        "Hotel: 3 × 150 € = 450 €, für zwei Personen also 900 €.",
        "Hotel: 150 € pro Nacht und Person.",
        "Drei Nächte, wir sind zu zweit.",
    ),
    (
        "Razem to 2 148 zł (1 299 zł + 849 zł), a budżet wynosi 2 000 zł, więc 148 zł zostanie.",
        "Na sprzęt przysługuje jednorazowo 2 000 zł brutto.",
        "Monitor za 1 299 zł i krzesło za 849 zł. Zmieszczę się?",
    ),
    (
        "Sessions: 3 h + 1.5 h = 4.5 h. That leaves 2.5 h of the 8 h day.",
        "Onboarding day: 8 h. Security training 3 h, HR intro 1.5 h, lab 2 h.",
        "How much of the day is left after training and intro?",
    ),
    (
        "Kostnader: 12 000 kr + 8 500 kr = 20 500 kr. Med hotellet på 8 500 kr blir det 29 000 kr.",
        "Budget 50 000 kr. Konferensavgift 12 000 kr, hotell 8 500 kr.",
        "Vad kostar konferensen totalt?",
    ),
    (
        "Razem to 2 148 zł (1 299 zł + 849 zł), a budżet wynosi 2 000 zł, więc 248 zł zabraknie.",
        "Na sprzęt przysługuje jednorazowo 2 000 zł brutto.",
        "Monitor za 1 299 zł i krzesło za 849 zł. Zmieszczę się?",
    ),
]


@pytest.mark.parametrize(("claim", "source", "question"), CONTINUED)
def test_a_step_on_from_a_shown_result_passes(claim: str, source: str, question: str) -> None:
    assert not restated_flagged(claim, source, question)


@pytest.mark.parametrize(("claim", "source", "question"), CONTINUED_SLIPS)
def test_a_step_on_from_a_shown_result_explains_away_no_slip(
    claim: str, source: str, question: str
) -> None:
    assert restated_flagged(claim, source, question)


def test_a_time_is_converted_from_the_offset_written_beside_it() -> None:
    """A message giving both zones: 17:00 is at UTC+2 (the offset beside it), so Berlin's
    UTC+1 is an hour earlier; an hour later is the wrong way, though +1 and +2 are both
    given (every offset of the text was the time's until a review found it)."""
    source = "Der Call findet jeden Dienstag statt."
    question = "Der Call ist um 17:00 Kyjiwer Zeit (UTC+2). Wie spät ist das in Berlin (UTC+1)?"
    assert not restated_flagged("17:00 − 1 Stunde = 16:00 in Berlin.", source, question)
    assert restated_flagged("17:00 + 1 Stunde = 18:00 in Berlin.", source, question)


def test_a_time_written_after_v_is_a_time_not_a_version() -> None:
    """Czech "v 9:00" is at nine: the end of a meeting the question starts at 9:00 is
    read from it (as "version 9" it was lost)."""
    question = "Schůzka začíná v 9:00. Kdy skončí?"
    assert not restated_flagged("Skončí v 10:30.", "Schůzky trvají 90 minut.", question)
    assert restated_flagged("Skončí v 11:00.", "Schůzky trvají 90 minut.", question)


def test_a_result_the_answer_works_out_may_be_used_by_a_later_claim() -> None:
    """The distance worked out in one sentence is an operand of the next sentence's claim;
    a distance the answer states without working, or works out wrong, is not."""
    source = "Für Fahrten mit dem Privat-Pkw gilt eine Pauschale von 0,30 € pro Kilometer."

    def flagged(first: str, claim: str = "380 km × 0,30 € = 114 €.") -> bool:
        verdict = verify(
            f"{first} {claim}",
            question="Das sind 190 km einfach. Was bekomme ich?",
            sources=(Source("s1", "Reisen", "https://wiki.example.com/r", source),),
            citations=(Citation("s1", "", source, claim),),
        )
        return "UNSOURCED_FIGURE" in verdict.codes

    assert not flagged("Hin und zurück: 2 × 190 km = 380 km.")
    assert flagged("Hin und zurück sind das 380 km.")
    assert flagged("Hin und zurück: 2 × 195 km = 390 km.", "390 km × 0,30 € = 117 €.")


def test_an_ambiguous_result_holds_only_in_the_reading_that_was_worked_out() -> None:
    """ "1.500 €" worked out as 3 × 500 € is 1,500, not also the 1,50 € it may read as."""
    source = "Die Lizenz kostet 500 €."
    claim = "Die Gebühr beträgt 1,50 € pro Tag."
    verdict = verify(
        f"3 × 500 € = 1.500 €. {claim}",
        question="Drei Lizenzen?",
        sources=(Source("s1", "Preise", "https://wiki.example.com/p", source),),
        citations=(Citation("s1", "", source, claim),),
    )
    assert "UNSOURCED_FIGURE" in verdict.codes


def test_the_feedback_quotes_the_claim_with_an_unsourced_figure() -> None:
    source = "Übernachtungskosten werden bis 180 € pro Nacht erstattet."
    claim = "Für zwei Nächte sind das bis 380 €."
    verdict = verify(
        f"Gute Reise!\n{claim}",
        question="Zwei Nächte in Hamburg?",
        sources=(Source("s1", "Reisen", "https://wiki.example.com/r", source),),
        citations=(Citation("s1", "", source, claim),),
    )
    [found] = [i for i in verdict.issues if i.code == "UNSOURCED_FIGURE"]
    assert verdict.text[found.start : found.end] == claim
    assert "(line 2: 'Für zwei Nächte sind das bis 380 €.')" in feedback(verdict)
    assert "2 × €180 = €360" in feedback(verdict)  # how to show a figure worked out


def test_a_calculation_in_code_is_working_shown() -> None:
    """Code is not read for figures, but the working in it is shown to the reader: the
    drafting prompt puts aligned columns in code blocks (found by a third review)."""
    source = "Hotels: up to €180 a night."
    claim = "Two nights come to €360."

    def flagged(answer: str) -> bool:
        verdict = verify(
            answer,
            question="Two nights?",
            sources=(Source("s1", "Travel", "https://wiki.example.com/t", source),),
            citations=(Citation("s1", "", source, claim),),
        )
        return "UNSOURCED_FIGURE" in verdict.codes

    assert not flagged(f"2 × €180 = €360. {claim}")
    assert not flagged(f"```\n2 × €180 = €360\n```\n{claim}")
    assert flagged(f"```\n2 × €190 = €380\n```\n{claim}")


# (claim, source, question): a date counted in working days from a given date, weekends
# skipped, in the forms the texts write them; and a day too many
WORKING_DAYS = [
    (
        "Abgabe bis Freitag, 17. Oktober 2025.",
        "Innerhalb von 10 Arbeitstagen.",
        "Zurück am 3. Oktober 2025.",
    ),
    ("期限は10月17日です。", "精算は帰着後10営業日以内。", "10月3日（金）に戻りました。"),
    ("10월 15일(수)까지 신청하세요.", "사용일 3영업일 전까지.", "10월 20일(월)에 쓰려고요."),
    (
        "Do pátku 24. října 2025.",
        "Do 10 pracovních dnů po návratu.",
        "Vrátil jsem se 10. října 2025.",
    ),
]


@pytest.mark.parametrize(("claim", "source", "question"), WORKING_DAYS)
def test_a_date_counted_in_working_days_passes(claim: str, source: str, question: str) -> None:
    assert not restated_flagged(claim, source, question)


@pytest.mark.parametrize(
    ("claim", "source", "question"),
    [
        (
            "Abgabe bis Montag, 20. Oktober 2025.",
            "Innerhalb von 10 Arbeitstagen.",
            "Zurück am 3. Oktober 2025.",
        ),
        ("10월 16일까지 신청하세요.", "사용일 3영업일 전까지.", "10월 20일(월)에 쓰려고요."),
    ],
)
def test_a_date_a_working_day_off_is_flagged(claim: str, source: str, question: str) -> None:
    assert restated_flagged(claim, source, question)


# French times with a spaced "h" are times and durations; a list steps by a period word
POINT = "Le point a lieu à 9 h 30 et dure un quart d'heure."
TIMES = [
    ("Il finit à 9 h 45 : 9 h 30 + 15 min = 9 h 45.", POINT, "?"),
    ("Also 15 Minuten.", "Dauer: eine Viertelstunde.", "?"),
    ("Ça dure 30 minutes.", "Ça dure une demi-heure ; une pause d'un quart d'heure.", "?"),
    ("La fenêtre va de 22 h 00 à 01 h 30.", "Maintenance de 22:00 à 01:30.", "?"),
    ("Ça fait 3 h 30, soit 210 minutes.", "Maintenance de 22:00 à 01:30 (3,5 heures).", "?"),
    ("Updates um 10:15, 11:15 und 12:15.", "Danach stündlich ein Update.", "Erstes um 10:15?"),
]


@pytest.mark.parametrize(("claim", "source", "question"), TIMES)
def test_times_written_with_a_spaced_h_and_hourly_lists_pass(
    claim: str, source: str, question: str
) -> None:
    assert not restated_flagged(claim, source, question)


# (claim, source, question, passes): a given time plus or minus a given duration
TIMES_REACHED = [
    ("Реакция: до 23:35.", "Время реакции — 15 минут.", "P1 пришёл в 23:20.", True),
    ("Reactie: uiterlijk 00:05.", "Reactie binnen 15 minuten.", "Gemeld om 23:50.", True),
    ("Freeze ab 13:00.", "Freeze beginnt 1 Stunde vor dem Cut.", "Cut um 14:00.", True),
    (
        "Реакция до 23:35, затем 00:35, 01:35, 02:35.",
        "Реакция 15 минут, затем каждые 60 минут.",
        "В 23:20.",
        True,
    ),
    ("Реакция: до 23:40.", "Время реакции — 15 минут.", "P1 пришёл в 23:20.", False),
    ("Reactie: uiterlijk 00:15.", "Reactie binnen 15 minuten.", "Gemeld om 23:50.", False),
    ("Freeze ab 12:00.", "Freeze beginnt 1 Stunde vor dem Cut.", "Cut um 14:00.", False),
    # the length of a range of times the texts write, and its parts round midnight
    ("Sie dauert 10 Stunden, 2 davon vor Mitternacht.", "Nachtschicht 22:00–08:00.", "?", True),
    ("Late shift: 8.5 hours.", "Early: 07:00–15:30. Late: 15:00–23:30.", "?", True),
    ("Sie dauert 9 Stunden.", "Nachtschicht 22:00–08:00.", "?", False),
    ("Late shift: 7.5 hours.", "Early: 07:00–15:30. Late: 15:00–23:30.", "?", False),
]


END = "Credits must be requested within 30 days of the end of the affected month."
NOTICE = "2 months' notice, always to the end of a calendar month."
# (claim, source, question, passes): the end of a month the texts name, where they speak of
# a month's end, shifted by days given as days
MONTH_ENDS = [
    ("Request it by 30 June.", END, "Our May uptime was 98.7%.", True),
    (
        "Au plus tard le 15 novembre.",
        "Dans les 15 jours suivant la fin du mois.",
        "En octobre ?",
        True,
    ),
    ("Request it by 31 May + 30 days = 30 June.", END, "Our May uptime was 98.7%.", True),
    # a month's end is no claim: it passed "by 31 March" for 30 days after the end of March
    ("Bis 31.12.2025 einreichen.", "Abgabe zum Monatsende.", "Für Dezember 2025?", False),
    ("Request it by 1 July.", END, "Our May uptime was 98.7%.", False),
    ("Request it by 30 June.", END.replace("the end of the affected month", "it"), "May?", False),
    ("Hasta el 30 de julio de 2026.", NOTICE, "Me avisan el 20 de mayo de 2026.", False),
    (
        "Pay by 14 July 2026.",
        "Payment is due 14 days from the invoice.",
        "The June 2026 one?",
        False,
    ),
    ("Request it by 30 June.", END, "May I ask about the March outage?", False),  # no May
]


SEPTEMBER = "Resturlaub verfällt am 30. September."
# (claim, source, question, passes): a day of a month given, in a year given or worked out
IN_A_YEAR = [
    # a year the question gives is not worked out: days of 2025 may lapse in 2026
    ("Bis 30.09.2025.", SEPTEMBER, "Resturlaub aus 2025?", False),
    ("Op 1 juli van 2024 + 1 = 2025: 1 juli 2025.", "Ze vervallen op 1 juli.", "Uit 2024?", True),
    ("Bis 30.09.2026.", SEPTEMBER, "Resturlaub aus 2025?", False),
    ("Bis 29.09.2025.", SEPTEMBER, "Resturlaub aus 2025?", False),
    ("Op 1 juli van 2024 + 2 = 2025: 1 juli 2025.", "Ze vervallen op 1 juli.", "Uit 2024?", False),
]


REMOTE = "Hasta 3 días por semana; se registran antes del lunes de cada semana."
# (claim, source, question, passes): a cycle's step written without a digit
CYCLES = [
    ("Nästa release: 23 maj 2025.", "Releaser görs var tredje vecka.", "Senast 2 maj 2025.", True),
    ("Tweede update: 14:40 + 1 uur = 15:40.", "Daarna elk uur een update.", "Om 14:40?", True),
    ("次は2025年6月19日です。", "リリースは隔週木曜日です。", "前回は2025年6月5日でした。", True),
    ("Nächster Termin: 17.06.2025.", "Jede zweite Woche.", "Letzter am 03.06.2025?", True),
    ("Nästa release: 24 maj 2025.", "Releaser görs var tredje vecka.", "Senast 2 maj 2025.", False),
    ("Tweede update: 14:40 + 2 uur = 16:40.", "Daarna elk uur een update.", "Om 14:40?", False),
    ("Puedes teletrabajar 4 días por semana.", REMOTE, "¿Cuántos?", False),  # 1 week − 3 days
]


# (claim, source, question, passes): a month of a year, a given number of months or years on
MONTHS_ON = [
    (
        "Te toca en marzo de 2025.",
        "Se renuevan cada 36 meses.",
        "Lo recibí en marzo de 2022.",
        True,
    ),
    ("2026년 9월부터 교체 대상이에요.", "교체 주기는 4년입니다.", "2022년 9월에 받았어요.", True),
    ("Renewal: September 2026.", "Laptops are renewed after 4 years.", "Got it 3 Sept 2022.", True),
    (
        "Te toca en marzo de 2026.",
        "Se renuevan cada 36 meses.",
        "Lo recibí en marzo de 2022.",
        False,
    ),
    (
        "Te toca en abril de 2025.",
        "Se renuevan cada 36 meses.",
        "Lo recibí en marzo de 2022.",
        False,
    ),
    ("2027년 9월부터 교체 대상이에요.", "교체 주기는 4년입니다.", "2022년 9월에 받았어요.", False),
]


HOURS = "Nárok 200 hodin při 40 hodinách týdně, při kratším úvazku poměrně."
# (claim, source, question, passes): the result stated first, its working after, bare
RESULT_FIRST = [
    ("**150 hodin** ročně: 200 × 30/40 = 150.", HOURS, "Pracuji 30 hodin týdně.", True),
    ("Du får *575 kr*: 23 × 25 kr = 575.", "25 kr per mil.", "23 mil i dag.", True),
    ("**160 hodin** ročně: 200 × 30/40 = 150.", HOURS, "Pracuji 30 hodin týdně.", False),
    ("**150 hodin** ročně: 200 × 30/40 = 160.", HOURS, "Pracuji 30 hodin týdně.", False),
    ("**15 Urlaubstage**: 30 ÷ 8 × 4 = 15.", "30 Urlaubstage.", "Ich arbeite 4 Tage.", False),
]


NIGHT = "The night shift runs 22:00–08:00."
# Found by the blind review of stop 36's readings: slips they explained away, and right
# figures they failed
REVIEWED = [
    (
        "Tokens expire after 1 hour.",
        "Tokens expire after 2 hours. Every time you log in…",
        "?",
        False,
    ),
    ("Tokens expire after one week.", "After 30 days. Each week a reminder is sent.", "?", False),
    (
        "Check-in closes at 17:55.",
        "Check-in closes at 17:45. Boarding takes 10 minutes.",
        "?",
        False,
    ),
    ("The night shift is 8 hours long.", NIGHT, "?", False),
    ("The night shift is 10 hours long.", NIGHT, "?", True),
    ("2 weeks × €45 = €90.", "Meals: €45 per day.", "For 2 weeks?", False),
    ("2 weeks × €45 = €630.", "Meals: €45 per day.", "For 2 weeks?", True),
    ("3 days × €120 = €360.", "Consulting: €120 per hour.", "For 3 days?", False),
    ("It ships on 15 March 2027.", "Ships 15 March 2026. v2 until 30 June 2027.", "?", False),
    ("給与は毎月20日です。", "給与は毎月25日に支払われます。", "?", False),
    ("給与は毎月25日です。", "給与は毎月25日に支払われます。", "?", True),
    ("Request it by 31 March.", END, "Our March uptime?", False),
    ("8 × 5 = 40. Give 40 days' notice.", "Notice: 30 days.", "?", False),
    (
        "Support ends on 3 December.",
        "Requires Python 3.12. Support ends on 3 November.",
        "?",
        False,
    ),
    (
        "Ab 4 Tagen: 30 Urlaubstage × 4/5 = 24 Stunden.",
        "30 Urlaubstage. Plus 20 Stunden.",
        "4 Tage?",
        False,
    ),
    ("深夜1時に再起動します。", "Restart at 01:00.", "?", True),
    # the second blind review
    ("Szkolenie trwa 30 minut.", "Szkolenie trwa dwie i pół godziny.", "?", False),
    ("请假需提前一天申请。", "请假需提前三天申请。", "?", False),
    ("Fristen er 10. mai.", "Møtet er kl. 10.05, fristen er 20. mai.", "?", False),
    ("Request it by 30 June.", f"{END} May requests be late? No.", "March outage?", False),
    ("Die Frist: 6 Monate, 4 Wochen.", "Frist: 6 Monate, 2 Wochen.", "?", False),
    ("3日 × 1,200円 = 3,600円です。", "アルバイトの時給は1,200円です。", "3日働いたら？", False),
    ("**150 dní** ročně: 200 × 30/40 = 150.", HOURS, "Pracuji 30 hodin týdně.", False),
    ("100 % Erstattung; 100 % − 50 % = 50 %.", "Erstattung 80 %; Brillen 50 %.", "?", False),
    ("Support ends on 22 April.", "Runs on Ubuntu 22.04. Support ends on 30 April.", "?", False),
    ("Zu zahlen: 100 % + 50 % = 150 %.", "Zuschlag 50 % auf 500 €.", "?", False),  # right, failed
    ("오후 3시 반영됩니다.", "Changes apply at 15:00.", "?", True),
    ("勤務日数は月20日です。", "We work 20 days a month.", "?", True),
    ("п. 3 ч. 1 ст. 81 ТК.", "Статья 81 ТК.", "?", True),
    ("밤 2시에 배포합니다.", "Deploys at 02:00.", "?", True),
    ("밤 12시에 배포합니다.", "Deploys at 00:00.", "?", True),  # midnight, not noon
    ("밤 12시에 배포합니다.", "Deploys at 12:00.", "?", False),
]

# Each reading of stop 36: the right figure passes, the slip beside it is flagged
READINGS = {
    "a time a given duration from a given one": TIMES_REACHED,
    "the end of a month the texts name": MONTH_ENDS,
    "a given day in a given or worked year": IN_A_YEAR,
    "a cycle's step in words, added to nothing": CYCLES,
    "a month of a year a given span on": MONTHS_ON,
    "a result stated before its bare working": RESULT_FIRST,
    "the blind review": REVIEWED,
}


@pytest.mark.parametrize(
    ("claim", "source", "question", "passes"),
    [
        pytest.param(*case, id=f"{reading}-{n}")
        for reading, cases in READINGS.items()
        for n, case in enumerate(cases)
    ],
)
def test_a_reading_passes_its_figure_and_flags_the_slip_beside_it(
    claim: str, source: str, question: str, passes: bool
) -> None:
    assert restated_flagged(claim, source, question) is not passes


def test_a_spaced_h_time_and_an_hourly_list_still_catch_a_slip() -> None:
    assert restated_flagged("Il finit à 9 h 50 : 9 h 30 + 15 min = 9 h 50.", POINT)
    assert restated_flagged("Il finit à 10 h 00.", POINT)
    assert restated_flagged("Also 20 Minuten.", "Dauer: eine Viertelstunde.")
    assert restated_flagged("La fenêtre va de 22 h 00 à 02 h 30.", "Maintenance de 22:00 à 01:30.")
    assert restated_flagged(
        "Updates um 10:15, 11:15 und 12:45.", "Danach stündlich ein Update.", "Erstes um 10:15?"
    )


# found by a third blind review: the spaced "h", lists and working days let slips pass
THIRD_REVIEW_SLIPS = [
    (
        "Vous travaillez 38 h 30 par semaine.",
        "La durée du travail est de 35 heures par semaine.",
        "?",
    ),
    ("Le trajet dure 3 h 15.", "Départ à 3h15, arrivée à 5h00.", "?"),
    (
        "We are closed on 24 December 2025, 25 December 2025 and 31 December 2025.",
        "Closed on 24 December 2025 and 31 December 2025. Replies within 24 hours.",
        "?",
    ),
    ("Reports are due 3 March 2025, 4 March 2025.", "A reminder is sent daily.", "3 March 2025?"),
    (
        "Prices went 4.10, 4.30 and 4.50 per unit.",
        "The price was 4.10; it changes within 20 minutes.",
        "?",
    ),
    (
        "Departures: 07:15, 08:00, 08:45, 09:10.",
        "First bus 07:15, then every 45 minutes; the ride takes 25 minutes.",
        "?",
    ),
    (
        "Backups at 02:00, 08:00, 14:00, 16:00.",
        "Backups start at 02:00 and run every 6 hours.",
        "?",
    ),
    (
        "The request was filed on 2 October 2025.",
        "Filed on 3 October 2025. We answer within 1 business day.",
        "?",
    ),
]


@pytest.mark.parametrize(("claim", "source", "question"), THIRD_REVIEW_SLIPS)
def test_the_third_reviews_slips_are_flagged(claim: str, source: str, question: str) -> None:
    assert restated_flagged(claim, source, question)


@pytest.mark.parametrize(
    ("claim", "source", "question"),
    [
        ("Le forfait 3 h 20 € est le moins cher.", "Forfait 3 h : 20 €. Forfait 5 h : 30 €.", "?"),
        (
            "Backups at 02:00, 08:00, 14:00 and 20:00.",
            "Backups start at 02:00 and run every 6 hours.",
            "?",
        ),
    ],
)
def test_the_third_reviews_correct_answers_pass(claim: str, source: str, question: str) -> None:
    assert not restated_flagged(claim, source, question)


def test_a_list_of_times_may_pass_midnight() -> None:
    """00:00 is a time like any other: its value is 0 seconds, and it steps on."""
    assert not restated_flagged(
        "Checks at 23:00, 00:00 and 01:00.", "Checks run every 60 minutes.", "First at 23:00?"
    )
    assert restated_flagged(
        "Checks at 23:00, 00:00 and 01:30.", "Checks run every 60 minutes.", "First at 23:00?"
    )


def test_a_lone_number_before_an_equals_sign_is_no_calculation_shown_wrong() -> None:
    """ "Punkt 2 = 24 Tage": nothing was worked out, so nothing is refuted; 24 days is the
    sum of two given figures, as it is without the "Punkt 2 =" before it."""
    source = "20 Tage Urlaub plus 4 Tage Sonderurlaub."
    assert not restated_flagged("Insgesamt 24 Tage Urlaub.", source)
    assert not restated_flagged("Punkt 2 = 24 Tage Urlaub insgesamt.", source)


def test_a_claim_read_apart_from_the_answer_is_refuted_by_its_own_calculation() -> None:
    """A cited claim the answer does not hold word for word is read before its figures are
    explained: "3 × €180 × 2 = €360" is wrong whatever "× 2" could scale."""
    source = "Hotels: €180 a night."
    claim = "Total: 3 × €180 × 2 = €360."
    verdict = verify(
        "Three nights for two people: see the page.",
        question="?",
        sources=(Source("s1", "Travel", "https://wiki.example.com/t", source),),
        citations=(Citation("s1", "", source, claim),),
    )
    assert "UNSOURCED_FIGURE" in verdict.codes


@pytest.mark.parametrize(
    ("working", "elsewhere", "source"),
    [
        ("Tolerance: 100 % − 99,9 % = 0,1 %.", "Credits cover 100 %.", "SLA 99,9 %; credit 10 %."),
        ("VAT: 2 000 zł × 0,23 = 460 zł.", "The VAT factor is 0,23.", "VAT 23 %. 2 000 zł net."),
        ("Second: 14:40 + 1 uur = 15:40.", "Tokens last 1 uur.", "First at 14:40, then elk uur."),
    ],
)
def test_what_a_calculation_vouches_for_is_vouched_in_its_own_working_only(
    working: str, elsewhere: str, source: str
) -> None:
    """An operand the working allows (100 % less given shares, a percentage as a factor,
    a cycle's step) passes inside the calculation that holds with it; stated as a claim of
    its own, in another sentence, it is a figure like any other."""
    sources = (Source("s1", "Page", "https://wiki.example.com/p", source),)

    def codes(*claims: str) -> tuple[str, ...]:
        citations = tuple(Citation("s1", "", source, claim) for claim in claims)
        answer = " ".join(claims)
        return verify(answer, question="?", sources=sources, citations=citations).codes

    assert "UNSOURCED_FIGURE" not in codes(working)
    assert "UNSOURCED_FIGURE" in codes(working, elsewhere)
