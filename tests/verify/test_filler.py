"""NO_CONTENT's model of filler sentences: the weights Vouch ships are the ones its
sentences teach, and the rule that reads them stops replies of filler in any of the
languages it was taught, and nothing else.

The drafts here were written for these tests, not taken from the training sentences or the
efficacy sets."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import zlib

import pytest

from app.verify import filler, verify
from bench.filler import WEIGHTS, digest, sentences, train

QUESTION = "How do I get read access to the billing replica?"

FILLER_ONLY = [
    # thanks and a promise to look, in languages the model was taught, each with a question
    # in its language (English ones it misses are in docs/verification.md, "Stop 37")
    (
        "Danke für deine Frage! Ich schaue mir das gleich an und melde mich dann bei dir.",
        "Wie bekomme ich Lesezugriff auf das Replikat?",
    ),
    ("Gute Frage! Ich kümmere mich darum und gebe dir Bescheid.", "Wie bekomme ich Zugriff?"),
    (
        "Merci pour ta question, je regarde ça et je te tiens au courant.",
        "Comment j'obtiens un accès en lecture au réplica ?",
    ),
    (
        "Gracias por tu pregunta, lo reviso y te cuento en un rato.",
        "¿Cómo consigo acceso de lectura a la réplica?",
    ),
    (
        "Grazie per la domanda, ci guardo e ti aggiorno appena posso.",
        "Come ottengo l'accesso in lettura alla replica?",
    ),
    (
        "Goede vraag, ik ga het even voor je uitzoeken en laat het je weten.",
        "Hoe krijg ik leestoegang tot de replica?",
    ),
    (
        "Tack för frågan, jag kollar upp det och hör av mig så fort jag kan.",
        "Hur får jag läsbehörighet till replikan?",
    ),
    ("Dzięki za pytanie! Już to sprawdzam i zaraz dam ci znać.", "Jak dostać dostęp do repliki?"),
    (
        "Спасибо за вопрос! Сейчас посмотрю и вернусь с ответом.",
        "Как получить доступ на чтение к реплике?",
    ),
    (
        "ご質問ありがとうございます！確認してから改めてご連絡しますね。",
        "レプリカの読み取り権限はどうやって申請しますか？",
    ),
    ("谢谢你的提问！我先查一下，稍后回复你。", "怎么申请只读副本的读权限？"),
    ("질문 감사합니다! 확인해 보고 다시 말씀드릴게요.", "복제본 읽기 권한은 어떻게 받나요?"),
]
ANSWERS = [
    # terse: too short for the model to judge, or scored as the answer it is
    "Yes.",
    "Nope, prod only.",
    "Ja, klar.",
    "Tak.",
    "はい。",
    "Ask Dana in the data team.",
    # opens like filler, then answers
    "Thanks for asking! Read access comes through the Data Access request in the IT portal.",
    "Danke für die Frage! Den Lesezugriff beantragst du im IT-Portal unter Datenzugriff.",
    "Bonne question ! Il faut passer par le formulaire d'accès aux données du portail IT.",
    "質問ありがとうございます。ITポータルのデータアクセス申請から読み取り権限を申請できます。",
    # first person, with a finding
    "I checked the runbook: the replica is read-only for the analytics group, so ask to join it.",
    # a fact the lists and the model give nothing for, and a fact with a digit
    "That's handled by the platform team on Tuesdays.",
    "Access requests take 2 days.",
]


@pytest.mark.parametrize(("draft", "question"), FILLER_ONLY)
def test_a_reply_of_filler_alone_has_no_content(draft: str, question: str) -> None:
    verdict = verify(draft, question=question)
    assert "NO_CONTENT" in verdict.codes and not verdict.passed


@pytest.mark.parametrize("draft", ANSWERS)
def test_an_answer_that_looks_like_filler_has_content(draft: str) -> None:
    assert "NO_CONTENT" not in verify(draft, question=QUESTION).codes


# What the first blind review of the model found it failing (stop 37): a choice confirmed
# in a few words, a finding after "I checked", a Korean or Japanese "that's right".
REVIEWED = [
    ("Okay, Berlin then.", "So we're meeting at the Berlin office, right?"),
    ("Gut, dann vor Weihnachten.", "Machen wir die Weihnachtsfeier noch vor den Feiertagen?"),
    ("Dobrze, to po świętach.", "To przed czy po świętach?"),
    ("Sprawdziłem, to proxy.", "Dlaczego nie mogę wejść na wiki z domu?"),
    ("Jeg har tjekket, toneren er tom.", "Hvorfor virker printeren på tredje sal ikke?"),
    ("Посмотрел, это твой роутер.", "Почему сегодня так медленно работает сеть?"),
    ("Kontrol ettim, ağ sorunu.", "Üçüncü kattaki yazıcı neden çalışmıyor?"),
    ("확인해 보니 토너가 떨어졌습니다.", "삼층 프린터가 왜 안 되나요?"),
    ("맞습니다.", "그럼 마감은 여전히 월말인가요?"),
    ("そうですね。", "今週金曜の飲み会で合ってますか？"),
]


# What the second blind review found it failing: advice on what to say or write, and a
# text asked for, are made of courtesy (a message asking for words is the judge's); what
# another person will do; a yes with a wish; "the same for them".
REVIEWED += [
    (
        "Just tell them you're sorry for their loss and that you're there if they need anything.",
        "What should I say to a colleague who lost a parent?",
    ),
    (
        "Remercie-le d'abord pour son retour et montre que tu comprends sa frustration.",
        "Comment commencer la réponse à un client mécontent ?",
    ),
    (
        "Merci pour votre message. Je suis absent et je vous répondrai dès mon retour.",
        "Tu peux me rédiger un message d'absence ?",
    ),
    (
        "메시지 감사합니다. 현재 부재중이며 복귀 후 바로 답변드리겠습니다.",
        "부재중 자동 답장 문구 좀 써 줄 수 있어요?",
    ),
    (
        "Noen fra brukerstøtte ser på den og tar kontakt med deg så snart som mulig.",
        "Hva skjer etter at jeg har sendt inn en sak?",
    ),
    (
        "Tuurlijk, geen probleem! Beterschap en rust goed uit.",
        "Mag ik vandaag eerder weg? Ik voel me niet lekker.",
    ),
    ("Onlar için de aynı, hiçbir şey değişmiyor.", "Peki dış kaynak çalışanlar için?"),
    # found on rereading: a translation asked for is words to send, courtesy or not
    (
        "Gracias por tu pregunta, lo reviso y te cuento en un rato.",
        "Wie heißt das auf Spanisch: Danke für deine Frage, ich prüfe es und melde mich gleich?",
    ),
    (
        "Danke für deine Frage! Ich schaue mir das gleich an und melde mich dann bei dir.",
        "Übersetzt du mir das? Thanks for your question, I'll look at it and get back to you.",
    ),
    # the third: a yes given as an invitation, which takes up the question's words
    ("Reach out anytime, I'm always happy to help.", "Can I reach out to you if I get stuck?"),
    ("Melde dich jederzeit, ich helfe dir gern.", "Darf ich mich bei dir melden, wenn ich hänge?"),
    ("언제든 편하게 연락 주세요. 기꺼이 도와드릴게요.", "막히면 연락드려도 될까요?"),
    (
        "Muy contento, dio las gracias a todo el equipo y quiere seguir adelante.",
        "¿El cliente quedó contento con la demo?",
    ),
]


@pytest.mark.parametrize(("draft", "question"), REVIEWED)
def test_a_short_answer_after_a_word_of_filler_has_content(draft: str, question: str) -> None:
    assert "NO_CONTENT" not in verify(draft, question=question).codes


@pytest.mark.parametrize(
    ("draft", "question"),
    [
        # a reply to thanks or news, which asks nothing: courtesy is the right answer
        ("Glad to hear it works now! Let me know if anything else comes up. 🙂", "Fixed, thanks!"),
        ("Schön, dass es wieder läuft! Melde dich gern, wenn noch was ist.", "Läuft wieder."),
        # a quote or a list is given material: a translation, the steps of a plan
        ("> Thanks for reaching out, I'll look into this and get back to you soon.", QUESTION),
        ("I'll check these next:\n- the replica's grants\n- your group in the directory", QUESTION),
        # a reply to news, thanked for: filler is the answer
        (
            "Great, thanks for letting me know! Happy to help anytime. 🙂",
            "All sorted now, thank you.",
        ),
        # left to the judge: a script the model was not taught, where its score is its bias
        # and the weights of the borrowed words; a sentence that names a technical thing
        ("आपके सवाल के लिए धन्यवाद, मैं इसे देखकर आपको जल्द ही बताता हूँ।", "क्या मुझे एक्सेस मिलेगा?"),
        ("Thanks! मैं check करके आपको बताता हूँ।", "क्या मुझे एक्सेस मिलेगा?"),
        ("Thanks so much! Happy to help with VPN questions anytime.", QUESTION),
        # too short to tell from a terse answer ("Okay, Berlin then.")
        ("Hey! 👋", QUESTION),
        # courtesy alone is a yes
        ("Sure thing!", "Can you keep the answer short?"),
    ],
)
def test_filler_where_it_is_an_answer_or_unjudged_passes(draft: str, question: str) -> None:
    assert "NO_CONTENT" not in verify(draft, question=question).codes


def test_the_shipped_weights_are_learnt_from_the_shipped_sentences() -> None:
    """The file records the digest of the sentences it was learnt from: a change to them
    without `python -m bench.filler --train` fails here."""
    shipped = json.loads(WEIGHTS.read_text("utf-8"))
    assert shipped["sentences"] == digest()


def test_training_gives_the_shipped_weights() -> None:
    """Training is deterministic: the sentences give the shipped weights again (to the
    file's units, give or take one where a sum rounds differently), and the same runs."""
    learnt = train(sentences())
    shipped = filler.model()
    assert learnt.bias == pytest.approx(shipped.bias, abs=2e-4)
    assert sum(1 for unit in shipped.weights if unit) > 80_000
    assert max(abs(a - b) for a, b in zip(learnt.weights, shipped.weights, strict=True)) <= 1
    assert learnt.learnt == shipped.learnt


def test_the_sentences_are_balanced_and_cover_every_language_taught() -> None:
    data = sentences()
    fillers = [s for s in data if s.filler]
    assert len(data) >= 5000 and 0.4 <= len(fillers) / len(data) <= 0.6
    assert {s.label for s in data} == {"filler", "content"}
    taught = {"en", "de", "fr", "es", "pt", "it", "nl", "pl", "sv", "no", "da", "tr", "cs"}
    assert taught | {"sk", "ru", "uk", "ja", "zh", "ko"} <= {s.lang for s in data}


def test_the_model_reads_characters_and_words_not_emoji_or_digit_values() -> None:
    grams = filler.features("Hi 👋 port 8080!")
    assert "<hi>" in grams and "<port>" in grams and "<0000>" in grams
    assert " hi " in grams and not any("👋" in g or "8" in g or "!" in g for g in grams)
    assert filler.features("Hi 👋 port 8080!") == filler.features("hi port 1234")


def test_the_model_is_flat_arrays_hashed_the_same_in_every_process() -> None:
    """The weights are two flat arrays (about 4.3 MB), not a table of 90,000 strings, and a
    feature's bucket does not depend on the process's hash seed: a process started with
    another seed scores a sentence the same."""
    shipped = filler.model()
    assert len(shipped.weights) == 1 << filler.BITS and shipped.weights.itemsize == 2
    assert len(shipped.learnt) * 8 == 1 << filler.BITS
    sentence = "Danke für deine Frage! Ich schaue mir das gleich an."
    child = subprocess.run(
        [sys.executable, "-c", f"from app.verify import filler; print(filler.score({sentence!r}))"],
        env={**os.environ, "PYTHONHASHSEED": "12345"},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert float(child.stdout) == filler.score(sentence) > 1.0


def test_a_sentence_is_scored_by_the_buckets_its_features_are_learnt_in() -> None:
    """`buckets` hashes as training does (`bucket`, `short`), which it inlines."""
    sentence = "Danke für deine Frage! 👋 Ich schaue mir das gleich an (Port 8080)."
    grams = filler.features(sentence)
    hashed, runs = filler.buckets(sentence)
    assert sorted(hashed) == sorted(filler.bucket(g) for g in grams)
    assert sorted(runs) == sorted(filler.bucket(g) for g in grams if filler.short(g))
    assert 0 < len(runs) < len(hashed)


def test_known_counts_the_runs_learnt_and_few_of_a_script_never_taught() -> None:
    assert filler.known("Thanks for your question, I'll look into it.") > 0.95
    assert filler.known("ขอบคุณสำหรับคำถามนะครับ เดี๋ยวผมจะตรวจสอบให้") < 0.1


@pytest.mark.parametrize(
    ("change", "complaint"),
    [({"bits": 20}, "another model"), ({"scale": 1e-4}, "another model")],
)
def test_weights_hashed_another_way_are_refused(change: dict[str, float], complaint: str) -> None:
    raw = {**json.loads(WEIGHTS.read_text("utf-8")), **change}
    with pytest.raises(ValueError, match=complaint):
        filler.unpack(raw)


def test_weights_of_the_wrong_size_are_refused() -> None:
    raw = json.loads(WEIGHTS.read_text("utf-8"))
    cut = base64.b64encode(zlib.compress(bytes(1000))).decode("ascii")
    with pytest.raises(ValueError, match="wrong size"):
        filler.unpack({**raw, "weights": cut})
    with pytest.raises(ValueError, match="wrong size"):
        filler.unpack({**raw, "learnt": cut})
    long = base64.b64encode(zlib.compress(bytes((1 << filler.BITS) // 8 + 1))).decode("ascii")
    with pytest.raises(ValueError, match="wrong size"):
        filler.unpack({**raw, "learnt": long})
