"""Thread history from conversations.replies → the conversation the loop answers, with
who said what where their names are known."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.agent.conversation import Conversation, Turn
from app.verify import Dialect

_SKIPPED_SUBTYPES = frozenset({"channel_join", "channel_leave", "message_deleted", "bot_message"})


@dataclass(frozen=True, slots=True)
class Bot:
    """Who Vouch is in this workspace (from auth.test)."""

    user_id: str
    bot_id: str

    def mention_pattern(self) -> re.Pattern[str]:
        return re.compile(rf"<@{re.escape(self.user_id)}(?:\|[^>]*)?>\s*")


def strip_mention(text: str, bot: Bot) -> str:
    """The message without Vouch's own @mention."""
    return bot.mention_pattern().sub("", text).strip()


_MENTION = re.compile(r"<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>")


def mentioned(texts: Iterable[str]) -> set[str]:
    """The user ids @mentioned in `texts`."""
    return {m.group(1) for text in texts for m in _MENTION.finditer(text)}


def named(text: str, names: Mapping[str, str]) -> str:
    """`text` with each @mention of a person whose name is known written as @Name."""
    return _MENTION.sub(lambda m: f"@{names[m.group(1)]}" if m.group(1) in names else m[0], text)


def is_own(message: dict[str, Any], bot: Bot) -> bool:
    return message.get("user") == bot.user_id or message.get("bot_id") == bot.bot_id


def to_conversation(
    replies: Sequence[dict[str, Any]],
    *,
    current_ts: str,
    text: str,
    bot: Bot,
    dialect: Dialect,
    max_messages: int,
    max_chars: int,
    names: Mapping[str, str] | None = None,
    speaker: str = "",
) -> Conversation:
    """The thread before `current_ts` as turns (Vouch's own messages as the assistant's,
    people's with their names where `names` has them, @mentions of them too), keeping the
    newest `max_messages` within `max_chars`; then the new message, from `speaker`."""
    names = names or {}
    turns: list[Turn] = []
    for message in replies:
        if message.get("ts") == current_ts:
            break
        turn = _turn(message, bot, names)
        if turn is not None:
            turns.append(turn)
    kept: list[Turn] = []
    budget = max_chars - len(text)
    for turn in reversed(turns[-max_messages:]):
        budget -= len(turn.text)
        if budget < 0:
            break
        kept.append(turn)
    return Conversation(tuple(reversed(kept)), named(text, names), dialect, speaker)


def _turn(message: dict[str, Any], bot: Bot, names: Mapping[str, str]) -> Turn | None:
    body = message.get("text")
    if not isinstance(body, str) or not body.strip():
        return None
    if is_own(message, bot):
        return Turn("assistant", body)
    if message.get("bot_id") or message.get("subtype") in _SKIPPED_SUBTYPES:
        return None  # other bots and system messages are not part of the conversation
    stripped = strip_mention(body, bot)
    user = message.get("user")
    speaker = names.get(user, "") if isinstance(user, str) else ""
    return Turn("user", named(stripped, names), speaker) if stripped else None
