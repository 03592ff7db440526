"""The fakes' loopback server stops clean: a handler still waiting when a client goes away
(the takeover bench kills a bot mid-request to the fake model) is cancelled and awaited,
not left pending on a stopped loop to be destroyed at exit."""

from __future__ import annotations

import asyncio
import socket
import threading
from urllib.parse import urlsplit

from aiohttp import web

from tests.fakes.server import LoopbackServer


class _Slow(LoopbackServer):
    """One route that answers after a minute, and says when a request reached it."""

    def __init__(self) -> None:
        self.reached = threading.Event()

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/slow", self._slow)

    def reset(self) -> None:
        self.reached.clear()

    async def _slow(self, request: web.Request) -> web.Response:
        self.reached.set()
        await asyncio.sleep(60)
        return web.Response(text="late")


def test_a_handler_waiting_on_a_client_that_left_is_not_left_pending() -> None:
    server = _Slow()
    parts = urlsplit(server.start())
    assert parts.hostname is not None and parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as client:
        client.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        assert server.reached.wait(5)
    # the client is gone (as a killed bot is); its handler still sleeps
    server.stop()
    loop = server._loop
    deadline = 50
    while loop.is_running() and deadline:  # stop() asks the loop to stop; bounded wait
        deadline -= 1
        threading.Event().wait(0.1)
    assert not loop.is_running()
    assert [task for task in asyncio.all_tasks(loop) if not task.done()] == []
