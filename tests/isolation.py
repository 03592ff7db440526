"""Tests are isolated from the developer's machine (a pytest plugin, loaded by conftest.py).

Nothing in the shell changes a test: every setting of Vouch (any case: pydantic-settings
ignores it), every variable the service SDKs read (ANTHROPIC_*, LANGFUSE_*, SLACK_*, OTEL_*, and
the AWS and Google credentials Bedrock's and Vertex's clients find: AWS_*, GOOGLE_*, CLOUDSDK_*)
and every proxy variable (which could route loopback traffic elsewhere) is removed from the
environment for the session, and Settings read no `.env`. `python -m app` processes get
`process_env()`, the same clean environment.

And tests reach loopback only: resolving or connecting to any other host raises, and the
attempt fails the test even when the code under test caught the error.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from app.settings import Settings

SETTINGS = frozenset(name.upper() for name in Settings.model_fields)
SERVICES = ("ANTHROPIC_", "LANGFUSE_", "SLACK_", "OTEL_", "AWS_", "GOOGLE_", "CLOUDSDK_")


def foreign(name: str) -> bool:
    """Whether the environment variable `name` could change what a test does."""
    upper = name.upper()
    return upper in SETTINGS or upper.startswith(SERVICES) or upper.endswith("_PROXY")


def process_env(**env: str) -> dict[str, str]:
    """The environment of a process a test starts: the shell's without anything foreign,
    then `env`."""
    return {**{k: v for k, v in os.environ.items() if not foreign(k)}, **env}


class NonLoopback(ConnectionRefusedError):
    """A test tried to reach a host that is not loopback."""


def is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    name = host.strip("[]").split("%")[0].lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class Guard:
    """Refuses, and records, every resolution or connection of a non-loopback host."""

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._getaddrinfo = socket.getaddrinfo
        self._connect = socket.socket.connect
        self._connect_ex = socket.socket.connect_ex

    def refuse(self, what: str) -> NonLoopback:
        self.attempts.append(what)
        return NonLoopback(f"a test tried to reach {what}: tests may reach loopback only")

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host is None or host in ("", "0.0.0.0", "::") or is_loopback(host):  # binds too
            return self._getaddrinfo(host, port, *args, **kwargs)
        raise self.refuse(f"{host!r} port {port}")

    def checked(self, address: Any) -> None:
        if isinstance(address, tuple) and not is_loopback(address[0]):
            raise self.refuse(f"{address[0]!r} port {address[1]}")

    def install(self, patch: pytest.MonkeyPatch) -> None:
        guard = self

        def connect(sock: socket.socket, address: Any) -> None:
            guard.checked(address)
            guard._connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            guard.checked(address)
            return guard._connect_ex(sock, address)

        patch.setattr(socket, "getaddrinfo", self.getaddrinfo)
        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "connect_ex", connect_ex)


_guard = Guard()


@pytest.fixture(scope="session", autouse=True)
def isolated() -> Iterator[Guard]:
    """For the whole session: no foreign environment, no `.env`, loopback only."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if foreign(name)]:
            patch.delenv(name)
        patch.setitem(Settings.model_config, "env_file", None)
        _guard.install(patch)
        yield _guard


@pytest.fixture(autouse=True)
def loopback_only(isolated: Guard) -> Iterator[Guard]:
    """Fails the test if it tried to reach another host, even if the error was caught."""
    isolated.attempts.clear()
    yield isolated
    attempts, isolated.attempts[:] = list(isolated.attempts), []
    assert not attempts, f"tests may reach loopback only; this one tried {attempts}"
