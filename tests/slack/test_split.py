"""Splitting long answers into messages: blank-line cuts, code blocks kept whole or reopened."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from app.slack.deliver import MRKDWN_PIECE, STREAM_PIECE, feedback_blocks
from app.slack.split import split, steps_of
from app.verify.scan import scan
from tests.examples import examples
from tests.fakes.slack_limits import check_blocks, check_markdown, check_message


def test_short_text_is_one_piece() -> None:
    assert split("hello\n\nworld", 100) == ["hello\n\nworld"]


def test_cuts_at_paragraph_boundaries() -> None:
    paragraphs = [f"paragraph {i} " + "x" * 40 for i in range(10)]
    pieces = split("\n\n".join(paragraphs), 120)
    assert all(len(p) <= 120 for p in pieces)
    assert "\n\n".join(pieces) == "\n\n".join(paragraphs)


def test_never_cuts_inside_a_code_block_that_fits() -> None:
    code = "```python\n" + "\n".join(f"line_{i} = {i}" for i in range(6)) + "\n```"
    text = "intro " * 10 + "\n\n" + code + "\n\nafter"
    pieces = split(text, len(code) + 5)
    assert code in pieces


def test_long_code_block_is_closed_and_reopened() -> None:
    code = "```python\n" + "\n".join(f"value_{i} = {i}" for i in range(200)) + "\n```"
    pieces = split(code, 500)
    assert len(pieces) > 1
    for piece in pieces:
        assert len(piece) <= 500
        assert piece.startswith("```python\n") and piece.endswith("\n```")
        assert scan(piece).unclosed_fence is None
    body = "\n".join(piece.split("\n", 1)[1].rsplit("\n", 1)[0] for piece in pieces)
    assert body == code.split("\n", 1)[1].rsplit("\n", 1)[0]


def test_long_paragraph_is_cut_at_lines_then_spaces() -> None:
    text = " ".join(f"word{i}" for i in range(2000))
    pieces = split(text, 300)
    assert all(len(p) <= 300 for p in pieces)
    assert " ".join(pieces) == text


def test_unclosed_fence_is_kept_as_one_block_of_lines() -> None:
    pieces = split("a\n\n```\ncode\n\nmore", 1000)
    assert pieces == ["a\n\n```\ncode\n\nmore"]


BLOCK = st.one_of(
    st.text(alphabet="abc *_\n", min_size=1, max_size=300).map(lambda s: s.strip() or "x"),
    st.lists(st.text(alphabet="xyz =(", max_size=60), min_size=1, max_size=40).map(
        lambda lines: "```\n" + "\n".join(lines) + "\n```"
    ),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=20), st.integers(80, 600))
def test_pieces_fit_keep_every_character_and_close_every_fence(
    blocks: list[str], limit: int
) -> None:
    text = "\n\n".join(blocks)
    pieces = split(text, limit)
    assert all(len(piece) <= limit for piece in pieces)
    assert all(scan(piece).unclosed_fence is None for piece in pieces)
    squash = re.compile(r"\s+|```")
    assert squash.sub("", "".join(pieces)) == squash.sub("", text)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=12), st.integers(1, 4))
def test_steps_join_back_exactly_and_never_cut_a_code_block(blocks: list[str], parts: int) -> None:
    text = "\n\n".join(blocks)
    steps = steps_of(text, parts)
    assert "".join(steps) == text
    assert 1 <= len(steps) <= parts
    assert all(scan(step).unclosed_fence is None for step in steps)


def test_steps_and_split_agree_on_a_four_backtick_fence() -> None:
    code = "````markdown\n```python\n\nstill inside the outer block\n````"
    text = f"intro paragraph\n\n{code}\n\nafter"
    assert code in split(text, len(code) + 2)
    for parts in (2, 3, 4):  # the blank line after ```python is code, never a cut
        assert any(code in step for step in steps_of(text, parts)), parts


LARGE = st.one_of(  # paragraphs and code blocks up to ~20,000 characters each
    st.tuples(st.text(alphabet="ab *\n", min_size=1, max_size=50), st.integers(1, 400)).map(
        lambda t: (t[0] * t[1]).strip() or "x"
    ),
    st.tuples(st.text(alphabet="xyz =(\n", max_size=60), st.integers(1, 300)).map(
        lambda t: "```\n" + t[0] * t[1] + "\n```"
    ),
)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(LARGE, min_size=1, max_size=8))
def test_every_call_delivery_makes_is_within_slacks_limits(blocks: list[str]) -> None:
    """What deliver() sends for any answer, in either format, is what the fake Slack (at
    Slack's documented limits) takes: text, section blocks, markdown_text and blocks."""
    text = "\n\n".join(blocks)
    reference = "ab12" * 8
    for piece in split(text, MRKDWN_PIECE):  # posts, reveals and their buttons
        check_message({"text": piece, "blocks": feedback_blocks(piece, reference)})
    for piece in split(text, STREAM_PIECE):  # streams, and the completion of a broken one
        for chunk in steps_of(piece, 3):
            check_markdown({"markdown_text": chunk})
        buttons = feedback_blocks(piece, reference)[1:]
        check_blocks(buttons)
        check_message({"text": piece, "blocks": [{"type": "markdown", "text": piece}, *buttons]})
