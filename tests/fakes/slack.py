"""A loopback Slack Web API, scripted per test: records every call, keeps threads (so a
follow-up sees Vouch's earlier answer), and serves scripted faults per method."""

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

TEAM, BOT_USER, BOT_ID = "T0001", "UVOUCH", "BVOUCH"
MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yml"
# The scope reading a conversation's history needs, by conversation type.
HISTORY_SCOPES = {
    "channel": "channels:history",
    "group": "groups:history",
    "mpim": "mpim:history",
    "im": "im:history",
}


def granted() -> set[str]:
    """The bot scopes manifest.yml grants: what an installed Vouch's token carries."""
    return set(yaml.safe_load(MANIFEST.read_text())["oauth_config"]["scopes"]["bot"])


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


class Refused(Exception):
    """A method's ok:false answer, as Slack gives it for a call it will not do."""


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
    kinds: dict[str, str] = field(default_factory=dict)  # channel id -> conversation type
    scopes: set[str] = field(default_factory=granted)  # the token's scopes
    _posted: list[float] = field(default_factory=list)  # ts of the messages posted
    # A commercially distributed non-Marketplace app: conversations.replies once a minute,
    # 15 messages a page (Slack's rate-limit changes for such apps, 2025).
    non_marketplace: bool = False
    _replies_at: float | None = None

    def fail(self, method: str, *faults: Fault) -> None:
        self.faults[method].extend(faults)

    def reset(self) -> None:
        self.calls.clear()
        self.threads.clear()
        self.faults.clear()
        self.streaming.clear()
        self.kinds.clear()
        self.scopes = granted()
        self._posted.clear()
        self.non_marketplace = False
        self._replies_at = None

    def of(self, method: str) -> list[dict[str, Any]]:
        return [call.params for call in self.calls if call.method == method]

    def text_sent(self) -> str:
        """Every byte of text any call carried, for "never shown" assertions."""
        return "\n".join(json.dumps(call.params, ensure_ascii=False) for call in self.calls)

    def start(self) -> str:
        super().start()
        self.url += "/api/"
        return self.url

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/api/{method}", self._handle)

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            params.update(await request.json())
        elif request.method == "POST":
            params.update(await request.post())
        self.calls.append(Call(method, params))
        if self.faults[method]:
            fault = self.faults[method].popleft()
            if fault.delay:
                await asyncio.sleep(fault.delay)
            if fault.drop and request.transport is not None:
                request.transport.close()
                return web.Response(status=500)
            retry = fault.retry_after
            headers = {"Retry-After": str(retry)} if retry is not None else {}
            body = {"ok": False, "error": fault.error}
            return web.json_response(body, status=fault.status, headers=headers)
        if method == "conversations.replies" and self._limited():
            body = {"ok": False, "error": "ratelimited"}
            return web.json_response(body, status=429, headers={"Retry-After": "60"})
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        if handler is None:
            return web.json_response({"ok": False, "error": "unknown_method"})
        try:
            return web.json_response({"ok": True, **handler(params)})
        except Refused as refused:
            return web.json_response({"ok": False, "error": str(refused)})

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
        page: dict[str, Any] = {"messages": messages[start:end], "has_more": end < len(messages)}
        if end < len(messages):
            page["response_metadata"] = {"next_cursor": str(end)}
        return page

    def _chat_postMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        _markdown_alone(params)
        return self._post(params)

    def _post(self, params: dict[str, Any]) -> dict[str, Any]:
        ts = self._ts(params)
        message = {"ts": ts, "user": BOT_USER, "bot_id": BOT_ID, "text": _shown(params)}
        thread = params.get("thread_ts") or ts
        self.threads.setdefault((params["channel"], thread), []).append(message)
        return {"channel": params["channel"], "ts": ts, "message": message}

    def _chat_update(self, params: dict[str, Any]) -> dict[str, Any]:
        _markdown_alone(params)
        if params["ts"] in self.streaming:
            raise Refused("streaming_state_conflict")
        for messages in self.threads.values():
            for message in messages:
                if message["ts"] == params["ts"]:
                    message["text"] = _shown(params)
        return {"channel": params["channel"], "ts": params["ts"]}

    def _chat_startStream(self, params: dict[str, Any]) -> dict[str, Any]:
        _within_limit(params)
        posted = self._post(params)
        self.streaming.add(posted["ts"])
        return {"channel": params["channel"], "ts": posted["ts"]}

    def _chat_appendStream(self, params: dict[str, Any]) -> dict[str, Any]:
        self._extend(params)
        return {"channel": params["channel"], "ts": params["ts"]}

    def _chat_stopStream(self, params: dict[str, Any]) -> dict[str, Any]:
        self._extend(params)
        self.streaming.discard(params["ts"])
        return {"channel": params["channel"], "ts": params["ts"]}

    def _extend(self, params: dict[str, Any]) -> None:
        _within_limit(params)
        if params["ts"] not in self.streaming:
            raise Refused("message_not_in_streaming_state")
        for messages in self.threads.values():
            for message in messages:
                if message["ts"] == params["ts"]:
                    message["text"] += params.get("markdown_text") or ""

    def _assistant_threads_setStatus(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _assistant_threads_setSuggestedPrompts(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}


MARKDOWN_LIMIT = 12_000  # characters of markdown_text, or of all markdown blocks, per call


def _markdown_alone(params: dict[str, Any]) -> None:
    """chat.postMessage and chat.update take `markdown_text` only on its own, and at most
    12,000 characters of Markdown (in markdown_text or markdown blocks) in one message."""
    if "markdown_text" in params and ("text" in params or "blocks" in params):
        raise Refused("markdown_text_conflict")
    _within_limit(params)
    if len(_markdown_blocks(params)) > MARKDOWN_LIMIT:
        raise Refused("invalid_blocks")


def _within_limit(params: dict[str, Any]) -> None:
    if len(params.get("markdown_text") or "") > MARKDOWN_LIMIT:
        raise Refused("msg_too_long")


def _markdown_blocks(params: dict[str, Any]) -> str:
    blocks = params.get("blocks")
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    return "".join(b["text"] for b in blocks or [] if b.get("type") == "markdown")


def _shown(params: dict[str, Any]) -> str:
    """What a message shows: its markdown blocks, or its text, or its markdown_text."""
    return _markdown_blocks(params) or params.get("text") or params.get("markdown_text", "")
