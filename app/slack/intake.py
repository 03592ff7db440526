"""HTTP intake, in front of Bolt: signature, filter, durable record, ack. Nothing else
happens before Slack gets its 200 (no auth.test, no Slack or model call), so a fresh
instance acks as fast as a warm one, and a message is on disk before it is acked.

Only user-message events (`app_mention`, `message`) come this way; everything else
(URL verification, interactions, App Home) goes on to Bolt. Socket Mode still goes
through Bolt's listeners, which record the same way.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.signature import SignatureVerifier

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
        payload = _message_event(body)
        if payload is None or not verifier.is_valid_request(body, dict(request.headers)):
            return await handler(request)  # Bolt answers (and refuses a bad signature)
        event, context = payload
        try:
            await listeners.take(event, context)
        except RecordUnavailable:  # logged by the record; Slack delivers it again
            return web.json_response({"ok": False, "error": "record_unavailable"}, status=503)
        return web.Response(status=200)

    return take_in


def _message_event(body: bytes) -> tuple[dict[str, Any], AsyncBoltContext] | None:
    """The event and who it is for, when `body` is a user-message event callback."""
    try:
        payload = json.loads(body)
    except ValueError:
        return None
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
