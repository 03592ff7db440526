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


FileKind = Literal["image", "pdf", "text"]


@dataclass(frozen=True, slots=True)
class SharedFile:
    """A file shared in the thread, read: an image the model sees, or a document (a PDF, or
    text) it reads with citations on. `text` is what a citation of it may quote (a PDF's
    extracted text); `url` its Slack permalink, for the sources footer."""

    id: str
    name: str
    kind: FileKind
    media_type: str
    data: bytes
    text: str = ""
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Unread:
    """A shared file that was not read, and why (a fixed phrase: too large, not a type
    Vouch reads, unreadable, over the count)."""

    name: str
    reason: str


@dataclass(frozen=True, slots=True)
class Conversation:
    """Prior turns (oldest first), the new user message, the dialect to answer in, who
    asked (their name in the workspace; "" when unknown), and the files shared."""

    turns: tuple[Turn, ...]
    message: str
    dialect: Dialect = "mrkdwn"
    speaker: str = ""
    files: tuple[SharedFile, ...] = ()  # read, for the model: newest first
    unread: tuple[Unread, ...] = ()  # named to the model as not read
    instructions: str = ""  # the channel's standing instructions (CHANNELS_FILE)

    def __post_init__(self) -> None:
        if not self.message.strip():
            raise ValueError("a conversation needs a non-empty new message")
