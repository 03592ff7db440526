"""A real redis-server on a free loopback port, for the several-instances tests and bench.

The binary is `redis-server` on PATH (`make test` installs Debian's package when it is
missing) or the file named by REDIS_SERVER. Nothing is persisted unless a directory is
given: then an append-only file there, written on every command (as a deployment whose
record must survive a Redis restart would run it, with `everysec` at most)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.fakes.server import free_port


def redis_binary() -> str:
    found = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
    if not found:
        raise RuntimeError(
            "redis-server not found: `make test` installs it (Debian's redis-server); "
            "elsewhere install Redis or set REDIS_SERVER to its path"
        )
    return found


@dataclass
class RedisServer:
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    persist_in: Path | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (or start again, on the same port) and wait until it answers PING."""
        persistence = ["--appendonly", "no"]
        if self.persist_in is not None:
            self.persist_in.mkdir(parents=True, exist_ok=True)
            persistence = ["--appendonly", "yes", "--appendfsync", "always"]
            persistence += ["--dir", str(self.persist_in)]
        self.process = subprocess.Popen(
            [
                redis_binary(),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                *persistence,
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self.ping():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Kill it (an outage: clients see their connections dropped)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *args: str) -> bytes:
        """One command in the inline protocol; the raw reply (for tests' own checks)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(" ".join(args).encode() + b"\r\n")
            return sock.recv(65536)


@contextmanager
def running_redis(persist_in: Path | None = None) -> Iterator[RedisServer]:
    server = RedisServer(persist_in=persist_in)
    server.start()
    try:
        yield server
    finally:
        server.stop()
