"""Intake, in front of Bolt: a user message is recorded durably, then acked. Nothing else
happens before Slack gets its ack (no auth.test, no Slack or model call), so a fresh
instance acks as fast as a warm one, and a message is on disk before it is acked; the
workers answer later and ask auth.test then.

`/vouch <question>` is taken in the same way (`Intake.take_command`), and its ack tells
its user, privately, that an answer is on its way (Slack sends a command only once).

Both transports share one sorter (`app.slack.events.sort`) and one way in (`Intake.take`):
every message event goes to the thread log; one a person addressed to Vouch (a mention, a
DM, a follow-up in its thread) goes to the store, for a worker to answer, and so does a
person's new top-level message in a help channel (`unasked`: the worker decides whether it
is a question to take, app/slack/triage.py).

- HTTP: `signed` answers 401 to a request whose signature does not hold, before its body
  is parsed; `take_in` parses it (depth bounded), records a message, and answers 200.
- Socket Mode: a handler in place of Bolt's records an `events_api` envelope, then sends
  its ack (`{"envelope_id"}`).

When recording fails (Redis unreachable, a locked or full disk) the event is refused —
HTTP 503, no Socket Mode ack — so Slack delivers it again (Bolt's adapter sends no ack for
a non-200 answer either). An event Vouch does not handle, or one whose fields have the
wrong type, is acked and dropped with a logged reason (`Dropped`).

URL verification, interactions and the App Home go on to Bolt.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.signature import SignatureVerifier
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from app.channels import ChannelSettings, ChannelsFile
from app.errors import label
from app.slack.events import (
    SHORTCUT_EVENT,
    Dropped,
    Malformed,
    Taken,
    cleaned,
    command_event,
    parse,
    person,
    shortcut_event,
    sort,
)
from app.slack.files import recorded
from app.slack.history import ThreadHistory
from app.slack.thread import Bot
from app.work.store import Store, StoreUnavailable, message_key
from app.work.workers import Workers

log = logging.getLogger("vouch.slack")

PATH = "/slack/events"
_ANSWERED_SUBTYPES = frozenset({None, "file_share", "thread_broadcast"})
# What the store keeps of an event: what answering it needs.
STORED = (
    "type",
    "channel",
    "ts",
    "thread_ts",
    "user",
    "text",
    "channel_type",
    "subtype",
    "assistant_thread",  # its action_token: Real-time Search (app/slack/search.py)
    "action_token",  # the same, where an event carries it at the top
    "author",  # a shortcut's: who wrote the message asked about
    "key_ts",  # a shortcut's: the ts it is recorded under (its action_ts)
    "response_url",  # a shortcut's or a command's: where to answer privately (30 minutes)
)
# What `/vouch` answers at once, in its ack (only its user sees it): fixed words.
TAKEN_IN = "Checking an answer for you. Only you will see it, with a button to share it."
NOT_HERE = "I don't answer in this channel. Ask me in a direct message instead."
NOT_TAKEN = "I couldn't take that in just now. Please try again in a minute."


@dataclass(frozen=True, slots=True, kw_only=True)
class Intake:
    """Takes message events in: into the thread log, and into the store when
    one is to be answered (then the workers are woken)."""

    threads: ThreadHistory
    store: Store
    workers: Workers
    channels: ChannelsFile  # per-channel settings: silent channels, follow-ups
    follow_ups: bool  # FOLLOW_UPS: thread replies answered without a mention

    async def on_message(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        """`app_mention` and `message` events Bolt hands over (those the intake leaves to
        it: no bot authorization in the envelope), read as the intake reads its own."""
        read = cleaned(event)
        if isinstance(read, Dropped):
            log.info("event dropped: %s", read.reason)
            return
        await self.take(read, context)

    async def take(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        """A message event (app.slack.events.cleaned) or a shortcut taken in
        (app.slack.events.shortcut_event), from either transport or Bolt. Raises when the
        store cannot be written: the caller must not ack then."""
        team = context.team_id or event.get("team") or ""
        here = self.channels.of(str(event.get("channel") or ""))
        if event.get("type") == SHORTCUT_EVENT:  # a person clicked: no new message to keep
            if here.answer:
                await self._store(event, team, by=event["key_ts"])
            else:
                log.info("shortcut in a channel where Vouch stays silent: nothing stored")
            return
        self.threads.keep(team, event, Bot(context.bot_user_id or "", context.bot_id or ""))
        if not person(event, context.bot_user_id):
            return  # only people make Vouch act: never a bot, never Vouch itself
        if not here.answer:
            return  # CHANNELS_FILE: Vouch stays silent here (nothing stored, no model call)
        taken = self._taken(event, here, context.bot_user_id)
        if taken is not None:
            await self._store(event, team, follow_up=taken == "follow_up", unasked=taken == "help")

    async def take_command(self, event: dict[str, Any]) -> str:
        """`/vouch` taken in (app.slack.events.command_event): recorded under its key,
        unless its channel is one Vouch stays silent in; what its ack tells its user."""
        if not self.channels.of(event["channel"]).answer:
            log.info("slash command in a channel where Vouch stays silent: nothing stored")
            return NOT_HERE
        try:
            await self._store(event, event["team"])
        except Exception as exc:  # Slack does not send a command again: its user is told
            _refused(exc)
            return NOT_TAKEN
        return TAKEN_IN

    def _taken(
        self, event: dict[str, Any], here: ChannelSettings, bot_user_id: str | None
    ) -> Literal["asked", "follow_up", "help"] | None:
        """Whether a person's message event is stored, and as what: asked (a mention, a
        DM), a follow-up in a thread (the worker checks Vouch is in it), or a help
        channel's new top-level message (the worker triages it)."""
        if event.get("type") == "app_mention":
            return "asked"
        if event.get("subtype") not in _ANSWERED_SUBTYPES:
            return None  # edits, deletions, joins: no model call
        if event.get("channel_type") == "im":
            return "asked"
        if f"<@{bot_user_id}" in event.get("text", ""):
            return None  # a mention: its app_mention event is the one answered
        if event.get("thread_ts"):
            on = self.follow_ups if here.follow_ups is None else here.follow_ups
            return "follow_up" if on else None
        return "help" if here.help_channel else None

    async def on_shortcut(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """ "Ask Vouch about this", when Bolt hands it over (the transports take it in
        first, as they take events, app.slack.events.sort): recorded, then acked."""
        asked = shortcut_event(body)
        if isinstance(asked, Dropped):
            log.info("shortcut dropped: %s", asked.reason)
        else:
            await self.take(asked, AsyncBoltContext(team_id=asked["team"]))
        await ack()

    async def _store(
        self,
        event: dict[str, Any],
        team: str,
        follow_up: bool = False,
        unasked: bool = False,
        by: str | None = None,  # the ts the message is recorded under, when not its own
    ) -> None:
        """Store the message durably for a worker to answer (once: a copy is dropped).
        StoreUnavailable goes up: the intake refuses the event (HTTP 503, no Socket Mode
        ack), so Slack delivers it again."""
        if not all(isinstance(event.get(name), str) for name in ("channel", "ts")):
            log.warning("event without a channel or ts ignored")  # nowhere to answer
            return
        channel, ts = event["channel"], by or event["ts"]
        thread = message_key(team, channel, event.get("thread_ts") or event["ts"])
        kept = {k: event[k] for k in STORED if k in event}
        kept |= {"team": team, "follow_up": follow_up, "unasked": unasked}
        if event.get("files"):
            kept["files"] = recorded(event["files"])
        if not await self.store.put(message_key(team, channel, ts), thread, ts, kept):
            log.info("duplicate delivery ignored")
            return
        self.workers.start()
        self.workers.wake()


def signed(secret: str, path: str = PATH) -> Middleware:
    """The aiohttp middleware that answers 401 to a request to `path` whose signature
    (HMAC of Slack's signing secret over its timestamp and body) is wrong, missing or more
    than five minutes old, before anything reads the body as JSON."""
    verifier = SignatureVerifier(secret)

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "POST" and request.path == path:
            body = await request.read()
            if not _valid(verifier, body, dict(request.headers)):
                log.info("request with no valid signature refused (%d bytes)", len(body))
                return web.json_response({"ok": False, "error": "invalid_signature"}, status=401)
        return await handler(request)

    return check


def _valid(verifier: SignatureVerifier, body: bytes, headers: dict[str, str]) -> bool:
    try:
        return verifier.is_valid_request(body, headers)
    except ValueError:  # a timestamp that is not a number, a body that is not UTF-8
        return False


def intake(taker: Intake, path: str = PATH) -> Middleware:
    """The aiohttp middleware that takes user messages in before Bolt sees them (behind
    `signed`)."""

    @web.middleware
    async def take_in(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method != "POST" or request.path != path:
            return await handler(request)
        body = await request.read()
        fields = _command(body)
        if fields is not None:  # /vouch: its ack carries what its user is told
            told = await take_command(taker, fields)
            return web.json_response(told) if told else web.Response(status=200)
        try:
            payload = _payload(body)
        except Malformed as exc:
            log.warning("malformed request body refused: %s", exc)
            return web.json_response({"ok": False, "error": "malformed_body"}, status=400)
        sorted_ = sort(payload) if payload is not None else None
        if sorted_ is None:
            return await handler(request)
        return await take(taker, sorted_)

    return take_in


def _command(body: bytes) -> dict[str, str] | None:
    """A slash command's form (`command=/vouch&text=…`), its fields; None for anything else."""
    if body.lstrip().startswith(b"{") or b"command=" not in body:
        return None
    try:
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=32)
    except ValueError:  # more fields than Slack sends: not a command's form
        return None
    if "command" not in fields or "payload" in fields:
        return None
    return {name: values[0] for name, values in fields.items()}


async def take_command(taker: Intake, fields: dict[str, Any]) -> dict[str, str]:
    """Take `/vouch` in; the ack's body: what its user sees at once (for a command Vouch
    drops, what it tells them, or nothing)."""
    taken = command_event(fields)
    if isinstance(taken, Dropped):
        dropped(taken)
        return {"response_type": "ephemeral", "text": taken.told} if taken.told else {}
    return {"response_type": "ephemeral", "text": await taker.take_command(taken.event)}


def _payload(body: bytes) -> Any:
    """What a request carries: an Events API body (JSON), or an interaction's `payload`
    (a form field holding JSON); None for anything else (a slash command's form)."""
    if body.lstrip().startswith(b"{"):
        return parse(body)
    if not body.startswith(b"payload="):
        return None
    try:
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=8)
    except ValueError:  # not an interaction's form: Bolt's to answer
        return None
    return parse((fields.get("payload") or [""])[0].encode())


