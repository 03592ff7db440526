"""Who will read an answer, and what may go into it: the one audience rule, failing closed.

An answer is read by everyone in the conversation it is posted in (Y). Content read from
conversation X may go into it only if everyone who can read Y can also read X:

- X is Y (a thread of Y is Y); or
- X is a public channel of Y's workspace, and Y is shared with no other workspace or
  organisation (Slack Connect, org-shared, or an invitation pending); or
- Y is the asker's own DM with Vouch, and the asker is a member of X.

So never another person's DM with Vouch, never a group DM or private channel the asker is
not in, never anything of another conversation into a Slack Connect channel. The rule is
decided from Slack's own answers (app/slack/conversations.py); when Slack cannot tell (an
error, a rate limit, a timeout, a conversation it does not show) nothing is read.

Every reader of content from elsewhere asks it before it reads: `read_slack_link`
(app/slack/reader.py), `search_slack`'s results (app/slack/search.py), and the team's docs,
which a Slack Connect channel gets only from a folder of its own in CHANNELS_FILE
(`app.deps.ChannelDeps`). Files are read only from the answer's own thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.slack.conversations import Conversations, Place

# Why content is not shown (told to the model as a tool's error, and to telemetry).
Refusal = Literal[
    "private_to_others",  # a DM or private conversation not everyone here is in
    "shared_channel",  # this conversation is shared outside the workspace
    "other_workspace",  # a public channel of another workspace
    "audience_unknown",  # Slack did not say: read nothing
]


def refusal(
    source: Place, answer: Place, asker: str, asker_in_source: bool | None
) -> Refusal | None:
    """Why content of `source` may not go into an answer posted in `answer` for `asker`
    (None: it may). `asker_in_source`: whether Slack lists the asker in `source` (None:
    not asked, or Slack did not say)."""
    own_dm = answer.kind == "im" and bool(asker) and answer.user == asker
    if source.id == answer.id or (own_dm and asker_in_source):
        return None
    if source.kind == "public":
        if answer.shared:
            return "shared_channel"
        return None if source.team and source.team == answer.team else "other_workspace"
    return "audience_unknown" if own_dm and asker_in_source is None else "private_to_others"


@dataclass(frozen=True, slots=True)
class Where:
    """Where an answer goes: the conversation, the workspace the event came from (for a
    conversation Slack gives no workspace), and who asked."""

    channel: str
    team: str
    asker: str


class Audience:
    """The rule, asked of Slack: may content of a conversation go into an answer here?"""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations

    async def answer_place(self, where: Where) -> Place | None:
        """The conversation the answer goes to (its workspace filled in from the event
        when Slack gives none); None when Slack did not say."""
        place = await self.conversations.place(where.channel)
        if place is not None and not place.team:
            return Place(place.id, place.kind, where.team, place.shared, place.external, place.user)
        return place

    async def check(self, source: str, where: Where) -> Refusal | None:
        """Why content of conversation `source` may not go into an answer at `where`
        (None: it may)."""
        if source == where.channel:
            return None
        answer = await self.answer_place(where)
        found = await self.conversations.place(source)
        if answer is None or found is None:
            return "audience_unknown"
        asker_in = None
        if answer.kind == "im" and answer.user == where.asker and found.kind != "public":
            members = await self.conversations.members(source)
            asker_in = None if members is None else where.asker in members
        return refusal(found, answer, where.asker, asker_in)

    async def outside(self, where: Where) -> bool:
        """Whether people of another organisation read this conversation (Slack Connect),
        or Slack did not say: then the team's docs are not for it."""
        answer = await self.answer_place(where)
        return answer is None or answer.external
