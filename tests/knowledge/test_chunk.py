"""Documents → passages: headings, paragraphs, front matter, stable ids."""

from __future__ import annotations

import time

from app.knowledge.chunk import MAX_CHARS, passages

DOC = """---
title: Deploying
url: https://wiki.example.com/deploy
---
Intro paragraph about deploys.

## Staging

Merge to `main`; the pipeline deploys to staging.

```sh
# not a heading: inside a fence
make deploy
```

## Rollback

Press *Revert* on the last deploy.
"""


def test_sections_titles_and_url_from_front_matter() -> None:
    found = passages("ops/deploy.md", DOC)
    assert [p.title for p in found] == ["Deploying", "Deploying › Staging", "Deploying › Rollback"]
    assert {p.url for p in found} == {"https://wiki.example.com/deploy"}
    assert "# not a heading" in found[1].text and "make deploy" in found[1].text
    assert found[2].text == "Press *Revert* on the last deploy."


def test_url_from_the_base_url_and_title_from_the_first_heading() -> None:
    [first, second] = passages(
        "runbooks/on call.md",
        "# On-call\n\nPage the SRE.\n\n## Escalate\n\nCall Ana.",
        base_url="https://docs.example.com/kb/",
    )
    assert first.title == "On-call" and second.title == "On-call › Escalate"
    assert first.url == "https://docs.example.com/kb/runbooks/on%20call.md"
    assert passages("notes/release_notes.txt", "Plain text, no heading.")[0].title == (
        "release notes"
    )
    assert passages("a.md", "text")[0].url is None


def test_ids_are_stable_and_survive_edits_elsewhere() -> None:
    before = {p.title: p.source_id for p in passages("ops/deploy.md", DOC)}
    edited = DOC.replace("Intro paragraph about deploys.", "A new intro, longer than before.")
    after = {p.title: p.source_id for p in passages("ops/deploy.md", edited)}
    assert before == after
    assert len(set(before.values())) == 3
    assert passages("other.md", DOC)[1].source_id != before["Deploying › Staging"]


def test_long_sections_split_at_paragraphs_within_the_limit() -> None:
    paragraph = "word " * 100  # ~500 chars
    body = "# Big\n\n" + "\n\n".join([paragraph.strip()] * 10) + "\n\n" + "x" * (MAX_CHARS * 2)
    found = passages("big.md", body)
    assert all(len(p.text) <= MAX_CHARS for p in found)
    assert sum(p.text.count("word") for p in found) == 1000
    assert len({p.source_id for p in found}) == len(found)


def test_non_english_text_is_kept_as_is() -> None:
    [p] = passages("fr/déploiement.md", "# Déploiement\n\nFusionnez dans `main` : c'est déployé.")
    assert p.title == "Déploiement" and "déployé" in p.text
    [jp] = passages(
        "ja/デプロイ.md", "# デプロイ手順\n\n本番環境へのデプロイは金曜日に行いません。"
    )
    assert jp.title == "デプロイ手順"


def test_front_matter_urls_must_be_web_urls() -> None:
    def url(value: str) -> str | None:
        return passages("a.md", f"---\nurl: {value}\n---\nText.\n", "https://docs.example.com/")[
            0
        ].url

    assert url("https://wiki.example.com/a b|c") == "https://wiki.example.com/a%20b%7Cc"
    assert url("javascript:alert(1)") == "https://docs.example.com/a.md"  # the base URL instead
    assert url("ftp://files.example.com/a") == "https://docs.example.com/a.md"


def test_repeated_headings_get_their_own_ids() -> None:
    doc = (
        "# Guide\n\n## Deploy\n\n### Example\n\nmake deploy\n\n"
        "## Rollback\n\n### Example\n\nmake undo\n"
    )
    found = passages("guide.md", doc)
    assert [p.title for p in found] == ["Guide › Example", "Guide › Example"]
    assert len({p.source_id for p in found}) == 2
    assert found[0].source_id == passages("guide.md", doc.replace("make undo", "x"))[0].source_id


def test_the_document_title_is_the_first_heading_even_without_text_under_it() -> None:
    found = passages("g.md", "# Guide\n\n## Install ##\n\nRun the installer.\n")
    assert [p.title for p in found] == ["Guide › Install"]
    assert passages("c.md", "# C# tips #\n\nUse records.\n")[0].title == "C# tips"


def test_pathological_lines_are_linear() -> None:
    heading = "# a" + "#" * 200_000 + "b\n\nText.\n"
    front = "---\ntitle: x" + " " * 200_000 + "y\n---\nText.\n"
    started = time.perf_counter()
    passages("a.md", heading)
    passages("b.md", front)
    assert time.perf_counter() - started < 2.0
