"""HTTP connections with bounds, so that idle, slow or too many connections cannot use up
the process's open files and stall Slack's events.

- Idle: a connection with no request for HTTP_KEEPALIVE_TIMEOUT seconds is closed (aiohttp's
  keep-alive timer, which also runs before a connection's first request).
- Slow: a request whose headers and body have not all arrived HTTP_READ_TIMEOUT seconds
  after its first byte is dropped with its connection (headers or a body sent a byte at a
  time: "slowloris"). A request pipelined behind one being handled is left to the keep-alive
  timer (Slack and load balancers do not pipeline).
- Many: at most HTTP_MAX_CONNECTIONS (and at most half the open-file limit) are open. A new
  one past the cap closes the connection waiting longest for its request; when every
  connection is busy handling one, the new one is answered 503 and closed.

aiohttp's connection class (`web.RequestHandler`) parses and answers; `Connection` adds the
read clock, and `Pool` is the protocol factory given to the listening socket.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import resource
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from app.settings import Settings

log = logging.getLogger("vouch.http")

BACKLOG = 1024  # connections the kernel holds for accept (capped by net.core.somaxconn)
REFUSAL = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


class Connection(web.RequestHandler):
    """One HTTP connection: aiohttp's, plus a clock on reading each request, started by its
    first byte and stopped by `received` (its body is in); past it the connection closes."""

    def __init__(self, pool: Pool, loop: asyncio.AbstractEventLoop, **options: Any) -> None:
        super().__init__(pool.server, loop=loop, **options)
        self._pool = pool
        self._clock_loop = loop
        self._clock: asyncio.TimerHandle | None = None
        self.busy = False  # a request has arrived whole and is being handled
        self._closing = False
        self.ticket = pool.ticket()  # taken when it opens and when it finishes a request

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self._closing:  # evicted in the same tick it was accepted
            self.force_close()

    def data_received(self, data: bytes) -> None:
        if data and self._clock is None and not self.busy:
            timeout = self._pool.read_timeout
            self._clock = self._clock_loop.call_later(timeout, self._too_slow)
        super().data_received(data)

    def connection_lost(self, exc: BaseException | None) -> None:
        self._stop_clock()
        self._pool.discard(self)
        super().connection_lost(exc)

    def received(self) -> None:
        """The request's headers and body are in: handling it is not bounded here."""
        self._stop_clock()
        self.busy = True

    def handled(self) -> None:
        self.busy = False
        self.ticket = self._pool.ticket()

    def evict(self) -> None:
        """Close now, or as soon as it is made (aiohttp's close ignores one not made yet)."""
        self._closing = True
        self.force_close()

    def _stop_clock(self) -> None:
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None

    def _too_slow(self) -> None:
        self._clock = None
        log.warning(
            "closed a connection whose request took over %g s to arrive", self._pool.read_timeout
        )
        self.force_close()


class Pool:
    """The protocol factory of the listening socket: makes a `Connection` per accepted
    socket, at most `cap` open at once (past it, see the module's docstring)."""

    def __init__(
        self, server: web.Server, cap: int, read_timeout: float, keepalive_timeout: float
    ) -> None:
        self.server = server
        self.cap = cap
        self.read_timeout = read_timeout
        self._keepalive_timeout = keepalive_timeout
        self._open: set[Connection] = set()
        self._tickets = itertools.count()  # not the loop's clock: its ties would be guesses

    def __call__(self) -> asyncio.Protocol:
        if len(self._open) >= self.cap and not self._close_longest_waiting():
            log.warning("refused a connection: all %d connections are busy", self.cap)
            return _Refused()
        loop = asyncio.get_running_loop()
        connection = Connection(self, loop, keepalive_timeout=self._keepalive_timeout)
        self._open.add(connection)  # counted now: several accepts can come before one opens
        return connection

    def ticket(self) -> int:
        """A number larger than any given before: the order connections began waiting in."""
        return next(self._tickets)

    def discard(self, connection: Connection) -> None:
        self._open.discard(connection)

    def _close_longest_waiting(self) -> bool:
        waiting = [c for c in self._open if not c.busy]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c.ticket)
        self._open.discard(oldest)
        oldest.evict()
        log.warning("at the cap of %d connections: closed the one waiting longest", self.cap)
        return True


class _Refused(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(REFUSAL)
        transport.close()


@web.middleware
async def reading(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Reads the whole body before handling (Slack's bodies are small), so that the read
    clock covers it; marks the connection busy while the request is handled."""
    connection = request.protocol
    if not isinstance(connection, Connection):
        return await handler(request)
    try:
        await request.read()
    except ConnectionResetError:  # closed by the read clock (or by the client)
        return web.Response(status=408)  # not sent: the connection is gone
    connection.received()
    try:
        return await handler(request)
    finally:
        connection.handled()


def connection_cap(wanted: int, files: int) -> int:
    """`wanted`, but at most half of `files` (the soft open-file limit): the other half is
    kept for calls to Slack, Anthropic, Langfuse and Redis, the index and the logs."""
    return wanted if files == resource.RLIM_INFINITY else max(1, min(wanted, files // 2))


async def listen(runner: web.AppRunner, settings: Settings) -> asyncio.Server:
    """Listen on HOST:PORT for `runner`'s app (set up) through a `Pool`. The backlog holds
    a burst of new connections (200 events sent at once) while the loop accepts them: with
    128, the kernel dropped the overflow and the senders retried after 1 s."""
    assert runner.server is not None
    files, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    pool = Pool(
        runner.server,
        connection_cap(settings.http_max_connections, files),
        settings.http_read_timeout,
        settings.http_keepalive_timeout,
    )
    loop = asyncio.get_running_loop()
    return await loop.create_server(
        pool, settings.host, settings.port, reuse_address=True, backlog=BACKLOG
    )
