"""The load bench's HTTP client: one signed POST on a connection of its own, written as
bytes prepared beforehand, its answer read up to the end of the headers and the declared
body, nothing parsed beyond the status.

Why not aiohttp's client: sending 200 events at once through it costs its process ~37 ms
(p99, against a server that only answers 200), most of a 50 ms ack budget, and the bench
would be measuring itself. With this client, a server that only answers 200 acks such a
burst in p99 ~26-33 ms on two cores (`python -m bench.floor`).
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
from dataclasses import dataclass

MAX_HEAD = 16_384  # bytes of response headers read before giving up
MAX_BODY = 65_536  # bytes of a response body


class ResponseError(Exception):
    """The server's answer was not HTTP/1.1 as expected (or the connection closed first)."""


@dataclass
class Posted:
    """The answer to one POST; its connection stays open until `close()` (as a client
    session's would until the session ends)."""

    status: int
    transport: asyncio.BaseTransport

    def close(self) -> None:
        self.transport.close()


class Sender:
    """Posts events to a bot's `/slack/events` and times each acknowledgement (ms, in
    `acks`); the connections stay open until `close()`, as Slack's would."""

    def __init__(self) -> None:
        self.acks: list[float] = []
        self._open: list[Posted] = []

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> None:
        data = request(f"{url}/slack/events", body, headers)
        started = time.monotonic()
        posted = await post(url, data)
        self.acks.append((time.monotonic() - started) * 1000)
        self._open.append(posted)
        assert posted.status == 200, posted.status

    def close(self) -> None:
        for posted in self._open:
            posted.close()


def request(url: str, body: bytes, headers: dict[str, str]) -> bytes:
    """The bytes of `POST url` with `headers` and `body`."""
    parts = urllib.parse.urlsplit(url)
    lines = [f"POST {parts.path or '/'} HTTP/1.1", f"Host: {parts.netloc}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


async def post(url: str, data: bytes, timeout: float = 30.0) -> Posted:
    """Send `data` (from `request`) on a new connection to `url`'s host; return once the
    whole answer is in."""
    parts = urllib.parse.urlsplit(url)
    if parts.hostname is None or parts.port is None:
        raise ValueError(f"no host and port in {url}")
    loop = asyncio.get_running_loop()
    answered: asyncio.Future[int] = loop.create_future()
    async with asyncio.timeout(timeout):
        transport, _ = await loop.create_connection(
            lambda: _Exchange(data, answered), parts.hostname, parts.port
        )
        try:
            status = await answered
        except BaseException:
            transport.close()
            raise
    return Posted(status, transport)


class _Exchange(asyncio.Protocol):
    def __init__(self, data: bytes, answered: asyncio.Future[int]) -> None:
        self._data = data
        self._answered = answered
        self._received = bytearray()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(self._data)

    def data_received(self, data: bytes) -> None:
        if self._answered.done():
            return
        self._received += data
        end = self._received.find(b"\r\n\r\n")
        if end < 0:
            if len(self._received) > MAX_HEAD:
                self._answered.set_exception(ResponseError("headers too long"))
            return
        try:
            status, length = _head(bytes(self._received[:end]))
        except ValueError as exc:
            self._answered.set_exception(ResponseError(str(exc)))
            return
        if len(self._received) - end - 4 >= length:
            self._answered.set_result(status)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._answered.done():
            self._answered.set_exception(ResponseError("connection closed before the answer"))


def _head(head: bytes) -> tuple[int, int]:
    """The status and Content-Length of a response's header block."""
    status_line, *fields = head.split(b"\r\n")
    version, code, *_ = status_line.split(b" ", 2)
    if version != b"HTTP/1.1":
        raise ValueError("not an HTTP/1.1 response")
    length = 0
    for field in fields:
        name, _, value = field.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
        elif name.strip().lower() == b"transfer-encoding":
            raise ValueError("chunked responses are not read")
    if not 0 <= length <= MAX_BODY:
        raise ValueError("body length out of bounds")
    return int(code), length
