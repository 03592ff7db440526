"""A loopback Slack Web API, scripted per test: records every call, keeps threads (so a
follow-up sees Vouch's earlier answer), and serves scripted faults per method. It also
serves Socket Mode: `apps.connections.open` and the WebSocket it hands out, over which a
test pushes envelopes and the fake records the acks (tests/fakes/slack_socket.py).

What a reading assistant needs, as strict as the method references (docs.slack.dev):
- `users.info` (users:read): a user added with `user()`; else user_not_found.
- `files.info` (files:read) and the file host behind url_private (tests/fakes/slack_files.py):
  a file added with `add_file()`; file_not_found for one the fake does not know or that was
  shared only where the bot is not a member, file_deleted for one deleted.
- `chat.getPermalink` (no scope): channel_not_found where the bot cannot see the channel,
  message_not_found for a message the fake does not hold.
- `conversations.history` (the history scope of the conversation's type): newest first,
  `latest`/`oldest` bounds (exclusive unless `inclusive`), `limit` (at most 999) and a cursor;
  with `latest=ts, inclusive=true, limit=1` it reads that one message.
- Membership (`joined`; None, the default, means every conversation): reading history or
  replies of, or posting or streaming into (chat:write without chat:write.public), a public
  channel the bot is not in is not_in_channel; any other conversation it is not in,
  channel_not_found (Slack does not reveal private conversations).
- An interaction's `response_url` (`response_url()` issues one, as Slack puts it in a
  shortcut's, a slash command's or a click's payload): a POSTed JSON message with `text` or
  `blocks` (within Block Kit's limits), `response_type` ephemeral or in_channel; Slack
  takes at most 5 within 30 minutes (past them the fake answers 404 "used_url" /
  "expired_url": an assumption, the docs name no status); kept in `responses`.
  `delete_original` (alone) or `replace_original` act on the message a click was on, so only
  a click's URL (`response_url(click=True)`) takes them; another's answers 400
  "no_original" (an assumption: Slack's own wording is not documented). Deletions are kept
  in `deleted`. A message POSTed to a click's URL replaces the message clicked unless it
  says `replace_original: false` (Slack's interactive-message docs give replacing as the
  default; whether that holds for an ephemeral message is not documented, so the fake
  takes the stricter reading): such URLs are kept in `replaced`.
- `assistant.search.context` (Real-time Search), only where the workspace allows it
  (`rts = True`; otherwise the fake does not serve it: unknown_method). A bot token must pass
  an `action_token` from a message event (`action_token()` issues one); the scopes are
  search:read.public for public channels and search:read.private, .mpim, .im for the other
  channel types; at most 20 results. The error names for a missing or unknown action_token
  (invalid_action_token) and a missing query (invalid_arguments) are assumptions: the
  method's reference lists no errors.
- `conversations.info` and `conversations.members` (the read scope of the conversation's type:
  channels:read, groups:read, im:read, mpim:read): a conversation set up with `conversation()`
  (its type, members, an im's person, whether it is shared: Slack Connect, org-shared or
  pending), else one by its id's type whose members are the people the fake knows. A private
  conversation the bot is not in, or one in `missing`, is channel_not_found; an im's object has
  no `is_private` (Slack's im object); members page by `limit` (1 to 999: "under 1000")
  with a cursor (invalid_cursor for one the fake did not give).
- `users.conversations` (the read scope of each type asked for): the conversations a person
  is in, of `types` (default public_channel; an unknown type is invalid_types), only those the
  bot shares with them when not public (Slack: "Non-public channels are restricted to those
  where the calling user shares membership"); `limit` 1 to 999 with a cursor; user_not_found
  for a person the fake does not know.
- `usergroups.list` (usergroups:read): the groups set up with `group()`, each with its
  users when asked with include_users.
- `views.publish` (no scope): a Home tab (tests/fakes/slack_limits.py `check_view`), kept per
  user in `homes`; not_enabled while the manifest's home_tab_enabled is false (`home_tab`),
  hash_conflict when a `hash` is given that is not the user's current view's.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import json
import secrets
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from aiohttp import web

from tests.fakes.server import LoopbackServer
from tests.fakes.slack_files import (
    Download,
    SlackFile,
    file_response,
    login_page,
    may_download,
    new_file_id,
)
from tests.fakes.slack_limits import (
    DISPLAY_MODES,
    Refused,
    blocks_of,
    check_blocks,
    check_markdown,
    check_message,
    check_view,
    chunks_of,
    markdown_in,
    metadata_of,
    shown,
)
from tests.fakes.slack_socket import SocketMode, token_of

TEAM, BOT_USER, BOT_ID = "T0001", "UVOUCH", "BVOUCH"
WORKSPACE_URL = "https://vouch-test.slack.com"  # where permalinks point (never fetched)
HISTORY_LIMIT = 999  # conversations.history: "maximum of 999"
SEARCH_LIMIT = 20  # assistant.search.context: results per call
# Real-time Search: the scope each channel type needs.
SEARCH_SCOPES = {
    "public_channel": "search:read.public",
    "private_channel": "search:read.private",
    "mpim": "search:read.mpim",
    "im": "search:read.im",
}
SEARCH_TYPES = {"channel": "public_channel", "group": "private_channel", "mpim": "mpim", "im": "im"}
MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yml"
# The scope reading a conversation's history needs, by conversation type.
HISTORY_SCOPES = {
    "channel": "channels:history",
    "group": "groups:history",
    "mpim": "mpim:history",
    "im": "im:history",
}
# The scope reading what a conversation is and who is in it needs, by conversation type.
READ_SCOPES = {
    "channel": "channels:read",
    "group": "groups:read",
    "mpim": "mpim:read",
    "im": "im:read",
}
MEMBERS_LIMIT = 999  # conversations.members: "specify a limit value under 1000"
EXTERNAL_TEAM = "T0EXTERNAL"  # the other organisation of a Slack Connect channel
# The bot scopes each method takes, from its docs.slack.dev reference page (any one will
# do). conversations.replies needs a history scope by conversation type (HISTORY_SCOPES).
# assistant.threads.setStatus: chat:write, and assistant:write "for the time being"
# (changelog 2026-03-05).
METHOD_SCOPES: dict[str, tuple[str, ...]] = {
    "auth.test": (),
    "chat.postMessage": ("chat:write",),
    "chat.postEphemeral": ("chat:write",),
    "chat.update": ("chat:write",),
    "chat.startStream": ("chat:write",),
    "chat.appendStream": ("chat:write",),
    "chat.stopStream": ("chat:write",),
    "assistant.threads.setStatus": ("chat:write", "assistant:write"),
    "assistant.threads.setSuggestedPrompts": ("assistant:write",),
    "users.info": ("users:read",),
    "files.info": ("files:read",),
    "chat.getPermalink": (),  # the reference lists no scope
    "assistant.search.context": ("search:read.public",),  # and more by channel type
    "views.publish": (),  # the reference lists no scope
    "usergroups.list": ("usergroups:read",),
    "users.conversations": tuple(READ_SCOPES.values()),
    "conversations.info": tuple(READ_SCOPES.values()),  # and the one of its type
    "conversations.members": tuple(READ_SCOPES.values()),
}
RESPONSE_URL_USES = 5  # "up to five times within 30 minutes" of the interaction
RESPONSE_URL_SECONDS = 1800


def _refused_response(body: Any, *, original: bool) -> str | None:
    """Why Slack would refuse a message POSTed to a response_url, or None."""
    if not isinstance(body, dict):
        return "invalid_payload"
    if body.get("delete_original") or body.get("replace_original"):
        if not original:
            return "no_original"
        if body.get("delete_original"):
            return None
    kind = body.get("response_type", "ephemeral")
    if kind not in ("ephemeral", "in_channel") or not (body.get("text") or body.get("blocks")):
        return "invalid_payload"
    try:
        check_message(body)
    except Refused as refused:
        return str(refused)
    return None


STOPPED_BY_USER = "stopped_by_user"  # a stream's answer once the user pressed stop


def granted(manifest: Path = MANIFEST) -> set[str]:
    """The bot scopes a manifest grants: what the token of an app installed from it
    carries (by default manifest.yml, an installed Vouch's)."""
    return set(_read(manifest, manifest.stat().st_mtime)["oauth_config"]["scopes"]["bot"])


def home_tab_enabled(manifest: Path = MANIFEST) -> bool:
    """Whether an app installed from the manifest has its Home tab on."""
    features = _read(manifest, manifest.stat().st_mtime)["features"]
    return bool(features["app_home"]["home_tab_enabled"])


@functools.cache
def _read(manifest: Path, modified: float) -> dict[str, Any]:
    """A manifest, parsed once per version of the file (every test's reset asks)."""
    return dict(yaml.safe_load(manifest.read_text()))


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


@dataclass
class Room:
    """A conversation set up by a test: its type, members (None: the people the fake
    knows), an im's person, and how it is shared ("ext": Slack Connect, "org": across an
    Enterprise organisation's workspaces, "pending": a Slack Connect invitation)."""

    kind: str
    members: list[str] | None = None
    user: str = ""
    shared: str | None = None
    team: str = TEAM


@dataclass(eq=False)
class FakeSlack(LoopbackServer):
    calls: list[Call] = field(default_factory=list)
    threads: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    faults: dict[str, deque[Fault]] = field(default_factory=lambda: defaultdict(deque))
    streaming: set[str] = field(default_factory=set)  # ts of messages still streaming
    steps: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # ts -> task and
    # plan updates streamed into that message, in the order Slack took them
    stopped: set[str] = field(default_factory=set)  # ts of streams the user stopped
    kinds: dict[str, str] = field(default_factory=dict)  # channel id -> conversation type
    scopes: set[str] = field(default_factory=granted)  # the token's scopes
    _posted: list[float] = field(default_factory=list)  # ts of the messages posted
    # A commercially distributed non-Marketplace app: conversations.replies once a minute,
    # 15 messages a page (Slack's rate-limit changes for such apps, 2025).
    non_marketplace: bool = False
    _replies_at: float | None = None
    socket: SocketMode = field(default_factory=SocketMode)  # Socket Mode: envelopes, acks
    users: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> user object
    files: dict[str, SlackFile] = field(default_factory=dict)  # id -> file
    downloads: list[Download] = field(default_factory=list)  # requests to file URLs
    joined: set[str] | None = None  # conversations the bot is in; None: all of them
    rts: bool = False  # the workspace allows Real-time Search (assistant.search.context)
    action_tokens: set[str] = field(default_factory=set)  # issued by action_token()
    home_tab: bool = field(default_factory=home_tab_enabled)  # the app's Home tab is on
    homes: dict[str, dict[str, Any]] = field(default_factory=dict)  # user id -> Home view
    published: list[str] = field(default_factory=list)  # user id of each view published
    rooms: dict[str, Room] = field(default_factory=dict)  # set up with conversation()
    missing: set[str] = field(default_factory=set)  # conversations that do not exist
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)  # user groups by id
    # What Real-time Search finds, whatever the query (it ranks by meaning, not by the
    # query's words): (channel, ts) of messages the fake holds; None: word matching
    found: list[tuple[str, str]] | None = None
    responses: list[dict[str, Any]] = field(default_factory=list)  # sent to response_urls
    deleted: list[str] = field(default_factory=list)  # response_urls whose original went
    replaced: list[str] = field(default_factory=list)  # click URLs whose original was replaced
    _response_urls: dict[str, tuple[float, int]] = field(default_factory=dict)  # issued, uses
    _clicked: set[str] = field(default_factory=set)  # response_urls of clicks on a message

    def response_url(self, *, click: bool = False) -> str:
        """A response_url as a shortcut's or a command's payload carries it (`click`: a
        click on a message's button, whose original it may replace or delete)."""
        key = f"T0001/{len(self._response_urls) + 1}/{secrets.token_hex(8)}"
        self._response_urls[key] = (time.monotonic(), 0)
        if click:
            self._clicked.add(key)
        return f"{self.host}/response/{key}"

    async def _respond(self, request: web.Request) -> web.Response:
        """POST to a response_url: a message for the person behind the interaction."""
        key = request.match_info["key"]
        issued = self._response_urls.get(key)
        if issued is None or time.monotonic() - issued[0] > RESPONSE_URL_SECONDS:
            return web.Response(status=404, text="expired_url")
        if issued[1] >= RESPONSE_URL_USES:
            return web.Response(status=404, text="used_url")
        try:
            body = await request.json()
        except ValueError:
            return web.Response(status=400, text="invalid_payload")
        refused = _refused_response(body, original=key in self._clicked)
        if refused is not None:
            return web.Response(status=400, text=refused)
        self._response_urls[key] = (issued[0], issued[1] + 1)
        if body.get("delete_original"):
            self.deleted.append(key)
        else:
            self.responses.append(body)
            if key in self._clicked and body.get("replace_original") is not False:
                self.replaced.append(key)
        return web.Response(text="ok")

    def fail(self, method: str, *faults: Fault) -> None:
        self.faults[method].extend(faults)

    def reset(self) -> None:
        self.calls.clear()
        self.threads.clear()
        self.faults.clear()
        self.streaming.clear()
        self.steps.clear()
        self.stopped.clear()
        self.kinds.clear()
        self.scopes = granted()
        self._posted.clear()
        self.non_marketplace = False
        self._replies_at = None
        self.socket.reset()
        self.users.clear()
        self.files.clear()
        self.downloads.clear()
        self.joined = None
        self.rts = False
        self.action_tokens.clear()
        self.home_tab = home_tab_enabled()
        self.homes.clear()
        self.published.clear()
        self.rooms.clear()
        self.missing.clear()
        self.groups.clear()
        self.found = None
        self.responses.clear()
        self.deleted.clear()
        self.replaced.clear()
        self._response_urls.clear()
        self._clicked.clear()

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
        app.router.add_post("/response/{key:.+}", self._respond)
        app.router.add_get("/files-pri/{key}/{name}", self._download)
        app.router.add_get("/files-pri/{key}/download/{name}", self._download)

    # --- what a test sets up --------------------------------------------------------------

    def user(self, user_id: str, display_name: str, real_name: str = "") -> dict[str, Any]:
        """A person users.info knows; display_name may be "" (Slack then shows real_name)."""
        real = real_name or display_name
        profile = {
            "display_name": display_name,
            "display_name_normalized": display_name,
            "real_name": real,
            "real_name_normalized": real,
        }
        self.users[user_id] = {
            "id": user_id,
            "team_id": TEAM,
            "name": (display_name or real).lower().replace(" ", "."),
            "deleted": False,
            "real_name": real,
            "is_bot": False,
            "profile": profile,
        }
        return self.users[user_id]

    def add_file(
        self,
        name: str,
        content: bytes,
        mimetype: str,
        *,
        filetype: str = "",
        channels: tuple[str, ...] = (),
        user: str = "U0001",
        title: str = "",
    ) -> dict[str, Any]:
        """A file shared in `channels`; returns its file object, as a message event's
        `files` carries it (with url_private on this fake)."""
        kind = filetype or name.rsplit(".", 1)[-1].lower()
        file = SlackFile(new_file_id(), name, mimetype, kind, content, user, channels, title)
        self.files[file.id] = file
        return file.wire(self.host, TEAM)

    @property
    def host(self) -> str:
        """The fake's own origin (the file host); url ends in /api/."""
        return self.url.removesuffix("/api/")

    def add_message(
        self,
        channel: str,
        text: str,
        *,
        user: str = "U0001",
        ts: str | None = None,
        thread_ts: str | None = None,
        files: tuple[dict[str, Any], ...] = (),
    ) -> dict[str, Any]:
        """A person's message the fake holds (for history, replies and permalinks): a new
        top-level message, or a reply when thread_ts is given."""
        message: dict[str, Any] = {
            "type": "message",
            "ts": ts or self._ts({"thread_ts": thread_ts}),
            "user": user,
            "text": text,
        }
        if thread_ts:
            message["thread_ts"] = thread_ts
        if files:
            message["files"] = list(files)
        key = (channel, thread_ts or message["ts"])
        self.threads.setdefault(key, []).append(message)
        return message

    def conversation(
        self,
        channel: str,
        kind: str,
        members: list[str] | None = None,
        *,
        user: str = "",
        shared: str | None = None,
        team: str = TEAM,
    ) -> None:
        """A conversation of `kind` (channel, group, mpim, im): for an im, `user` is the
        person whose DM with Vouch it is (its members: them and Vouch)."""
        if kind == "im":
            members = [user, BOT_USER]
        self.rooms[channel] = Room(kind, members, user, shared, team)
        self.kinds[channel] = kind

    def group(self, group_id: str, handle: str, users: list[str]) -> None:
        """A user group (`<!subteam^S…>`), its handle and members."""
        self.groups[group_id] = {"id": group_id, "team_id": TEAM, "handle": handle, "users": users}

    def action_token(self) -> str:
        """An action_token, as a message event carries one for Real-time Search."""
        token = f"{len(self.action_tokens) + 1}.{int(time.time())}.fakeaction"
        self.action_tokens.add(token)
        return token

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
        if handler is None or (method == "assistant.search.context" and not self.rts):
            return web.json_response({"ok": False, "error": "unknown_method"})
        try:
            self._permit(method, token_of(request) or "")
            if method == "assistant.search.context":
                params["_token"] = token_of(request) or ""
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

    def _readable(self, channel: str) -> None:
        """missing_scope without the history scope of the conversation's type; then
        not_in_channel (a public channel) or channel_not_found (any other) where the bot is
        not a member."""
        if HISTORY_SCOPES[self.kind(channel)] not in self.scopes:
            raise Refused("missing_scope", needed=HISTORY_SCOPES[self.kind(channel)])
        self._visible(channel)

    def _visible(self, channel: str) -> None:
        if self.joined is None or channel in self.joined:
            return
        raise Refused("not_in_channel" if self.kind(channel) == "channel" else "channel_not_found")

    def _conversations_replies(self, params: dict[str, Any]) -> dict[str, Any]:
        """Oldest first, `limit` per page (1,000 at most) with a cursor, as Slack does;
        missing_scope when the token cannot read that type of conversation, and the
        membership refusals of `_readable`."""
        self._readable(params["channel"])
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

    def _conversations_history(self, params: dict[str, Any]) -> dict[str, Any]:
        """A channel's top-level messages, newest first, between `oldest` and `latest`
        (exclusive unless `inclusive`), `limit` per page with a cursor."""
        channel = params["channel"]
        self._readable(channel)
        inclusive = params.get("inclusive") in (True, "1", "true")
        latest = float(params.get("latest") or "inf")
        oldest = float(params.get("oldest") or 0)
        roots = [
            {**m, **({"reply_count": len(thread) - 1} if len(thread) > 1 else {})}
            for (ch, root), thread in self.threads.items()
            if ch == channel
            for m in thread[:1]
            if m["ts"] == root
        ]
        within = [
            m
            for m in sorted(roots, key=lambda m: float(m["ts"]), reverse=True)
            if (oldest <= float(m["ts"]) <= latest)
            if inclusive or float(m["ts"]) not in (oldest, latest)
        ]
        start = int(params.get("cursor") or 0)
        end = start + min(int(params.get("limit") or 100), HISTORY_LIMIT)
        page: dict[str, Any] = {
            "messages": _visible(within[start:end], params),
            "has_more": end < len(within),
        }
        if end < len(within):
            page["response_metadata"] = {"next_cursor": str(end)}
        return page

    def _users_conversations(self, params: dict[str, Any]) -> dict[str, Any]:
        user = str(params.get("user") or "")
        if user and user not in self.users and user != BOT_USER:
            raise Refused("user_not_found")
        kinds = {
            "public_channel": "channel",
            "private_channel": "group",
            "mpim": "mpim",
            "im": "im",
        }
        asked = str(params.get("types") or "public_channel").split(",")
        if any(t not in kinds for t in asked):
            raise Refused("invalid_types")
        for t in asked:
            if READ_SCOPES[kinds[t]] not in self.scopes:
                raise Refused("missing_scope", needed=READ_SCOPES[kinds[t]])
        limit = int(params.get("limit") or 100)
        if not 1 <= limit <= 999:
            raise Refused("invalid_limit")
        known = {*self.rooms, *(ch for ch, _ in self.threads)}
        theirs = [
            {"id": channel, **{k: v for k, v in self._channel(channel).items() if k != "is_member"}}
            for channel in sorted(known)
            if self.kind(channel) in (kinds[t] for t in asked)
            and (not user or user in self.members_of(channel))
            and (self.kind(channel) == "channel" or BOT_USER in self.members_of(channel))
        ]
        start = (
            int(str(params.get("cursor") or "0"))
            if str(params.get("cursor") or "0").isdigit()
            else -1
        )
        if start < 0:
            raise Refused("invalid_cursor")
        more = str(start + limit) if start + limit < len(theirs) else ""
        page = theirs[start : start + limit]
        return {"channels": page, "response_metadata": {"next_cursor": more}}

    def _usergroups_list(self, params: dict[str, Any]) -> dict[str, Any]:
        with_users = params.get("include_users") in (True, "1", "true")
        return {
            "usergroups": [
                {**g, "user_count": len(g["users"])}
                if with_users
                else {k: v for k, v in g.items() if k != "users"} | {"user_count": len(g["users"])}
                for g in self.groups.values()
            ]
        }

    def _conversations_info(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = self._described(params)
        return {"channel": self._channel(channel)}

    def _conversations_members(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = self._described(params)
        limit = int(params.get("limit") or 100)
        if not 1 <= limit <= MEMBERS_LIMIT:
            raise Refused("invalid_limit")
        cursor = str(params.get("cursor") or "0")
        if not cursor.isdigit():
            raise Refused("invalid_cursor")
        members = self.members_of(channel)
        start, end = int(cursor), int(cursor) + limit
        more = str(end) if end < len(members) else ""
        return {"members": members[start:end], "response_metadata": {"next_cursor": more}}

    def _described(self, params: dict[str, Any]) -> str:
        """The conversation asked about, when the token may know of it: missing_scope
        without the read scope of its type; channel_not_found for one that does not exist
        or is not public and does not have the bot."""
        channel = str(params.get("channel") or "")
        if READ_SCOPES[self.kind(channel)] not in self.scopes:
            raise Refused("missing_scope", needed=READ_SCOPES[self.kind(channel)])
        if not channel or channel in self.missing:
            raise Refused("channel_not_found")
        if self.kind(channel) != "channel":
            self._visible(channel)
        return channel

    def members_of(self, channel: str) -> list[str]:
        room = self.rooms.get(channel)
        if room is not None and room.members is not None:
            return list(room.members)
        if self.kind(channel) == "im":
            return ["U0001", BOT_USER]
        authors = {m.get("user") for (ch, _), t in self.threads.items() if ch == channel for m in t}
        known = {*self.users, *(a for a in authors if isinstance(a, str)), BOT_USER}
        return sorted(known)

    def _channel(self, channel: str) -> dict[str, Any]:
        """The conversation object conversations.info gives for `channel`."""
        room = self.rooms.get(channel) or Room(self.kind(channel))
        base = {"id": channel, "created": 1700000000, "is_archived": False}
        base["context_team_id"] = room.team
        if room.kind == "im":
            user = room.user or "U0001"
            return base | {"is_im": True, "is_org_shared": False, "user": user}
        teams = [room.team] + ([EXTERNAL_TEAM] if room.shared == "ext" else [])
        return base | {
            "name": f"room-{channel.lower()}",
            "is_channel": room.kind in ("channel", "group"),
            "is_group": False,
            "is_im": False,
            "is_mpim": room.kind == "mpim",
            "is_private": room.kind != "channel",
            "is_member": self.joined is None or channel in self.joined,
            "is_shared": room.shared is not None and room.shared != "pending",
            "is_ext_shared": room.shared == "ext",
            "is_org_shared": room.shared == "org",
            "is_pending_ext_shared": room.shared == "pending",
            "pending_shared": [EXTERNAL_TEAM] if room.shared == "pending" else [],
            "shared_team_ids": teams,
        }

    def _chat_getPermalink(self, params: dict[str, Any]) -> dict[str, Any]:
        channel, ts = params.get("channel", ""), params.get("message_ts", "")
        if (
            self.joined is not None
            and channel not in self.joined
            and self.kind(channel) != "channel"
        ):
            raise Refused("channel_not_found")
        found = [
            (root, m)
            for (ch, root), thread in self.threads.items()
            if ch == channel
            for m in thread
            if m["ts"] == ts
        ]
        if not found:
            raise Refused("message_not_found")
        root, _ = found[0]
        return {"channel": channel, "permalink": permalink(channel, ts, root)}

    def _users_info(self, params: dict[str, Any]) -> dict[str, Any]:
        user = self.users.get(params.get("user", ""))
        if user is None:
            raise Refused("user_not_found")
        return {"user": user}

    def _files_info(self, params: dict[str, Any]) -> dict[str, Any]:
        file = self.files.get(params.get("file", ""))
        if file is None or not self._sees(file):
            raise Refused("file_not_found")
        if file.deleted:
            raise Refused("file_deleted")
        return {"file": file.wire(self.host, TEAM), "comments": [], "response_metadata": {}}

    def _sees(self, file: SlackFile) -> bool:
        """Whether the bot can see a file: shared in a conversation it is a member of."""
        return self.joined is None or any(c in self.joined for c in file.channels)

    async def _download(self, request: web.Request) -> web.StreamResponse:
        """url_private (inline) and url_private_download (an attachment): the file to a bot
        token with files:read, Slack's sign-in page (HTTP 200, HTML) to anything else."""
        self.calls.append(Call("url_private", {"path": request.path}))
        if self.faults["url_private"]:
            return await self._fault(self.faults["url_private"].popleft(), {}, request)
        team, _, file_id = request.match_info["key"].partition("-")
        file = self.files.get(file_id)
        served = (
            file is not None
            and team == TEAM
            and request.match_info["name"] == file.name
            and not file.deleted
            and self._sees(file)
            and may_download(request, self.scopes)
        )
        self.downloads.append(Download(file_id, served))
        if not served or file is None:
            return login_page()
        return file_response(file, "/download/" in request.path)

    def _assistant_search_context(self, params: dict[str, Any]) -> dict[str, Any]:
        """Messages whose text has a word of the query, in the channel types asked for
        (public channels by default), at most 20."""
        token = params.pop("_token", "")
        if not params.get("query"):
            raise Refused("invalid_arguments")
        if token.startswith("xoxb-") and params.get("action_token") not in self.action_tokens:
            raise Refused("invalid_action_token")
        types = str(params.get("channel_types") or "public_channel").split(",")
        for kind in types:
            if SEARCH_SCOPES.get(kind) not in self.scopes:
                raise Refused("missing_scope", needed=SEARCH_SCOPES.get(kind, kind))
        words = {w.lower() for w in str(params["query"]).split()}
        found = [
            {
                "author_user_id": m.get("user", ""),
                "team_id": TEAM,
                "channel_id": channel,
                "message_ts": m["ts"],
                "content": m.get("text", ""),
                "permalink": permalink(channel, m["ts"], root),
                "is_author_bot": "bot_id" in m,
            }
            for (channel, root), thread in self.threads.items()
            if SEARCH_TYPES[self.kind(channel)] in types
            for m in thread
            if (
                words & set(m.get("text", "").lower().split())
                if self.found is None
                else (channel, m["ts"]) in self.found
            )
        ]
        limit = min(int(params.get("limit") or SEARCH_LIMIT), SEARCH_LIMIT)
        return {"results": {"messages": found[:limit]}}

    def _chat_postMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        check_message(params)
        self._visible(params["channel"])
        return self._post(params)

    def _chat_postEphemeral(self, params: dict[str, Any]) -> dict[str, Any]:
        """Seen by one user only, and kept in no history: `user` is required (Slack:
        user_not_in_channel when that person is not in the conversation, which the fake
        does not track), the bot must be able to post there."""
        check_message(params)
        if not params.get("user"):
            raise Refused("invalid_arguments")
        self._visible(params["channel"])
        return {"message_ts": self._ts(params)}

    def _post(self, params: dict[str, Any]) -> dict[str, Any]:
        ts = self._ts(params)
        message: dict[str, Any] = {
            "ts": ts,
            "user": BOT_USER,
            "bot_id": BOT_ID,
            "text": shown(params),
        }
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
        """In a channel (anything but a DM) Slack needs to know whom the stream is for. The
        message starts with `markdown_text`, or with `chunks` (text, task and plan updates)."""
        check_markdown(params)
        chunks = chunks_of(params)
        mode = params.get("task_display_mode")
        if mode is not None and mode not in DISPLAY_MODES:
            raise Refused("invalid_arguments")
        self._visible(params["channel"])
        if self.kind(params["channel"]) != "im":
            for recipient in ("recipient_team_id", "recipient_user_id"):
                if not params.get(recipient):
                    raise Refused(f"missing_{recipient}")
        posted = self._post({**params, "markdown_text": markdown_in(chunks)} if chunks else params)
        self.streaming.add(posted["ts"])
        self._step(posted["ts"], chunks)
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
        chunks = chunks_of(params)
        if params["ts"] in self.stopped:
            raise Refused(STOPPED_BY_USER)
        if params["ts"] not in self.streaming:
            raise Refused("message_not_in_streaming_state")
        for message in self._messages(params["ts"]):
            message["text"] += (params.get("markdown_text") or "") + markdown_in(chunks)
        self._step(params["ts"], chunks)

    def _step(self, ts: str, chunks: list[dict[str, Any]]) -> None:
        """Keep a stream's task and plan updates, in order."""
        updates = [c for c in chunks if c["type"] in ("task_update", "plan_update")]
        if updates:
            self.steps.setdefault(ts, []).extend(updates)

    def _messages(self, ts: str) -> list[dict[str, Any]]:
        return [m for messages in self.threads.values() for m in messages if m["ts"] == ts]

    def _assistant_threads_setStatus(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _assistant_threads_setSuggestedPrompts(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _views_publish(self, params: dict[str, Any]) -> dict[str, Any]:
        view = check_view(params)
        if not self.home_tab:
            raise Refused("not_enabled")
        user = params["user_id"]
        current = self.homes.get(user)
        if params.get("hash") and (current is None or params["hash"] != current["hash"]):
            raise Refused("hash_conflict")
        count = len(self.published)
        self.homes[user] = {
            **view,
            "id": f"VHOME{count:05d}",
            "hash": f"{int(time.time())}.{count}",
        }
        self.published.append(user)
        return {"view": self.homes[user]}


def permalink(channel: str, ts: str, thread_ts: str | None = None) -> str:
    """A message's permalink as chat.getPermalink gives it (a reply's names its thread)."""
    link = f"{WORKSPACE_URL}/archives/{channel}/p{ts.replace('.', '')}"
    if thread_ts and thread_ts != ts:
        link += f"?thread_ts={thread_ts}&cid={channel}"
    return link


def _visible(messages: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    """Messages as a history read returns them: with their `metadata` only when asked for
    with include_all_metadata (the SDK sends a bool as "1"; JSON bodies carry true)."""
    if params.get("include_all_metadata") in (True, "1", "true"):
        return messages
    return [{k: v for k, v in m.items() if k != "metadata"} for m in messages]
