"""Each rule: texts it must flag, and look-alikes it must not, in the dialects it applies to."""

from __future__ import annotations

import pytest

from app.verify import Citation, Dialect, Source, verify

QUIET = "hi"  # a question with no content words: OFF_TOPIC cannot fire, TOO_SHORT floor only


def found(text: str, dialect: Dialect = "mrkdwn", question: str = QUIET, **kw: object) -> set[str]:
    """Every code a rule raised: the ones repair fixed and the ones that remain."""
    verdict = verify(text, question=question, dialect=dialect, **kw)  # type: ignore[arg-type]
    return set(verdict.repaired) | set(verdict.codes)


FLAGGED: list[tuple[str, Dialect, str]] = [
    # mrkdwn: Markdown constructs
    ("MARKDOWN_BOLD", "mrkdwn", "this is **bold** text"),
    ("MARKDOWN_BOLD", "mrkdwn", "__bold words__ here"),
    ("MARKDOWN_BOLD", "mrkdwn", "***bold italic***"),
    ("MARKDOWN_BOLD", "mrkdwn", "- **Item**: description"),
    ("MARKDOWN_BOLD", "mrkdwn", "C'est **très** bien"),
    ("MARKDOWN_BOLD", "mrkdwn", "日本語の**太字**です"),
    ("MARKDOWN_BOLD", "mrkdwn", "**Run `make test`** first"),
    ("MARKDOWN_BOLD", "mrkdwn", "🚀 **Launch** day 🎉"),
    ("MARKDOWN_LINK", "mrkdwn", "[🔗 docs](https://example.com) :link:"),
    ("MARKDOWN_LINK", "mrkdwn", "see [the docs](https://example.com/docs)"),
    ("MARKDOWN_LINK", "mrkdwn", "[Foo](https://en.wikipedia.org/wiki/Foo_(bar))"),
    ("MARKDOWN_LINK", "mrkdwn", "[`func`](https://example.com/f)"),
    ("MARKDOWN_IMAGE", "mrkdwn", "![diagram](https://example.com/d.png)"),
    ("MARKDOWN_HEADING", "mrkdwn", "# Title"),
    ("MARKDOWN_HEADING", "mrkdwn", "intro\n### Setup steps\nmore"),
    ("MARKDOWN_HEADING", "mrkdwn", "## Überblick"),
    ("MARKDOWN_STRIKE", "mrkdwn", "~~old~~ new"),
    ("MARKDOWN_QUOTE", "mrkdwn", "> > nested quote"),
    ("MARKDOWN_QUOTE", "mrkdwn", ">> nested quote"),
    ("TABLE", "mrkdwn", "| a | b |\n|---|---|\n| 1 | 2 |"),
    ("TABLE", "mrkdwn", "a | b\n--- | :---:\n1 | 2"),
    ("RAW_HTML", "mrkdwn", "<b>bold</b> text"),
    ("RAW_HTML", "mrkdwn", "line<br>break"),
    ("RAW_HTML", "mrkdwn", '<a href="https://example.com">site</a>'),
    ("RAW_HTML", "mrkdwn", "<div class='x'>block</div>"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "salt & pepper"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "if x < y then"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "step one -> step two"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "use Vec<String> here"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "&nbsp; is not a Slack entity"),
    # both dialects
    ("BROADCAST_MENTION", "mrkdwn", "<!here> the build is red"),
    ("BROADCAST_MENTION", "mrkdwn", "ping <!channel> now"),
    ("BROADCAST_MENTION", "mrkdwn", "<!everyone|everyone> look"),
    ("BROADCAST_MENTION", "mrkdwn", "hey @here, please look"),
    ("BROADCAST_MENTION", "mrkdwn", "@Channel heads up"),
    ("BROADCAST_MENTION", "markdown", "telling @everyone."),
    ("BROADCAST_MENTION", "markdown", "<!here>"),
    ("TABLE", "markdown", "| Name | Value |\n| --- | --- |\n| a | 1 |"),
    ("RAW_HTML", "markdown", "<strong>bold</strong>"),
    ("RAW_HTML", "markdown", "a<br/>b"),
    # markdown: mrkdwn constructs and what Slack's Markdown cannot show
    ("MRKDWN_LINK", "markdown", "see <https://example.com|the docs>"),
    ("MRKDWN_LINK", "markdown", "<mailto:a@example.com|mail us>"),
    ("MRKDWN_BOLD", "markdown", "*Note:* restart the pod"),
    ("MRKDWN_BOLD", "markdown", "*Status*: green"),
    ("MRKDWN_BOLD", "markdown", "*Summary*\nAll good."),
    ("MRKDWN_BOLD", "markdown", "- *Step 1:* install"),
    ("HORIZONTAL_RULE", "markdown", "a\n\n---\n\nb"),
    ("HORIZONTAL_RULE", "markdown", "a\n\n* * *\n\nb"),
    ("HORIZONTAL_RULE", "markdown", "a\n\n___\n\nb"),
    ("TASK_LIST", "markdown", "- [ ] write tests"),
    ("TASK_LIST", "markdown", "* [x] shipped"),
    ("TASK_LIST", "markdown", "1. [X] done"),
    ("HORIZONTAL_RULE", "mrkdwn", "a\n\n---\n\nb"),
]

