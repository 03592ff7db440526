"""A loopback Slack Web API, scripted per test: records every call, keeps threads (so a
follow-up sees Vouch's earlier answer), and serves scripted faults per method. It also
serves Socket Mode: `apps.connections.open` and the WebSocket it hands out, over which a
test pushes envelopes and the fake records the acks (tests/fakes/slack_socket.py)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from aiohttp import web

from tests.fakes.server import LoopbackServer
from tests.fakes.slack_limits import (
    Refused,
    blocks_of,
    check_blocks,
    check_markdown,
    check_message,
    metadata_of,
    shown,
)
from tests.fakes.slack_socket import SocketMode, token_of

TEAM, BOT_USER, BOT_ID = "T0001", "UVOUCH", "BVOUCH"
MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yml"
# The scope reading a conversation's history needs, by conversation type.
HISTORY_SCOPES = {
    "channel": "channels:history",
    "group": "groups:history",
    "mpim": "mpim:history",
    "im": "im:history",
}
# The bot scopes each method takes, from its docs.slack.dev reference page (any one will
# do). conversations.replies needs a history scope by conversation type (HISTORY_SCOPES).
# assistant.threads.setStatus: chat:write, and assistant:write "for the time being"
# (changelog 2026-03-05).
METHOD_SCOPES: dict[str, tuple[str, ...]] = {
    "auth.test": (),
    "chat.postMessage": ("chat:write",),
    "chat.update": ("chat:write",),
    "chat.startStream": ("chat:write",),
    "chat.appendStream": ("chat:write",),
    "chat.stopStream": ("chat:write",),
    "assistant.threads.setStatus": ("chat:write", "assistant:write"),
    "assistant.threads.setSuggestedPrompts": ("assistant:write",),
}
STOPPED_BY_USER = "stopped_by_user"  # a stream's answer once the user pressed stop


def granted(manifest: Path = MANIFEST) -> set[str]:
    """The bot scopes a manifest grants: what the token of an app installed from it
    carries (by default manifest.yml, an installed Vouch's)."""
    return set(yaml.safe_load(manifest.read_text())["oauth_config"]["scopes"]["bot"])


@dataclass(frozen=True)
class Call:
    method: str
    params: dict[str, Any]
    at: float = field(default_factory=time.monotonic)  # arrival, for latency measurements


@dataclass(frozen=True)
class Fault:
    status: int = 200
    error: str = "internal_error"  # the `error` of an ok:false body
    retry_after: int | None = None
    drop: bool = False  # close the connection without answering (a connection reset)
    delay: float = 0.0  # wait this long first (beyond the client's timeout: a timeout)
    # error=STOPPED_BY_USER on chat.appendStream or chat.stopStream: the user pressed stop
    # on that message; the stream is over and every later append or stop answers the same


def signed_headers(body: bytes, secret: str, age: float = 0) -> dict[str, str]:
    """Headers Slack sends with an Events API request: v0 HMAC-SHA256 over the timestamp
    and the raw body. `age` backdates the timestamp (a replay)."""
    timestamp = str(int(time.time() - age))
    digest = hmac.new(secret.encode(), f"v0:{timestamp}:".encode() + body, hashlib.sha256)
    return {
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": "v0=" + digest.hexdigest(),
        "Content-Type": "application/json",
    }


@dataclass(eq=False)
class FakeSlack(LoopbackServer):
    calls: list[Call] = field(default_factory=list)
    threads: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    faults: dict[str, deque[Fault]] = field(default_factory=lambda: defaultdict(deque))
    streaming: set[str] = field(default_factory=set)  # ts of messages still streaming
    stopped: set[str] = field(default_factory=set)  # ts of streams the user stopped
    kinds: dict[str, str] = field(default_factory=dict)  # channel id -> conversation type
    scopes: set[str] = field(default_factory=granted)  # the token's scopes
    _posted: list[float] = field(default_factory=list)  # ts of the messages posted
    # A commercially distributed non-Marketplace app: conversations.replies once a minute,
    # 15 messages a page (Slack's rate-limit changes for such apps, 2025).
    non_marketplace: bool = False
    _replies_at: float | None = None
    socket: SocketMode = field(default_factory=SocketMode)  # Socket Mode: envelopes, acks

    def fail(self, method: str, *faults: Fault) -> None:
        self.faults[method].extend(faults)

    def reset(self) -> None:
        self.calls.clear()
        self.threads.clear()
        self.faults.clear()
        self.streaming.clear()
        self.stopped.clear()
        self.kinds.clear()
        self.scopes = granted()
        self._posted.clear()
        self.non_marketplace = False
        self._replies_at = None
        self.socket.reset()

    def of(self, method: str) -> list[dict[str, Any]]:
        return [call.params for call in self.calls if call.method == method]

    def text_sent(self) -> str:
        """Every byte of text any call carried, for "never shown" assertions."""
        return "\n".join(json.dumps(call.params, ensure_ascii=False) for call in self.calls)

    def start(self) -> str:
        super().start()
        self.socket.serve(self._loop, self.url.replace("http://", "ws://") + "/link/")
        self.url += "/api/"
        return self.url

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/api/{method}", self._handle)
        app.router.add_get("/link/", self.socket.connection)

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            params.update(await request.json())
        elif request.method == "POST":
            params.update(await request.post())
        self.calls.append(Call(method, params))
        if self.faults[method]:
            return await self._fault(self.faults[method].popleft(), params, request)
        if method == "apps.connections.open":
            return web.json_response(self.socket.open(request))
        if method == "conversations.replies" and self._limited():
            body = {"ok": False, "error": "ratelimited"}
            return web.json_response(body, status=429, headers={"Retry-After": "60"})
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        if handler is None:
            return web.json_response({"ok": False, "error": "unknown_method"})
        try:
            self._permit(method, token_of(request) or "")
            return web.json_response({"ok": True, **handler(params)})
        except Refused as refused:
            return web.json_response({"ok": False, "error": str(refused), **refused.extra})

    async def _fault(
        self, fault: Fault, params: dict[str, Any], request: web.Request
    ) -> web.Response:
        if fault.delay:
            await asyncio.sleep(fault.delay)
        if fault.drop and request.transport is not None:
            request.transport.close()
            return web.Response(status=500)
        if fault.error == STOPPED_BY_USER:
            self.streaming.discard(params["ts"])
            self.stopped.add(params["ts"])
        retry = fault.retry_after
        headers = {"Retry-After": str(retry)} if retry is not None else {}
        body = {"ok": False, "error": fault.error}
        return web.json_response(body, status=fault.status, headers=headers)

    def _permit(self, method: str, token: str) -> None:
        """not_allowed_token_type for an app-level token (it opens Socket Mode connections
        and nothing else Vouch calls); missing_scope, with Slack's `needed` and `provided`,
        when the token has none of the scopes the method takes (conversations.* check
        theirs per conversation)."""
        if token.startswith("xapp-"):
            raise Refused("not_allowed_token_type")
        accepted = METHOD_SCOPES.get(method, ())
        if accepted and not self.scopes.intersection(accepted):
            provided = ",".join(sorted(self.scopes))
            raise Refused("missing_scope", needed=accepted[0], provided=provided)

    def _limited(self) -> bool:
        """Whether a non-Marketplace app has had its one conversations.replies this minute."""
        if not self.non_marketplace:
            return False
        now = time.monotonic()
        if self._replies_at is not None and now - self._replies_at < 60:
            return True
        self._replies_at = now
        return False

    def _ts(self, params: dict[str, Any]) -> str:
        """A new message's ts: later than every message the fake knows of (its threads, the
        thread it goes to, what it posted), as Slack's time-ordered ts are; test events
        use small ones such as 107.000001."""
        known = [float(m["ts"]) for thread in self.threads.values() for m in thread if "ts" in m]
        root = [float(params["thread_ts"])] if params.get("thread_ts") else []
        ts = f"{max([*known, *root, *self._posted], default=0.0) + 0.000001:.6f}"
        self._posted.append(float(ts))
        return ts

    def _auth_test(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"user_id": BOT_USER, "bot_id": BOT_ID, "team_id": TEAM, "user": "vouch"}

    def kind(self, channel: str) -> str:
        """A conversation's type: as set in `kinds`, else by its id (D: a DM, G: a private
        channel, C: a public one)."""
        return self.kinds.get(channel) or {"D": "im", "G": "group"}.get(channel[:1], "channel")

    def _conversations_replies(self, params: dict[str, Any]) -> dict[str, Any]:
        """Oldest first, `limit` per page (1,000 at most) with a cursor, as Slack does;
        missing_scope when the token cannot read that type of conversation."""
        if HISTORY_SCOPES[self.kind(params["channel"])] not in self.scopes:
            raise Refused("missing_scope")
        messages = self.threads.get((params["channel"], params["ts"]), [])
        start = int(params.get("cursor") or 0)
        end = start + min(int(params.get("limit") or 1000), 15 if self.non_marketplace else 1000)
        page: dict[str, Any] = {
            "messages": _visible(messages[start:end], params),
            "has_more": end < len(messages),
        }
        if end < len(messages):
            page["response_metadata"] = {"next_cursor": str(end)}
        return page

    def _chat_postMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        check_message(params)
        return self._post(params)

    def _post(self, params: dict[str, Any]) -> dict[str, Any]:
        ts = self._ts(params)
        message = {"ts": ts, "user": BOT_USER, "bot_id": BOT_ID, "text": shown(params)}
        if (metadata := metadata_of(params)) is not None:
            message["metadata"] = metadata
        thread = params.get("thread_ts") or ts
        self.threads.setdefault((params["channel"], thread), []).append(message)
        return {"channel": params["channel"], "ts": ts, "message": message}

    def _chat_update(self, params: dict[str, Any]) -> dict[str, Any]:
        check_message(params)
        metadata = metadata_of(params)
        if params["ts"] in self.streaming:
            raise Refused("streaming_state_conflict")
        for message in self._messages(params["ts"]):
            message["text"] = shown(params)
            if metadata is not None:
                message["metadata"] = metadata
        return {"channel": params["channel"], "ts": params["ts"]}

    def _chat_startStream(self, params: dict[str, Any]) -> dict[str, Any]:
        """In a channel (anything but a DM) Slack needs to know whom the stream is for."""
        check_markdown(params)
        if self.kind(params["channel"]) != "im":
            for recipient in ("recipient_team_id", "recipient_user_id"):
                if not params.get(recipient):
                    raise Refused(f"missing_{recipient}")
        posted = self._post(params)
        self.streaming.add(posted["ts"])
        return {"channel": params["channel"], "ts": posted["ts"]}

    def _chat_appendStream(self, params: dict[str, Any]) -> dict[str, Any]:
        self._extend(params)
        return {"channel": params["channel"], "ts": params["ts"]}

    def _chat_stopStream(self, params: dict[str, Any]) -> dict[str, Any]:
        check_blocks(blocks_of(params))
        metadata = metadata_of(params)
        self._extend(params)
        self.streaming.discard(params["ts"])
        for message in self._messages(params["ts"]):
            if metadata is not None:
                message["metadata"] = metadata
        return {"channel": params["channel"], "ts": params["ts"]}

    def _extend(self, params: dict[str, Any]) -> None:
        check_markdown(params)
        if params["ts"] in self.stopped:
            raise Refused(STOPPED_BY_USER)
        if params["ts"] not in self.streaming:
            raise Refused("message_not_in_streaming_state")
        for message in self._messages(params["ts"]):
            message["text"] += params.get("markdown_text") or ""

    def _messages(self, ts: str) -> list[dict[str, Any]]:
        return [m for messages in self.threads.values() for m in messages if m["ts"] == ts]

    def _assistant_threads_setStatus(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _assistant_threads_setSuggestedPrompts(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}


def _visible(messages: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    """Messages as a history read returns them: with their `metadata` only when asked for
    with include_all_metadata (the SDK sends a bool as "1"; JSON bodies carry true)."""
    if params.get("include_all_metadata") in (True, "1", "true"):
        return messages
    return [{k: v for k, v in m.items() if k != "metadata"} for m in messages]
