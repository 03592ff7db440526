"""What every loopback fake shares: an aiohttp app served on 127.0.0.1 from its own thread,
so any event loop (a test's, a hypothesis example's, a benchmark's) can talk to it."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TypeVar

import aiohttp
from aiohttp import web


class LoopbackServer(ABC):
    """Subclasses add their routes in `routes()`; `start()` returns the base URL."""

    url: str = ""
    max_body: int = 1024**2  # aiohttp's default; a fake whose API takes more says so

    @abstractmethod
    def routes(self, app: web.Application) -> None:
        """Add the fake's routes to `app`."""

    @abstractmethod
    def reset(self) -> None:
        """Forget every request and script, as if new."""

    def start(self) -> str:
        ready = threading.Event()
        self._runner: web.AppRunner | None = None
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._serve, args=(ready,), daemon=True).start()
        ready.wait(10)
        return self.url

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._finish(self._runner), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)

    @staticmethod
    async def _finish(runner: web.AppRunner) -> None:
        """Close the server, then cancel and await what is left on its loop (a handler
        still waiting on a client that went away): none is left pending when the loop
        stops, to be destroyed at exit ("Task was destroyed but it is pending!")."""
        await runner.cleanup()
        left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)

    def _serve(self, ready: threading.Event) -> None:
        app = web.Application(client_max_size=self.max_body)
        self.routes(app)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        ready.set()
        self._loop.run_forever()


Server = TypeVar("Server", bound=LoopbackServer)


def serving(server: Server) -> Iterator[Server]:
    """For a session fixture: the server, started, and stopped afterwards."""
    server.start()
    yield server
    server.stop()


def cleaned(server: Server) -> Iterator[Server]:
    """For a test fixture: the shared server, reset before and after the test."""
    server.reset()
    yield server
    server.reset()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def patience(seconds: float) -> float:
    """A bound on a wait, scaled to how busy the machine is (the load average per core, at
    least 1): a bound that holds on a quiet machine holds while another suite runs beside
    this one. A wait ends at its signal; the bound only says when to give up."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not available here
        return seconds
    return seconds * max(1.0, load / (os.cpu_count() or 1))


async def wait_healthy(url: str, seconds: float = 40.0) -> None:
    """Wait until GET {url}/healthz answers 200. A bot process starts in about 3 s (most of
    it importing the SDKs), longer on a busy machine: `seconds` on a quiet one."""
    deadline = asyncio.get_running_loop().time() + patience(seconds)
    async with aiohttp.ClientSession() as session:
        while asyncio.get_running_loop().time() < deadline:
            try:
                async with session.get(f"{url}/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.05)
    raise AssertionError(f"{url} did not become healthy")
