"""Slack's Socket Mode on loopback, as strict as the docs make it (docs.slack.dev: the
apps.connections.open reference and the Socket Mode guide):

- `apps.connections.open` takes an app-level token (`xapp-…`) in the Authorization header
  of a POST. No token there: `not_authed` (the docs: a token passed as a POST parameter
  "will result in an error"; the fake gives this one); a bot or user token:
  `not_allowed_token_type`; anything else: `invalid_auth`; not a POST: `insecure_request`.
  It answers a `ws://` loopback URL with a ticket; the WebSocket refuses other tickets.
- On connecting, the app gets `hello`; then the envelopes a test pushes
  (`{"envelope_id", "type": "events_api", "payload", "accepts_response_payload": false,
  "retry_attempt", "retry_reason"}`).
- The app acks with `{"envelope_id"}` (and a `payload` only where the envelope accepts
  one). Acks are recorded with their arrival time; anything else the app sends is refused
  and noted in `refused` (not JSON, no envelope_id, an envelope not sent on that
  connection, a second ack, a payload not accepted), never counted as an ack.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

APP_ID = "A0001"


@dataclass(frozen=True)
class Ack:
    envelope_id: str
    at: float = field(default_factory=time.monotonic)  # arrival, beside Call.at
    payload: dict[str, Any] | None = None


@dataclass(frozen=True)
class Envelope:
    envelope_id: str
    body: dict[str, Any]
    at: float = field(default_factory=time.monotonic)  # sent


def token_of(request: web.Request) -> str | None:
    """The bearer token of a Web API request's Authorization header."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return (token.strip() or None) if scheme == "Bearer" else None


class _Refused(Exception):
    pass


@dataclass(eq=False)
class SocketMode:
    """The Socket Mode side of the fake Slack; `push()` and `reset()` are called from the
    test's thread, everything else runs on the fake's loop."""

    acks: list[Ack] = field(default_factory=list)
    sent: list[Envelope] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # why, one word per refused frame
    _sockets: list[web.WebSocketResponse] = field(default_factory=list)
    _tickets: set[str] = field(default_factory=set)
    _on: dict[str, web.WebSocketResponse] = field(default_factory=dict)  # envelope -> socket
    _loop: asyncio.AbstractEventLoop | None = None
    _base: str = ""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def serve(self, loop: asyncio.AbstractEventLoop, base: str) -> None:
        self._loop, self._base = loop, base

    @property
    def connections(self) -> int:
        """Open connections that have had their `hello`."""
        return sum(not ws.closed for ws in self._sockets)

    def acked(self, envelope_id: str) -> Ack | None:
        return next((a for a in self.acks if a.envelope_id == envelope_id), None)

    def open(self, request: web.Request) -> dict[str, Any]:
        """apps.connections.open's answer (ok or not) for `request`."""
        token = token_of(request)
        if request.method != "POST":
            error = "insecure_request"
        elif token is None:
            error = "not_authed"
        elif token.startswith(("xoxb-", "xoxp-")):
            error = "not_allowed_token_type"
        elif not token.startswith("xapp-"):
            error = "invalid_auth"
        else:
            ticket = uuid.uuid4().hex
            self._tickets.add(ticket)
            return {"ok": True, "url": f"{self._base}?ticket={ticket}&app_id={APP_ID}"}
        return {"ok": False, "error": error}

    async def connection(self, request: web.Request) -> web.StreamResponse:
        if request.query.get("ticket") not in self._tickets:
            return web.json_response({"ok": False, "error": "invalid_ticket"}, status=401)
        ws = web.WebSocketResponse(timeout=1.0)
        await ws.prepare(request)
        self._sockets.append(ws)
        hello = {
            "type": "hello",
            "num_connections": self.connections,
            "debug_info": {"host": "fake-applink", "approximate_connection_time": 18060},
            "connection_info": {"app_id": APP_ID},
        }
        await ws.send_json(hello)
        async for frame in ws:
            if frame.type == WSMsgType.TEXT:
                self._receive(ws, frame.data)
            elif frame.type == WSMsgType.BINARY:
                self.refused.append("binary")
        return ws

    def _receive(self, ws: web.WebSocketResponse, text: str) -> None:
        try:
            self.acks.append(self._ack(ws, text))
        except _Refused as refused:
            self.refused.append(str(refused))

    def _ack(self, ws: web.WebSocketResponse, text: str) -> Ack:
        try:
            frame = json.loads(text)
        except ValueError:
            raise _Refused("not_json") from None
        if not isinstance(frame, dict) or not isinstance(frame.get("envelope_id"), str):
            raise _Refused("no_envelope_id")
        envelope_id = frame["envelope_id"]
        if self._on.get(envelope_id) is not ws:
            raise _Refused("unknown_envelope_id")
        if self.acked(envelope_id) is not None:
            raise _Refused("acked_twice")
        payload = frame.get("payload")
        if payload is not None:
            [sent] = [e for e in self.sent if e.envelope_id == envelope_id]
            if not sent.body["accepts_response_payload"] or not isinstance(payload, dict):
                raise _Refused("payload_not_accepted")
        return Ack(envelope_id, payload=payload)

    def push(self, payload: dict[str, Any], retry_attempt: int = 0, retry_reason: str = "") -> str:
        """Send an Events API payload in an envelope over the newest open connection (as
        Slack does when it retries, `retry_attempt` counts earlier deliveries); its id."""
        envelope_id = f"{next(self._ids):04d}-{uuid.uuid4()}"
        body = {
            "envelope_id": envelope_id,
            "type": "events_api",
            "payload": payload,
            "accepts_response_payload": False,
            "retry_attempt": retry_attempt,
            "retry_reason": retry_reason,
        }
        assert self._loop is not None, "the fake is not serving"
        asyncio.run_coroutine_threadsafe(self._send(envelope_id, body), self._loop).result(5)
        return envelope_id

    def interact(self, payload: dict[str, Any]) -> str:
        """Send an interaction (a shortcut, a click) in an `interactive` envelope, as Slack
        does: it accepts a response payload in the ack; never retried. Its id."""
        return self._answerable("interactive", payload)

    def command(self, fields: dict[str, str]) -> str:
        """Send a slash command in a `slash_commands` envelope, as Slack does: its payload
        the command's fields, a response payload accepted in the ack; never retried. Its id."""
        return self._answerable("slash_commands", fields)

    def _answerable(self, kind: str, payload: dict[str, Any]) -> str:
        """An envelope of `kind` whose ack may carry a response payload; its id."""
        envelope_id = f"{next(self._ids):04d}-{uuid.uuid4()}"
        body = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": True,
        }
        assert self._loop is not None, "the fake is not serving"
        asyncio.run_coroutine_threadsafe(self._send(envelope_id, body), self._loop).result(5)
        return envelope_id

    async def _send(self, envelope_id: str, body: dict[str, Any]) -> None:
        open_ = [ws for ws in self._sockets if not ws.closed]
        if not open_:
            raise AssertionError("no Socket Mode connection to push to")
        self._on[envelope_id] = open_[-1]
        self.sent.append(Envelope(envelope_id, body))
        await open_[-1].send_json(body)

    def reset(self) -> None:
        """Close every connection and forget every envelope, ack and ticket."""
        if self._loop is not None and self._loop.is_running() and self._sockets:
            asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(10)
        self.acks.clear()
        self.sent.clear()
        self.refused.clear()
        self._sockets.clear()
        self._tickets.clear()
        self._on.clear()

    async def _close(self) -> None:
        await asyncio.gather(*(ws.close() for ws in self._sockets if not ws.closed))
