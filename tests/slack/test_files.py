"""Files shared with a question, end to end through Bolt and the fakes: a screenshot goes to
the model as an image; a PDF as a document with citations, where a fabricated quote is
caught and retried and the footer names the file; files over the limits, of other types,
or that Slack will not hand over are named to the model as not read. File contents never
reach the logs."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.fakes.anthropic import DocCite, FakeAnthropic, Reply, cited
from tests.fakes.anthropic_blocks import pdf, png
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import dispatch, make_app, mention, replied

PAGE = "Rotate the database password every 90 days with the vault CLI."


def blocks(request: dict[str, Any]) -> list[dict[str, Any]]:
    return list(request["messages"][-1]["content"])


async def test_a_question_about_a_screenshot_is_answered_with_the_image_seen(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    shot = fake_slack.add_file("error.png", png(40, 20), "image/png", channels=("C0001",))
    fake_anthropic.push(Reply("The screenshot shows the deploy failing at the migration."))
    app = make_app(make_settings())
    await dispatch(app, mention("what's this error?", "500.000001", files=[shot]))
    await replied(fake_slack)
    [request] = fake_anthropic.requests
    image, question = blocks(request)
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert question == {"type": "text", "text": "what's this error?"}
    assert "files shared in the thread" in request["system"][0]["text"]
    [download] = fake_slack.downloads
    assert download.served  # with the bot token, files:read granted


async def test_a_fabricated_quote_from_a_pdf_is_caught_and_the_answer_cites_the_file(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="vouch")
    doc = fake_slack.add_file("policy.pdf", pdf(PAGE), "application/pdf", channels=("C0001",))
    fake_anthropic.push(
        cited(("Rotate it monthly.", DocCite(0, "Rotate the password every 30 days."))),
        cited(("Rotate it every 90 days.", DocCite(0, PAGE))),
    )
    app = make_app(make_settings())
    await dispatch(app, mention("how often do we rotate it?", "501.000001", files=[doc]))
    await replied(fake_slack)
    first, retry = fake_anthropic.requests[:2]
    [document] = [b for b in blocks(first) if b["type"] == "document"]
    assert document["title"] == "policy.pdf" and document["citations"] == {"enabled": True}
    assert "MISQUOTED" in str(retry["messages"][-1])  # the feedback names the fault
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("Rotate it every 90 days.")
    assert "policy.pdf" in posted["text"] and doc["permalink"] in posted["text"]  # footer
    assert "monthly" not in fake_slack.text_sent()
    assert "vault CLI" not in caplog.text and "90 days" not in caplog.text


async def test_files_not_read_are_named_to_the_model_and_nothing_breaks(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    channels = ("C0001",)
    big = fake_slack.add_file("dump.log", b"x" * 5000, "text/plain", channels=channels)
    sheet = fake_slack.add_file(
        "q3.xlsx", b"PK\x03\x04", "application/vnd.ms-excel", channels=channels
    )
    fake = fake_slack.add_file("fake.png", b"not a png at all", "image/png", channels=channels)
    notes = fake_slack.add_file(
        "notes.md", b"# Deploys\nUse the pipeline.", "text/markdown", channels=channels
    )
    extra = fake_slack.add_file("more.txt", b"more", "text/plain", channels=channels)
    fake_anthropic.push(Reply("Deploys use the pipeline."))
    app = make_app(make_settings(files_max_bytes=4000, files_max_count=4))
    event = mention("what do these say?", "502.000001", files=[big, sheet, fake, notes, extra])
    await dispatch(app, event)
    await replied(fake_slack)
    [request] = fake_anthropic.requests
    sent = blocks(request)
    [document] = [b for b in sent if b["type"] == "document"]
    assert document["source"] == {
        "type": "text",
        "media_type": "text/plain",
        "data": "# Deploys\nUse the pipeline.",
    }
    [note] = [b["text"] for b in sent if b["type"] == "text" and "cannot see" in b["text"]]
    assert "dump.log (too large)" in note
    assert "q3.xlsx (not a type Vouch reads)" in note
    assert "fake.png (unreadable)" in note
    assert "more.txt (over the number of files read)" in note


async def test_a_file_slack_will_not_hand_over_is_not_read_as_a_web_page(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Without files:read Slack answers 200 with its sign-in page: not the file."""
    fake_slack.scopes -= {"files:read"}
    doc = fake_slack.add_file("notes.txt", b"Use the pipeline.", "text/plain", channels=("C0001",))
    fake_anthropic.push(Reply("I can't open that file; could you paste it?"))
    app = make_app(make_settings())
    await dispatch(app, mention("what does it say?", "503.000001", files=[doc]))
    await replied(fake_slack)
    sent = blocks(fake_anthropic.requests[0])
    assert not [b for b in sent if b["type"] == "document"]
    assert any("notes.txt (not readable with Vouch's access)" in b.get("text", "") for b in sent)
