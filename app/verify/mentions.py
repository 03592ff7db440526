"""The Slack entities of an answer that name something in the workspace, and the one
deterministic change made to them: a ping (`<@U…>`, `<!subteam^S…>`) of someone who is not
in the conversation becomes their name as plain text, which pings nobody. Whether each one
exists and who is in the conversation is Slack's to say (app/slack/entities.py); this module
only reads and rewrites text. Code is never touched."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from app.verify.dialects import escape_mrkdwn
from app.verify.rules import links
from app.verify.scan import scan
from app.verify.verdict import Dialect

# https://<workspace>.slack.com/archives/<channel>/p<ts without its dot>[?thread_ts=…]
PERMALINK = re.compile(
    r"https://[a-z0-9-]+(?:\.enterprise)?\.slack\.com/archives/([CDG][A-Z0-9]{2,})/p(\d{16})"
    r"(?:\?[^\s>|]*)?"
)
_USER = re.compile(r"@([UW][A-Z0-9]{2,})")
_GROUP = re.compile(r"!subteam\^([A-Z0-9]{2,})")
_CHANNEL = re.compile(r"#([CG][A-Z0-9]{2,})")
_THREAD = re.compile(r"[?&]thread_ts=(\d{10}\.\d{6})")
_FORMATTING = str.maketrans("", "", "*_`[]~")
_ANGLES = str.maketrans("", "", "<>")


@dataclass(frozen=True, slots=True)
class Message:
    """A Slack message an answer links to: its conversation, its ts, and its thread's ts."""

    url: str
    channel: str
    ts: str
    thread: str


@dataclass(frozen=True, slots=True)
class Mentions:
    """What an answer names in Slack, outside code."""

    users: frozenset[str]  # pinged people (U…/W…)
    groups: frozenset[str]  # pinged user groups (S…)
    channels: frozenset[str]  # linked conversations
    messages: tuple[Message, ...]  # linked Slack messages


def mentions(text: str) -> Mentions:
    """The people, groups, channels and Slack messages `text` names outside code."""
    layout = scan(text)
    users: set[str] = set()
    groups: set[str] = set()
    channels: set[str] = set()
    urls = [url for _, _, url in links(layout)]
    for entity in layout.entities:
        for pattern, found in ((_USER, users), (_GROUP, groups), (_CHANNEL, channels)):
            if (matched := pattern.fullmatch(entity.target)) is not None:
                found.add(matched.group(1))
    return Mentions(frozenset(users), frozenset(groups), frozenset(channels), _messages(urls))


def _messages(urls: list[str]) -> tuple[Message, ...]:
    found: dict[str, Message] = {}
    for url in urls:
        linked = PERMALINK.match(url)
        if linked is None:
            continue
        channel, digits = linked.groups()
        ts = f"{digits[:10]}.{digits[10:]}"
        thread = _THREAD.search(linked.group())
        message = Message(linked.group(), channel, ts, thread[1] if thread else ts)
        found.setdefault(linked.group(), message)
    return tuple(found.values())


def unping(text: str, names: Mapping[str, str], dialect: Dialect) -> str:
    """`text` with each ping of an id in `names` (people and groups) written as "@name":
    plain text, no ping. Code and every other entity are left as they are."""
    layout = scan(text)
    pieces, last = [], 0
    for entity in layout.entities:
        matched = _USER.fullmatch(entity.target) or _GROUP.fullmatch(entity.target)
        if matched is None or matched.group(1) not in names:
            continue
        pieces += [text[last : entity.start], _plain(names[matched.group(1)], dialect)]
        last = entity.end
    return "".join([*pieces, text[last:]])


def _plain(name: str, dialect: Dialect) -> str:
    """A name as text that pings no one and formats nothing, in `dialect`."""
    name = " ".join(name.lstrip("@").split()).translate(_FORMATTING)
    return "@" + (escape_mrkdwn(name) if dialect == "mrkdwn" else name.translate(_ANGLES))
