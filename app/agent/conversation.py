"""What the loop answers: the prior turns of a thread and the new message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.verify import Dialect

Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class Turn:
    role: Role
    text: str
    speaker: str = ""  # who wrote a user turn, as the workspace names them ("": unknown)


@dataclass(frozen=True, slots=True)
class Conversation:
    """Prior turns (oldest first), the new user message, the dialect to answer in, and
    who asked (their name in the workspace; "" when unknown)."""

    turns: tuple[Turn, ...]
    message: str
    dialect: Dialect = "mrkdwn"
    speaker: str = ""

    def __post_init__(self) -> None:
        if not self.message.strip():
            raise ValueError("a conversation needs a non-empty new message")
