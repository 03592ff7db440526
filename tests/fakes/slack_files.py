"""Files on the fake Slack: file objects as Slack shows them (in message events, in
conversations.replies and from files.info) and the file host behind their `url_private`
and `url_private_download`, on the fake's own loopback host.

As Slack does (file object reference, "Authentication": a file is fetched with the bot
token in an `Authorization: Bearer` header, and that token needs `files:read`): a request
without that header, with a token that is not a bot or user token, or from a token without
`files:read`, gets HTTP 200 with Slack's sign-in HTML page instead of the file. A client
that only checks the status code reads a web page as the file, which is the bug this
strictness catches. A token in the query string is not looked at.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.slack_socket import token_of

LOGIN_PAGE = (
    '<!DOCTYPE html><html lang="en-US"><head><title>Slack</title></head>'
    '<body><form action="/signin" method="post"><h1>Sign in to Slack</h1>'
    "</form></body></html>"
)
_ids = itertools.count(1)


@dataclass
class SlackFile:
    """A file someone shared: its metadata and its bytes."""

    id: str
    name: str
    mimetype: str
    filetype: str
    content: bytes
    user: str
    channels: tuple[str, ...]
    title: str = ""
    created: int = field(default_factory=lambda: int(time.time()))
    deleted: bool = False

    def wire(self, host: str, team: str) -> dict[str, Any]:
        """The file object, as a message event, conversations.replies or files.info give it."""
        private = f"{host}/files-pri/{team}-{self.id}/{self.name}"
        return {
            "id": self.id,
            "created": self.created,
            "timestamp": self.created,
            "name": self.name,
            "title": self.title or self.name,
            "mimetype": self.mimetype,
            "filetype": self.filetype,
            "pretty_type": self.filetype.upper(),
            "user": self.user,
            "user_team": team,
            "editable": False,
            "size": len(self.content),
            "mode": "hosted",
            "is_external": False,
            "external_type": "",
            "is_public": True,
            "public_url_shared": False,
            "display_as_bot": False,
            "url_private": private,
            "url_private_download": f"{host}/files-pri/{team}-{self.id}/download/{self.name}",
            "permalink": f"https://vouch-test.slack.com/files/{self.user}/{self.id}/{self.name}",
            "channels": [c for c in self.channels if c[:1] == "C"],
            "groups": [c for c in self.channels if c[:1] == "G"],
            "ims": [c for c in self.channels if c[:1] == "D"],
        }


def new_file_id() -> str:
    return f"F{next(_ids):08d}"


@dataclass(frozen=True)
class Download:
    """One request to a file URL: which file, whether it got the file or the login page."""

    file_id: str
    served: bool
    at: float = field(default_factory=time.monotonic)


def may_download(request: web.Request, scopes: set[str]) -> bool:
    """Whether Slack would hand this request the file: a bot (or user) token in the
    Authorization header, of an app granted files:read."""
    token = token_of(request) or ""
    return token.startswith(("xoxb-", "xoxp-")) and "files:read" in scopes


def login_page() -> web.Response:
    return web.Response(text=LOGIN_PAGE, content_type="text/html", charset="utf-8")


def file_response(file: SlackFile, download: bool) -> web.Response:
    headers = {}
    if download:
        headers["Content-Disposition"] = f'attachment; filename="{file.name}"'
    return web.Response(body=file.content, content_type=file.mimetype, headers=headers)