async def take(taker: Intake, sorted_: Taken | Dropped) -> web.Response:
    """Store a message event (200; 503 when it cannot be recorded, so Slack delivers it
    again), or drop an event with its reason logged (200)."""
    if isinstance(sorted_, Dropped):
        dropped(sorted_)
        return web.Response(status=200)
    try:
        await taker.take(sorted_.event, sorted_.context)
    except Exception as exc:  # not recorded: refused, so Slack delivers it again
        _refused(exc)
        return web.json_response({"ok": False, "error": "not_recorded"}, status=503)
    return web.Response(status=200)


def dropped(event: Dropped) -> None:
    """An event acked and dropped: why, in the log."""
    if event.warning:
        log.warning("event dropped: %s", event.reason)
    else:
        log.info("event dropped: %s", event.reason)


class SocketIntake(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler, with user messages recorded and acked here: the ack
    goes out once the message is on disk, before any Slack call (Bolt would ask auth.test
    first, and not ack at all when that failed)."""

    def __init__(self, app: AsyncApp, taker: Intake, app_token: str) -> None:
        super().__init__(app, app_token)
        self.taker = taker

    async def handle(self, connection: AsyncBaseSocketModeClient, req: SocketModeRequest) -> None:
        if req.type == "slash_commands" and isinstance(req.payload, dict):  # /vouch
            told = await take_command(self.taker, req.payload)
            ack = SocketModeResponse(envelope_id=req.envelope_id, payload=told or None)
            await connection.send_socket_mode_response(ack)
            return
        taken = req.type in ("events_api", "interactive")  # events, and the shortcut
        sorted_ = sort(req.payload) if taken else None
        if sorted_ is None:
            await super().handle(connection, req)  # type: ignore[arg-type]  # it is Bolt's own
            return
        if isinstance(sorted_, Taken):
            try:
                await self.taker.take(sorted_.event, sorted_.context)
            except Exception as exc:  # unacked: Slack delivers it again
                _refused(exc)
                return
        else:
            dropped(sorted_)
        ack = SocketModeResponse(envelope_id=req.envelope_id)
        await connection.send_socket_mode_response(ack)  # the Socket Mode client, not Web API


def _refused(exc: Exception) -> None:
    """An event not recorded is refused; why is logged by type (the store says once that
    Redis is unreachable: not again for every event)."""
    if not isinstance(exc, StoreUnavailable):
        log.error("event not recorded, refused: %s", label(exc))
