"""What the loop tells whoever watches it (telemetry and the Slack status line, for two):
an interface, so that the agent imports neither Slack nor telemetry. A watcher is given
ids, codes, counts and timings, never text, and must not hold the loop up (a method that
needs I/O starts it and returns)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Literal, Protocol

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome

Kind = Literal["span", "generation", "guardrail", "retriever", "tool"]
Stage = Literal["drafting", "checking"]
Value = str | int | float | bool | None | Sequence[str]


class Step(Protocol):
    """One observed step of the loop (a model call, a verification, a search)."""

    def update(self, metadata: Mapping[str, Value]) -> None: ...

    def usage(self, usage: Usage, stop_reason: str | None) -> None: ...

    def fail(self, reason: str, level: Literal["WARNING", "ERROR"] = "ERROR") -> None: ...


class Observer(Protocol):
    """Told of each stage and step as it happens, of each verified attempt, and of the
    outcome."""

    def stage(self, stage: Stage, attempt: int, total: int) -> None:
        """Attempt `attempt` of at most `total` is drafting, or being checked."""
        ...

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
    """The observer when nobody watches (benches, `make chat` without telemetry), and the
    base of observers that watch only some of it."""

    def stage(self, stage: Stage, attempt: int, total: int) -> None:
        return None

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


class _Steps:
    """One step of the loop as each of several observers sees it."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps

    def update(self, metadata: Mapping[str, Value]) -> None:
        for step in self.steps:
            step.update(metadata)

    def usage(self, usage: Usage, stop_reason: str | None) -> None:
        for step in self.steps:
            step.usage(usage, stop_reason)

    def fail(self, reason: str, level: Literal["WARNING", "ERROR"] = "ERROR") -> None:
        for step in self.steps:
            step.fail(reason, level)


class Observers:
    """Several observers watching one run, each told everything in the order given."""

    def __init__(self, *observers: Observer) -> None:
        self.observers = observers

    def stage(self, stage: Stage, attempt: int, total: int) -> None:
        for observer in self.observers:
            observer.stage(stage, attempt, total)

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
        parents = _split(parent, len(self.observers))
        with ExitStack() as stack:
            steps = [
                stack.enter_context(o.observe(name, kind, parent=p, model=model, **metadata))
                for o, p in zip(self.observers, parents, strict=True)
            ]
            yield _Steps(steps)

    def checked(self, check: Step, attempt: Attempt) -> None:
        for observer, step in zip(self.observers, _split(check, len(self.observers)), strict=True):
            if step is not None:
                observer.checked(step, attempt)

    def conclude(self, outcome: Outcome, max_attempts: int) -> None:
        for observer in self.observers:
            observer.conclude(outcome, max_attempts)


def _split(step: Step | None, count: int) -> list[Step | None]:
    """Each observer's own part of a step that Observers made."""
    if isinstance(step, _Steps) and len(step.steps) == count:
        return list(step.steps)
    return [None] * count
