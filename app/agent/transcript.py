"""What a reader of the thread sees, within a token budget: the newest earlier turns, each
with who said it. The judge reads this, so a follow-up ("and for staging?") is judged as
the reply it is."""

from __future__ import annotations

from collections.abc import Sequence

from app.agent.conversation import Turn

ASSISTANT = "Vouch"  # how the assistant's own earlier answers are labelled
USER = "user"


def estimate_tokens(text: str) -> int:
    """A cautious token estimate without a model call: about four ASCII characters per token,
    and one per other character (CJK text runs close to a token per character)."""
    other = sum(1 for ch in text if not ch.isascii())
    return (len(text) - other) // 4 + other + 1


def recent_turns(turns: Sequence[Turn], budget: int) -> list[dict[str, str]]:
    """The newest turns (oldest first in the result) whose estimated tokens fit `budget`;
    the oldest turn that does not fit whole is cut from its start, marked with "…"."""
    kept: list[dict[str, str]] = []
    left = budget
    for turn in reversed(turns):
        if left <= 0:
            break
        text = turn.text.strip()
        if not text:
            continue
        cost = estimate_tokens(text)
        if cost > left:
            text = "…" + _tail(text, left)
            left = 0
        else:
            left -= cost
        speaker = ASSISTANT if turn.role == "assistant" else turn.speaker or USER
        kept.append({"from": speaker, "text": text})
    kept.reverse()
    return kept


def _tail(text: str, budget: int) -> str:
    """The longest end of `text` (the part nearest the question) within `budget` tokens."""
    low, high = 0, len(text)  # the answer's start lies in [low, high]
    while low < high:
        middle = (low + high) // 2
        if estimate_tokens(text[middle:]) <= budget:
            high = middle
        else:
            low = middle + 1
    return text[low:]
