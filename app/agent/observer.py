"""What the loop tells whoever watches it (telemetry, for one): an interface, so that the
agent imports neither Slack nor telemetry. A watcher is given ids, codes, counts and
timings, never text."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Literal, Protocol

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome

Kind = Literal["span", "generation", "guardrail", "retriever"]
Value = str | int | float | bool | None | Sequence[str]


class Step(Protocol):
    """One observed step of the loop (a model call, a verification, a search)."""

    def update(self, metadata: Mapping[str, Value]) -> None: ...

    def usage(self, usage: Usage, stop_reason: str | None) -> None: ...

    def fail(self, reason: str, level: Literal["WARNING", "ERROR"] = "ERROR") -> None: ...


class Observer(Protocol):
    """Told of each step as it happens, of each verified attempt, and of the outcome."""

    def observe(
        self,
        name: str,
        kind: Kind,
        *,
        parent: Step | None = None,
        model: str | None = None,
        **metadata: Value,
    ) -> AbstractContextManager[Step]: ...

    def checked(self, check: Step, attempt: Attempt) -> None: ...

    def conclude(self, outcome: Outcome, max_attempts: int) -> None: ...


class _Unobserved:
    """A step nobody watches."""

    def update(self, metadata: Mapping[str, Value]) -> None:
        return None

    def usage(self, usage: Usage, stop_reason: str | None) -> None:
        return None

    def fail(self, reason: str, level: Literal["WARNING", "ERROR"] = "ERROR") -> None:
        return None


class Unwatched:
    """The observer when nobody watches (benches, `make chat` without telemetry)."""

    @contextmanager
    def observe(
        self,
        name: str,
        kind: Kind,
        *,
        parent: Step | None = None,
        model: str | None = None,
        **metadata: Value,
    ) -> Iterator[Step]:
        yield _Unobserved()

    def checked(self, check: Step, attempt: Attempt) -> None:
        return None

    def conclude(self, outcome: Outcome, max_attempts: int) -> None:
        return None


UNWATCHED: Observer = Unwatched()