NOT_FLAGGED: list[tuple[str, Dialect, str]] = [
    ("MARKDOWN_BOLD", "mrkdwn", "*bold* in mrkdwn"),
    ("MARKDOWN_BOLD", "mrkdwn", "2 * 3 * 4 = 24"),
    ("MARKDOWN_BOLD", "mrkdwn", "2**10 is 1024, and 3**2 is 9"),
    ("MARKDOWN_BOLD", "mrkdwn", "a ** b ** c"),
    ("MARKDOWN_BOLD", "mrkdwn", "call `f(**kwargs)` here"),
    ("MARKDOWN_BOLD", "mrkdwn", "```\nx = **not bold**\n```"),
    ("MARKDOWN_BOLD", "mrkdwn", "define __init__ and __main__"),
    ("MARKDOWN_BOLD", "mrkdwn", "my_snake_case_name is fine"),
    ("MARKDOWN_BOLD", "mrkdwn", ":white_check_mark: done :heavy_check_mark:"),
    ("MARKDOWN_BOLD", "mrkdwn", "🚀 *Launch* day :tada: 👍🏽"),
    ("MARKDOWN_BOLD", "markdown", "**bold** is right in Markdown"),
    ("MARKDOWN_LINK", "mrkdwn", "<https://example.com|docs>"),
    ("MARKDOWN_LINK", "mrkdwn", "see footnote [1] (below)"),
    ("MARKDOWN_LINK", "mrkdwn", "call handlers[0](event) now"),
    ("MARKDOWN_LINK", "mrkdwn", "`[a](https://example.com)`"),
    ("MARKDOWN_LINK", "mrkdwn", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ("MARKDOWN_LINK", "markdown", "[docs](https://example.com)"),
    ("MARKDOWN_HEADING", "mrkdwn", "#1 priority"),
    ("MARKDOWN_HEADING", "mrkdwn", "#general is the channel"),
    ("MARKDOWN_HEADING", "mrkdwn", "I like C# a lot"),
    ("MARKDOWN_HEADING", "mrkdwn", "```\n# a comment\n```"),
    ("MARKDOWN_HEADING", "markdown", "# Heading"),
    ("MARKDOWN_STRIKE", "mrkdwn", "~strike~ and ~/home/path"),
    ("MARKDOWN_QUOTE", "mrkdwn", "> a single quote"),
    ("TABLE", "mrkdwn", "cat x | grep y | wc -l"),
    ("TABLE", "mrkdwn", "| a | b |\n| 1 | 2 |"),
    ("TABLE", "mrkdwn", "```\n| a | b |\n|---|---|\n```"),
    ("TABLE", "markdown", "title\n---"),
    ("RAW_HTML", "mrkdwn", "List<T> and Map<K, V>"),
    ("RAW_HTML", "mrkdwn", "a <b and c> d"),
    ("RAW_HTML", "mrkdwn", "`<b>tag</b>`"),
    ("RAW_HTML", "markdown", "<@U123> and <#C123|general>"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "salt &amp; pepper, a &lt; b, b &gt; a"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "> quoted line"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "<@U123> see <#C456|general> and <!subteam^S1|@eng>"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "<https://example.com/?a=1&amp;b=2|link>"),
    ("UNESCAPED_CHARACTER", "mrkdwn", "`a < b && c > d`"),
    ("UNESCAPED_CHARACTER", "markdown", "salt & pepper, a < b"),
    ("BROADCAST_MENTION", "mrkdwn", "write to ops@here.com"),
    ("BROADCAST_MENTION", "mrkdwn", "@hereford is a town"),
    ("BROADCAST_MENTION", "mrkdwn", "the @channels list"),
    ("BROADCAST_MENTION", "mrkdwn", "`@here` is how you ping"),
    ("BROADCAST_MENTION", "mrkdwn", "<@U123> and <!subteam^S1|@eng>"),
    ("BROADCAST_MENTION", "markdown", "email me@everyone.org"),
    ("MRKDWN_LINK", "markdown", "<https://example.com>"),
    ("MRKDWN_LINK", "markdown", "[docs](https://example.com)"),
    ("MRKDWN_LINK", "mrkdwn", "<https://example.com|docs>"),
    ("MRKDWN_BOLD", "markdown", "this is *italic* text"),
    ("MRKDWN_BOLD", "markdown", "*An aside, in italics.*"),
    ("MRKDWN_BOLD", "markdown", "* item one\n* item two"),
    ("MRKDWN_BOLD", "markdown", "2 * 3 * 4"),
    ("MRKDWN_BOLD", "mrkdwn", "*Note:* fine in mrkdwn"),
    ("HORIZONTAL_RULE", "markdown", "-- and --- text"),
    ("HORIZONTAL_RULE", "markdown", "```\n---\n```"),
    ("TASK_LIST", "markdown", "- [link](https://example.com)"),
    ("TASK_LIST", "markdown", "use [ ] for an empty box"),
]


@pytest.mark.parametrize(("code", "dialect", "text"), FLAGGED)
def test_flags(code: str, dialect: Dialect, text: str) -> None:
    assert code in found(text, dialect)


@pytest.mark.parametrize(("code", "dialect", "text"), FLAGGED)
def test_code_blocks_are_exempt(code: str, dialect: Dialect, text: str) -> None:
    assert code not in found(f"Example:\n```\n{text}\n```", dialect)


@pytest.mark.parametrize(
    ("code", "dialect", "text"), [case for case in FLAGGED if "\n" not in case[2]]
)
def test_code_spans_are_exempt(code: str, dialect: Dialect, text: str) -> None:
    assert code not in found(f"Example: ``{text}``", dialect)


@pytest.mark.parametrize(("code", "dialect", "text"), NOT_FLAGGED)
def test_does_not_flag_look_alikes(code: str, dialect: Dialect, text: str) -> None:
    assert code not in found(text, dialect)


LONG_QUESTION = "Could you explain " + "in detail " * 40 + "how the deploy pipeline works?"


@pytest.mark.parametrize(
    ("code", "text", "question"),
    [
        ("EMPTY", "", QUIET),
        ("EMPTY", "   \n\t ", QUIET),
        ("EMPTY", "\u200b\u200b", QUIET),
        ("TOO_SHORT", "k", QUIET),
        ("TOO_SHORT", "Yes.", LONG_QUESTION),
        ("TOO_LONG", "word " * 4001, QUIET),
        ("UNCLOSED_CODE_FENCE", "```python\nprint(1)", QUIET),
        ("UNCLOSED_CODE_FENCE", "Here:\n```\ncode", QUIET),
        ("UNCLOSED_CODE_FENCE", "- ```\n  code", QUIET),
    ],
)
def test_content_rules_flag(code: str, text: str, question: str) -> None:
    verdict = verify(text, question=question)
    assert code in verdict.codes
    assert not verdict.passed


@pytest.mark.parametrize(
    ("code", "text", "question"),
    [
        ("EMPTY", "ok", QUIET),
        ("TOO_SHORT", "Yes.", "Is the API rate limited?"),
        ("TOO_SHORT", "👍🏽👍🏽", "thanks!"),
        ("TOO_SHORT", "The pipeline builds, tests, then deploys on merge.", LONG_QUESTION),
        ("TOO_LONG", "word " * 3000, QUIET),
        ("UNCLOSED_CODE_FENCE", "```\ncode\n```", QUIET),
        ("UNCLOSED_CODE_FENCE", "type ``` to start a block", QUIET),
        ("UNCLOSED_CODE_FENCE", "inline ```code``` here", QUIET),
        ("UNCLOSED_CODE_FENCE", "````\n```\nnested\n```\n````", QUIET),
    ],
)
def test_content_rules_do_not_flag(code: str, text: str, question: str) -> None:
    assert code not in verify(text, question=question).codes


COMPOSE = (
    "which port does the api listen on?\n```\nservices:\n  api:\n    ports:\n"
    + ("      - 8080:8080\n" * 60)
    + "```"
)
LOG = (
    "\n".join(
        f"2026-03-01 12:00:{i:02d} ERROR worker-{i} failed to reach redis at 10.0.0.{i}:6379"
        for i in range(30)
    )
    + "\nwhat's the redis host?"
)
SPEC = (
    "We plan to move the billing service to the new cluster in the next window. " * 8
    + "\nReply only OK if you understood."
)
CHANGELOG = "- Fixed the login bug\n- Added the retry flag\n" * 20 + "which version added retry?"
WHY_EL = (
    "Το ρωτάω επειδή χθες το βράδυ άλλαξα τη διαμόρφωση του load balancer και από τότε οι "
    "έλεγχοι υγείας αποτυγχάνουν σε κάθε κόμβο του cluster παραγωγής χωρίς σαφές σφάλμα."
)
WHY_AR = (
    "أسأل لأنني غيرت إعدادات موازن الحمل مساء أمس ومنذ ذلك الحين تفشل فحوصات الصحة على كل "
    "عقدة في مجموعة الإنتاج دون أي خطأ واضح في السجلات."
)


@pytest.mark.parametrize(
    ("answer", "question"),
    [
        ("8080.", COMPOSE),  # the paste does not raise the length an answer needs
        ("10.0.0.1", LOG),
        ("OK.", SPEC),  # a short closing request
        ("v2.3.1", CHANGELOG),
        ("3", "How many replicas?"),
        ("Ja.", "Ist die Version 2.3.1 schon in prod ausgerollt, oder läuft noch die alte?"),
        ("はい。", "本番環境にはもうデプロイされていますか？"),
        # a short question then a long explanation, in Greek (either question mark) and
        # Arabic (found by a blind review: the sentence did not end at their marks)
        ("Στην 8080.", f"Σε ποια θύρα ακούει η υπηρεσία; {WHY_EL}"),
        ("Στην 8080.", f"Σε ποια θύρα ακούει η υπηρεσία\u037e {WHY_EL}"),
        ("8080.", f"على أي منفذ تعمل الخدمة؟ {WHY_AR}"),
    ],
)
def test_a_one_token_answer_to_a_pointed_ask_is_long_enough(answer: str, question: str) -> None:
    assert "TOO_SHORT" not in verify(answer, question=question).codes


@pytest.mark.parametrize(
    ("answer", "question"),
    [
        ("k", QUIET),  # no word, no number
        ("Yes.", LONG_QUESTION),  # a long open question, however much is pasted after it
        ("Yes.", LONG_QUESTION + "\n```\n" + "log line\n" * 50 + "```"),
        ("?", COMPOSE),
    ],
)
def test_too_short_still_fails_what_answers_nothing(answer: str, question: str) -> None:
    assert "TOO_SHORT" in verify(answer, question=question).codes


LUNCH = (
    "Lunch today is lasagne with a green salad, garlic bread and tiramisu for dessert; "
    "the canteen opens at noon on the second floor."
)
LONG_LUNCH = (
    f"{LUNCH} Vegetarian options include mushroom risotto, roasted peppers and a lentil soup; "
    "vegan diners can ask the chef for the chickpea curry. Coffee and pastries are served "
    "from three in the afternoon, and the fruit bowl near the elevators is refilled daily."
)
DORA = (
    "The four DORA metrics are the usual starting point:\n• *Deployment frequency* — how "
    "often you ship\n• *Lead time for changes* — commit to production\n• *Change failure "
    "rate* — share of releases causing incidents\n• *Time to restore service* — recovery "
    "after an outage\nTrack them weekly, compare trends rather than absolute numbers, and "
    "review them with engineering leads every quarter."
)


@pytest.mark.parametrize(
    ("question", "answer", "flagged"),
    [
        ("How do I rotate the production database credentials?", LONG_LUNCH, True),
        ("Wie rotiere ich die Zugangsdaten der Produktionsdatenbank im Tresor?", LONG_LUNCH, True),
        ("データベースの認証情報を更新する方法は？", LONG_LUNCH, True),
        # too little to decide by overlap: left to the judge
        ("How do I rotate the database credentials?", LUNCH, False),
        ("Kubernetes?", LONG_LUNCH, False),
        ("What should we measure for delivery performance?", DORA, False),
        ("Translate the lunch menu into Italian for the Milan office please", LONG_LUNCH, False),
        (
            "How do I rotate the database credentials?",
            "Rotate them from the vault console: open the secret, click rotate, then restart "
            "the services that read the credentials so they pick up the new values.",
            False,
        ),
        (
            "How are deployments done?",
            "We deploy on every merge: CI builds and ships it " * 2,
            False,
        ),
        (
            "Why is the runner failing?",
            "The run fails because the cache volume is full " * 2,
            False,
        ),
        ("What's our PTO policy?", "The policy gives 25 vacation days a year " * 2, False),
        ("How do I rotate the database credentials?", "Yes, from the console.", False),
        (
            "¿Cómo reinicio el servidor de pruebas?",
            "Para reiniciar el servidor de pruebas ejecuta make restart y espera a que el "
            "healthcheck vuelva a responder correctamente antes de lanzar las pruebas.",
            False,
        ),
        ("hi", LONG_LUNCH, False),
        ("👋", LONG_LUNCH, False),
        ("<@U123> ???", LONG_LUNCH, False),
        (
            "Wie starte ich den Dienst neu?",
            "Den Dienst startest du mit systemctl restart vouch neu; danach prüfst du die "
            "Logs mit journalctl und schaust, ob der Healthcheck wieder grün ist.",
            False,
        ),
        (
            "データベースの認証情報を更新する方法は？",
            "認証情報はボールトの管理画面から更新できます。更新後はサービスを再起動して、"
            "新しい値が読み込まれたことをログで確認してください。データベース接続も確認します。",
            False,
        ),
    ],
)
def test_off_topic(question: str, answer: str, flagged: bool) -> None:
    assert ("OFF_TOPIC" in verify(answer, question=question).codes) is flagged


def test_an_answer_that_quotes_what_the_search_found_is_not_off_topic() -> None:
    """A passage found for the question, quoted word for word where the quote shares a
    word with the question, grounds an answer that says it in other words. A quote its
    source does not hold, or one about something else (a passage planted where the search
    reads), grounds nothing."""
    question = "What should I prepare before the new hire starts?"
    passage = "Before a new hire starts, ask IT for their accounts and pick a buddy."
    answer = (
        "Ask IT for the accounts the day before, and choose a buddy who sits nearby and "
        "can answer everyday questions. Share a calendar for the first week with the team "
        "rituals, the architecture walkthrough, a pairing session, lunch with the manager "
        "and a short check-in on Friday. Order the laptop early, since delivery can take "
        "several days, and add them to the on-call shadow rota."
    )
    source = Source("onboarding", "Onboarding", None, f"{passage} {LONG_LUNCH}")
    assert "OFF_TOPIC" in verify(answer, question=question).codes
    quoted = Citation("onboarding", "", passage, answer)
    verdict = verify(answer, question=question, sources=(source,), citations=(quoted,))
    assert "OFF_TOPIC" not in verdict.codes
    for cited in ("ask HR for their accounts", "the canteen opens at noon on the second floor"):
        citation = Citation("onboarding", "", cited, answer)
        verdict = verify(answer, question=question, sources=(source,), citations=(citation,))
        assert "OFF_TOPIC" in verdict.codes
    empty = Source("onboarding", "Onboarding", None, "")  # nothing read: nothing quoted
    verdict = verify(answer, question=question, sources=(empty,), citations=(quoted,))
    assert "OFF_TOPIC" in verdict.codes


def test_the_words_of_a_camel_case_name_are_words_of_the_answer() -> None:
    """An answer may name the question's subject only inside an identifier."""
    question = "Which connection string do I use for local tests against the blob storage?"
    answer = (
        "The simplest is `UseDevelopmentStorage=true`, which most of the SDKs understand. "
        "If yours wants everything spelled out, set AccountName to devstoreaccount1 and "
        "point BlobEndpoint at the emulator on port ten thousand; the key is the published "
        "one, identical for everybody, and it only ever works against the emulator running "
        "on your own machine, never against a real account in the cloud. Restart the "
        "container after changing it, since the client reads its settings only once."
    )
    assert "OFF_TOPIC" not in verify(answer, question=question).codes
    unrelated = answer.replace("BlobEndpoint", "the endpoint").replace("Storage", "Emulator")
    assert "OFF_TOPIC" in verify(unrelated, question=question).codes


def test_a_korean_particle_glued_to_a_loanword_is_not_part_of_it() -> None:
    """ "API를" and "API가" share the word API: Korean glues its particles to loanwords."""
    question = "배포 파이프라인에서 API를 다시 시작하려면 어떤 명령을 써야 하나요?"
    answer = (
        "API가 멈췄다면 kubectl rollout restart deploy/gateway 로 재시작하고, 상태는 "
        "kubectl get pods 로 확인하세요. 대시보드의 오류율이 떨어지는지도 함께 보면 "
        "좋습니다. 문제가 계속되면 온콜 담당자에게 알려 주세요. 로그는 Loki에서 "
        "서비스 이름으로 찾을 수 있고, 알림 규칙은 Grafana에 있습니다."
    )
    assert "OFF_TOPIC" not in verify(answer, question=question).codes
    unrelated = answer.replace("API가", "캐시가")
    assert "OFF_TOPIC" in verify(unrelated, question=question).codes


def test_an_answer_on_the_threads_subject_is_not_off_topic() -> None:
    """A follow-up is answered from the thread's subject: overlap with the thread counts."""
    question = "would the cafeteria in the other building offer similar things tomorrow?"
    assert "OFF_TOPIC" in verify(LONG_LUNCH, question=question).codes
    thread = ("What's for lunch in the canteen today?",)
    assert "OFF_TOPIC" not in verify(LONG_LUNCH, question=question, thread=thread).codes


SOURCES = (
    Source("doc-1", "Deploy guide", "https://Docs.Example.com/deploy/"),
    Source("doc-2", "Runbook", None),
)
ANSWER = "Deploys run from CI on merge, and roll back with the deploy button."


@pytest.mark.parametrize(
    ("text", "citations", "expected"),
    [
        (ANSWER, (), {"UNCITED"}),
        (ANSWER, (Citation("doc-1"),), set()),
        (ANSWER, (Citation("doc-2", "Runbook", "roll back"),), set()),
        (ANSWER, (Citation("https://docs.example.com/deploy"),), set()),
        (ANSWER, (Citation("doc-9"),), {"UNKNOWN_SOURCE", "UNCITED"}),
        (ANSWER, (Citation("doc-1"), Citation("made-up")), {"UNKNOWN_SOURCE"}),
        (ANSWER + " See <https://docs.example.com/deploy|the guide>.", (), set()),
        (ANSWER + " See https://docs.example.com/deploy#rollback.", (), set()),
        (ANSWER + " See <https://evil.example.com/x|this>.", (), {"UNKNOWN_SOURCE", "UNCITED"}),
        (ANSWER + " See https://evil.example.com/x", (Citation("doc-1"),), {"UNKNOWN_SOURCE"}),
        (ANSWER + " Run `curl https://evil.example.com/x`.", (Citation("doc-1"),), set()),
    ],
)
def test_citations(text: str, citations: tuple[Citation, ...], expected: set[str]) -> None:
    codes = set(verify(text, question=QUIET, sources=SOURCES, citations=citations).codes)
    assert codes & {"UNCITED", "UNKNOWN_SOURCE"} == expected


def test_without_sources_links_are_free_but_a_citation_names_nothing_given() -> None:
    text = ANSWER + " See https://anything.example.com and <https://x.example.com|x>."
    assert verify(text, question=QUIET).passed  # nothing was given to link to
    verdict = verify(text, question=QUIET, citations=(Citation("toolu-made-up"),))
    assert verdict.codes == ("UNKNOWN_SOURCE",)  # e.g. a tool result that never existed


QUOTED = (
    Source("doc-1", "Deploy guide", "https://docs.example.com/deploy", "Merge to main.\n\nRun it."),
    Source("doc-2", "Runbook", None, "Roll back with `make rollback ENV=prod`."),
)


@pytest.mark.parametrize(
    ("citation", "flagged"),
    [
        (Citation("doc-2", "Runbook", "Roll back with `make rollback ENV=prod`."), False),
        (Citation("doc-2", "Runbook", "make rollback ENV=prod"), False),  # part of it
        (Citation("doc-1", "Deploy guide", "Merge to main.Run it."), False),  # blocks joined
        (Citation("doc-1", "Deploy guide", "Merge  to\nmain."), False),  # spacing differs
        (Citation("doc-1", "Deploy guide", ""), False),  # nothing quoted
        (Citation("doc-2", "Runbook", "Roll back with `make rollback ENV=staging`."), True),
        (Citation("doc-1", "Deploy guide", "Roll back with `make rollback ENV=prod`."), True),
        (Citation("doc-1", "Deploy guide", "Merge to main and deploy."), True),
        (Citation("https://docs.example.com/deploy", "", "Push to main."), True),
    ],
)
def test_misquoted(citation: Citation, flagged: bool) -> None:
    verdict = verify(ANSWER, question=QUIET, sources=QUOTED, citations=(citation,))
    assert ("MISQUOTED" in verdict.codes) is flagged
    assert "UNCITED" not in verdict.codes and "UNKNOWN_SOURCE" not in verdict.codes


def test_cited_sources_are_listed_once_in_order() -> None:
    text = (
        ANSWER
        + " See <https://docs.example.com/deploy|the guide> and https://docs.example.com/deploy."
    )
    citations = (Citation("doc-2"), Citation("doc-1"), Citation("doc-2"))
    assert verify(text, question=QUIET, sources=QUOTED, citations=citations).cited == (
        "doc-2",
        "doc-1",
    )
    assert verify(text, question=QUIET, sources=QUOTED).cited == ("doc-1",)
    assert verify(ANSWER, question=QUIET, sources=QUOTED).cited == ()
    assert verify(text, question=QUIET, citations=citations).cited == ()  # no sources given


@pytest.mark.parametrize(
    "question",
    [
        "Hat geklappt, danke!",
        "merci, c'est bon !",
        "👍",
        "спасибо, получилось!",
        "Got it, thanks.",  # three words, found by a second review
        "谢谢",
    ],
)
def test_an_emoji_answers_a_short_message_that_asks_nothing(question: str) -> None:
    """Found by a blind set (fresh10): "🙌" to "thanks, that worked!" was TOO_SHORT."""
    for answer in ("🙌", "🎉", ":raised_hands:"):
        assert "TOO_SHORT" not in verify(answer, question=question).codes


@pytest.mark.parametrize(
    ("answer", "question"),
    [
        ("🙌", "Which port does the billing service listen on?"),  # a question
        ("🎉", "The nightly export job failed again and nobody on the team knows why it does"),
        ("k", "thanks!"),  # a letter is no emoji
        # found by a blind review: requests and questions written without their mark
        ("🙂", "Explain how our VPN setup works"),
        ("👍", "Send me the on-call schedule"),
        ("👍", "Still broken after the restart"),
        ("🏢", "会議室はどこですか。"),
        ("🔒", "what's the wifi password"),
    ],
)
def test_an_emoji_does_not_answer_a_question_or_a_long_message(answer: str, question: str) -> None:
    assert "TOO_SHORT" in verify(answer, question=question).codes
