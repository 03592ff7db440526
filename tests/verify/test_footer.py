"""The Sources footer: each source once, linked when it has a URL, and always text that
passes verification in its dialect, whatever the docs' titles hold."""

from __future__ import annotations

import pytest

from app.verify import Dialect, Source, verify
from app.verify.footer import sources_footer

SOURCES = (
    Source("a1", "Deploying billing › Rollback", "https://wiki.example.com/billing/deploy"),
    Source("b2", "On-call", None),
)


def test_footer_in_each_dialect() -> None:
    assert sources_footer(SOURCES, "mrkdwn") == (
        "*Sources*\n"
        "• <https://wiki.example.com/billing/deploy|Deploying billing › Rollback>\n"
        "• On-call"
    )
    assert sources_footer(SOURCES, "markdown") == (
        "**Sources**\n"
        "- [Deploying billing › Rollback](https://wiki.example.com/billing/deploy)\n"
        "- On-call"
    )
    assert sources_footer((), "mrkdwn") == ""


def test_sections_of_one_document_are_one_entry() -> None:
    rollback, staging = (
        Source(x, f"Deploying billing › {h}", "https://wiki.example.com/billing/deploy")
        for x, h in (("a1", "Rollback"), ("c3", "Staging"))
    )
    on_call = Source("b2", "On-call", None)
    assert sources_footer((rollback, on_call, staging, rollback), "mrkdwn") == (
        "*Sources*\n• <https://wiki.example.com/billing/deploy|Deploying billing>\n• On-call"
    )


HOSTILE = [
    "**Bold** & <b>html</b> | pipes",
    "[label](https://evil.example.com) ![img](x)",
    "@channel <!here> `code` ~~strike~~ # heading",
    "A & B > C < D",
    "*" * 300,
    "",
]


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
@pytest.mark.parametrize("title", HOSTILE)
def test_footer_passes_verification_whatever_the_title(dialect: Dialect, title: str) -> None:
    sources = (
        Source("id1", title, "https://docs.example.com/a b|c>(d)"),
        Source("id2", title, None),
    )
    footer = sources_footer(sources, dialect)
    verdict = verify(footer, question="hi", dialect=dialect)
    assert verdict.passed and verdict.issues == () and verdict.text == footer, verdict.codes
    assert "evil" not in footer and "<!here>" not in footer
    assert len(footer) < 700


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
def test_footer_links_count_as_citing_their_sources(dialect: Dialect) -> None:
    footer = sources_footer(SOURCES, dialect)
    verdict = verify(footer, question="hi", dialect=dialect, sources=SOURCES)
    assert verdict.passed and verdict.cited == ("a1",)
