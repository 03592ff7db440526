"""The rules of substance: NO_CONTENT, WRONG_LANGUAGE and UNSOURCED_FIGURE, each with the
look-alikes that must not be flagged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.verify import Citation, Source, verify

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
        ("How do I start the deployment to the staging environment?", GERMAN),
    ],
)
def test_an_answer_in_another_language_is_flagged(question: str, answer: str) -> None:
    assert "WRONG_LANGUAGE" in verify(answer, question=question).codes


def test_english_words_in_a_question_leave_english_to_the_judge() -> None:
    """Precision first: "Deployment" and "Staging" make English plausible for this German
    question, so an English answer to it is left to the judge (which is told to check it)."""
    question = "Wie starte ich das Deployment auf die Staging-Umgebung?"
    assert "WRONG_LANGUAGE" not in verify(ENGLISH, question=question).codes


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
        # a language the detector does not know is not judged by the rule
        ("كيف أنشر خدمة الفواتير على بيئة الاختبار؟", ENGLISH, ()),
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


@settings(max_examples=400, deadline=None)
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
