"""Intake, in front of Bolt: a user message is recorded durably, then acked. Nothing else
happens before Slack gets its ack (no auth.test, no Slack or model call), so a fresh
instance acks as fast as a warm one, and a message is on disk before it is acked; the
workers answer later and ask auth.test then.

Both transports share one parser (`message_event`) and one record (`Listeners.take`):

- HTTP: an aiohttp middleware checks the signature, records, and answers 200.
- Socket Mode: a handler in place of Bolt's records an `events_api` envelope, then sends
  its ack (`{"envelope_id"}`).

When recording fails (Redis unreachable, a locked or full disk) the event is refused —
HTTP 503, no Socket Mode ack — so Slack delivers it again (Bolt's adapter sends no ack for
a non-200 answer either).

Only user-message events (`app_mention`, `message`) come this way; everything else
(URL verification, interactions, App Home) goes on to Bolt.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.signature import SignatureVerifier
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from app.errors import label
from app.slack.listeners import Listeners
from app.work.record import RecordUnavailable

log = logging.getLogger("vouch.slack")

TAKEN = frozenset({"app_mention", "message"})


def intake(secret: str, listeners: Listeners, path: str = "/slack/events") -> Middleware:
    """The aiohttp middleware that takes user messages in before Bolt sees them."""
    verifier = SignatureVerifier(secret)

    @web.middleware
    async def take_in(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method != "POST" or request.path != path:
            return await handler(request)
        body = await request.read()
        try:
            taken = message_event(json.loads(body))
        except ValueError:
            taken = None
        if taken is None or not verifier.is_valid_request(body, dict(request.headers)):
            return await handler(request)  # Bolt answers (and refuses a bad signature)
        event, context = taken
        try:
            await listeners.take(event, context)
        except Exception as exc:  # not recorded: refused, so Slack delivers it again
            _refused(exc)
            return web.json_response({"ok": False, "error": "not_recorded"}, status=503)
        return web.Response(status=200)

    return take_in


class SocketIntake(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler, with user messages recorded and acked here: the ack
    goes out once the message is on disk, before any Slack call (Bolt would ask auth.test
    first, and not ack at all when that failed)."""

    def __init__(self, app: AsyncApp, listeners: Listeners, app_token: str) -> None:
        super().__init__(app, app_token)
        self.listeners = listeners

    async def handle(self, connection: AsyncBaseSocketModeClient, req: SocketModeRequest) -> None:
        taken = message_event(req.payload) if req.type == "events_api" else None
        if taken is None:
            await super().handle(connection, req)  # type: ignore[arg-type]  # it is Bolt's own
            return
        event, context = taken
        try:
            await self.listeners.take(event, context)
        except Exception as exc:  # unacked: Slack delivers it again
            _refused(exc)
            return
        ack = SocketModeResponse(envelope_id=req.envelope_id)
        await connection.send_socket_mode_response(ack)  # the Socket Mode client, not Web API


def _refused(exc: Exception) -> None:
    """An event not recorded is refused; why is logged by type (the record says once that
    Redis is unreachable: not again for every event)."""
    if not isinstance(exc, RecordUnavailable):
        log.error("event not recorded, refused: %s", label(exc))


def message_event(payload: Any) -> tuple[dict[str, Any], AsyncBoltContext] | None:
    """The event and who it is for, when `payload` (an Events API body, over HTTP or in a
    Socket Mode envelope) is a user-message event callback; None for anything else."""
    if not isinstance(payload, dict) or payload.get("type") != "event_callback":
        return None
    event = payload.get("event")
    if not isinstance(event, dict) or event.get("type") not in TAKEN:
        return None
    bots = [
        a for a in payload.get("authorizations") or () if isinstance(a, dict) and a.get("is_bot")
    ]
    if not bots or not isinstance(bots[0].get("user_id"), str):
        return None  # Bolt's way: it asks auth.test
    team = payload.get("team_id") if isinstance(payload.get("team_id"), str) else ""
    return event, AsyncBoltContext(team_id=team, bot_user_id=bots[0]["user_id"])
