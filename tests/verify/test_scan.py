"""fenced_lines: the one line-level fence rule, for answers (split) and for Markdown
documents (chunk)."""

from __future__ import annotations

import pytest

from app.verify.scan import fenced_lines

ANSWER = [
    ("```py\nx\n```", "open code close"),
    ("  ```\nx\n  ```  ", "open code close"),  # indented fences, trailing spaces
    ("```x``` inline\ntext", "prose prose"),  # the line closes its own fence
    ("```\nx\n````\n```", "open code code close"),  # only the same fence closes
    ("````\n```\n````", "open code close"),
    ("```\nx\n``` and more", "open code code"),  # a closing fence is the whole line
    ("~~~\nx\n~~~", "prose prose prose"),  # no tilde fences in an answer
    ("- ```\nx", "prose prose"),  # a list item is not a fence line
    ("```\n\nx", "open code code"),  # never closed: the rest is code
]

DOCUMENT = [
    ("```py\nx\n```", "open code close"),
    ("~~~\n# not a heading\n~~~", "open code close"),
    ("```\n~~~\n```", "open code close"),  # the other character does not close
    ("```\nx\n`````", "open code close"),  # a longer fence closes
    ("````\n```\n````", "open code close"),  # a shorter one does not
    ("```\nx\n``` trailing", "open code close"),
    ("```x```\ny\n```", "open code close"),  # an opening line may hold backticks
]


@pytest.mark.parametrize(("text", "kinds"), ANSWER)
def test_answer_fences(text: str, kinds: str) -> None:
    assert " ".join(fenced_lines(text.split("\n"))) == kinds


@pytest.mark.parametrize(("text", "kinds"), DOCUMENT)
def test_document_fences(text: str, kinds: str) -> None:
    assert " ".join(fenced_lines(text.split("\n"), markdown=True)) == kinds
