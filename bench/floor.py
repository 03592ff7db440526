"""The floor under bench.load's burst ack figure: the same client sending the same 200
signed events at once to a server process that only reads each body and answers 200
(aiohttp, as the bot's HTTP server is). What bench.load reports above this is the bot's.

Run: .venv/bin/python -m bench.floor [--rounds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import subprocess
import sys

from aiohttp import web

from bench import wire
from bench.bots import body_for, signed
from bench.load import spread
from bench.stats import p99
from tests.fakes.server import free_port, wait_healthy

BURST = 200


async def burst(url: str, r: int) -> list[float]:
    """Acknowledgement times (ms) of BURST events sent at once, as bench.load sends them."""
    sender = wire.Sender()

    async def post(i: int) -> None:
        body = body_for(i, r)
        await sender.send(url, body, signed(body))

    try:
        await asyncio.gather(*(post(i) for i in range(BURST)))
    finally:
        sender.close()
    return sender.acks


async def measure(rounds: int) -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "bench.floor", "--serve", str(port)])
    url = f"http://127.0.0.1:{port}"
    try:
        await wait_healthy(url)
        gc.collect()
        gc.freeze()
        every: list[float] = []
        for r in range(rounds):
            acks = await burst(url, r)
            print(f"round {r + 1}: ack {spread(acks)}")
            every += acks
            await asyncio.sleep(0.5)
        p99s = [p99(every[k : k + BURST]) for k in range(0, len(every), BURST)]
        print(f"\nfloor, {BURST} events at once × {rounds}: ack {spread(every)}")
        print(f"  median of the rounds' p99: {statistics.median(p99s):.1f} ms")
    finally:
        server.terminate()
        server.wait(10)


def serve(port: int) -> None:
    async def event(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(status=200)

    async def healthz(request: web.Request) -> web.Response:
        return web.Response(status=200)

    async def settle(app: web.Application) -> None:
        gc.collect()
        gc.freeze()  # as the bot does after start-up

    app = web.Application()
    app.on_startup.append(settle)
    app.router.add_post("/slack/events", event)
    app.router.add_get("/healthz", healthz)
    web.run_app(app, host="127.0.0.1", port=port, backlog=1024, print=None, access_log=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
    else:
        asyncio.run(measure(args.rounds))


if __name__ == "__main__":
    main()
