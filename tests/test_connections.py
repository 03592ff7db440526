"""HTTP connections of `python -m app` are bounded: idle ones close after
HTTP_KEEPALIVE_TIMEOUT, requests trickled in (slowloris) are dropped after HTTP_READ_TIMEOUT,
at most HTTP_MAX_CONNECTIONS are open, and running out of open files leaves a few log lines
and a bot that answers again once files are free."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web

from app import connections
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import free_port, wait_healthy
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import SIGNING_SECRET, mention, post_event, until
from tests.stderr import Lines

GOOD = "Merge to `main` and the pipeline deploys billing to staging."
OUT_OF_FILES = "socket.accept() out of system resource"

Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def started(bot: Any, **env: str) -> tuple[subprocess.Popen[str], int, Lines]:
    process, port = bot(**env)
    lines = Lines(process)
    await wait_healthy(f"http://127.0.0.1:{port}")
    return process, port, lines


async def stopped(process: subprocess.Popen[str], lines: Lines) -> str:
    process.send_signal(signal.SIGTERM)
    await asyncio.to_thread(process.wait, timeout=30)
    stderr = lines.join()
    assert process.returncode == 0 and "Traceback" not in stderr
    return stderr


async def connect(port: int) -> Stream:
    return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)


async def closed_after(stream: Stream, seconds: float) -> float:
    """Seconds until the server closes `stream` (its response, if any, read and dropped)."""
    reader, _ = stream
    start = time.monotonic()
    async with asyncio.timeout(seconds):
        try:
            while await reader.read(65536):
                pass
        except ConnectionResetError:  # closed with bytes unread: a reset
            pass
    return time.monotonic() - start


async def trickle(stream: Stream, data: bytes) -> None:
    """Send `data` a byte every 0.1 s, until the server closes the connection."""
    _, writer = stream
    for byte in data:
        writer.write(bytes([byte]))
        try:
            await writer.drain()
        except ConnectionError:
            return
        await asyncio.sleep(0.1)


async def test_an_idle_connection_is_closed_after_the_keepalive_timeout(bot: Any) -> None:
    process, port, lines = await started(bot, HTTP_KEEPALIVE_TIMEOUT="1")
    silent = await connect(port)
    kept = await connect(port)
    kept[1].write(b"GET /healthz HTTP/1.1\r\nHost: vouch\r\n\r\n")
    assert (await kept[0].readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
    assert 0.8 < await closed_after(kept, 10) < 5
    assert await closed_after(silent, 10) < 5  # one that never sent a request too
    await stopped(process, lines)


@pytest.mark.parametrize(
    "head, body",
    [
        pytest.param(
            b"POST /slack/events HTTP/1.1\r\nHost: vouch\r\n", b"X-Slow: " * 40, id="headers"
        ),
        pytest.param(
            b"POST /slack/events HTTP/1.1\r\nHost: vouch\r\nContent-Length: 300\r\n"
            b"Content-Type: application/json\r\n\r\n",
            b"{" + b" " * 299,
            id="body",
        ),
    ],
)
async def test_a_request_trickled_in_is_dropped_after_the_read_timeout(
    bot: Any, head: bytes, body: bytes
) -> None:
    process, port, lines = await started(bot, HTTP_READ_TIMEOUT="1", HTTP_KEEPALIVE_TIMEOUT="30")
    slow = await connect(port)
    slow[1].write(head)
    sending = asyncio.create_task(trickle(slow, body))
    assert 0.8 < await closed_after(slow, 10) < 5
    await sending
    assert await post_event(port, mention("still there?", "520.000001"), SIGNING_SECRET) == 200
    stderr = await stopped(process, lines)
    assert stderr.count("closed a connection whose request took over 1 s to arrive") == 1


async def test_past_the_cap_the_longest_waiting_connection_makes_room_for_an_event(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(GOOD))
    process, port, lines = await started(bot, HTTP_MAX_CONNECTIONS="20")
    held = [await connect(port) for _ in range(60)]
    evicted = await asyncio.gather(*(closed_after(stream, 10) for stream in held[:40]))
    assert max(evicted) < 10  # the 40 oldest were closed to make room for newer ones
    assert await post_event(port, mention("how do I deploy?", "521.000001"), SIGNING_SECRET) == 200
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    assert fake_slack.of("chat.postMessage")[0]["text"] == GOOD
    stderr = await stopped(process, lines)
    assert 1 <= stderr.count("at the cap of 20 connections: closed the one waiting longest") <= 5
    for _, writer in held:
        writer.close()


async def test_when_every_connection_is_busy_a_new_one_gets_503_and_is_closed(
    make_settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The server's own connection handling, in process, with a handler that waits."""
    release, entered = asyncio.Event(), []

    async def slow(request: web.Request) -> web.Response:
        entered.append(request)
        await release.wait()
        return web.Response(text="done")

    app = web.Application(middlewares=[connections.reading])
    app.router.add_get("/slow", slow)
    runner = web.AppRunner(app)
    await runner.setup()
    settings = make_settings(host="127.0.0.1", port=free_port(), http_max_connections=2)
    listener = await connections.listen(runner, settings)
    try:
        busy = [await connect(settings.port) for _ in range(2)]
        for _, writer in busy:
            writer.write(b"GET /slow HTTP/1.1\r\nHost: vouch\r\n\r\n")
        await until(lambda: len(entered) == 2)
        refused = await connect(settings.port)
        assert (await refused[0].read()).startswith(b"HTTP/1.1 503 Service Unavailable")
        release.set()
        for reader, _ in busy:
            assert (await reader.readuntil(b"done")).startswith(b"HTTP/1.1 200")
        again = await connect(settings.port)
        again[1].write(b"GET /slow HTTP/1.1\r\nHost: vouch\r\n\r\n")
        assert (await again[0].readuntil(b"done")).startswith(b"HTTP/1.1 200")
    finally:
        listener.close()
        await runner.cleanup()
    assert "refused a connection: all 2 connections are busy" in caplog.messages


def test_the_cap_keeps_half_the_open_file_limit_for_everything_else() -> None:
    assert connections.connection_cap(1000, files=1024) == 512
    assert connections.connection_cap(1000, files=1_048_576) == 1000
    assert connections.connection_cap(1000, files=resource.RLIM_INFINITY) == 1000
    assert connections.connection_cap(1000, files=1) == 1


@pytest.fixture
def files_limit() -> Iterator[None]:
    if not hasattr(resource, "prlimit") or not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs Linux's prlimit and /proc")
    yield


async def test_out_of_open_files_a_few_log_lines_then_events_are_answered_again(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, files_limit: None
) -> None:
    """The process's open-file limit is lowered under it (as a busy host would), then more
    connections come than it has files for: accepts fail with EMFILE until they close."""
    fake_anthropic.push(Reply(GOOD))
    process, port, lines = await started(bot)
    in_use = len(os.listdir(f"/proc/{process.pid}/fd"))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (in_use + 20, hard))
    held = [await connect(port) for _ in range(100)]  # the backlog (128) takes the rest
    # accepts are retried each second, each failure logged: measure a few of them
    await until(lambda: len(lines.messages(OUT_OF_FILES)) >= 3, timeout=20)
    for _, writer in held:
        writer.close()
    assert await post_event(port, mention("how do I deploy?", "522.000001"), SIGNING_SECRET) == 200
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    assert fake_slack.of("chat.postMessage")[0]["text"] == GOOD
    await stopped(process, lines)
    failures = lines.messages(OUT_OF_FILES)
    assert 1 <= len(failures) <= 5 and failures[0]["error"] == "OSError"
