"""`python -m app collect`: dataset items for a person to fill in, from what people flagged
in production: the answers given a 👎 (with the reason picked, if any) or the traces in a
Langfuse annotation queue. Vouch stores no message content, so an item holds no question:
it holds when the message was sent (a score's time is its Slack message's), the reason,
and the trace, from which a person finds the message in Slack and writes the question and
the expected behaviour. Until then `eval` leaves the item out.

Items go to a Langfuse dataset (created if missing; linked to their trace) or to a JSONL
file; an item already there is never written over (a person may have filled it in)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TextIO, TypeVar

import httpx
from langfuse.api import LangfuseAPI
from langfuse.api.core import ApiError

from app.errors import label
from app.eval.dataset import langfuse_input, read_jsonl
from app.eval.plan import EvalError
from app.metrics.api import PAGE, NotOffered, apis, listed_scores
from app.metrics.window import MetricsError
from app.settings import Settings
from app.telemetry.scores import REASONS

MAX_PAGES = 100  # of any list read here: 10,000 rows
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")  # what a local dataset's id may not hold
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Stub:
    """A dataset item to fill in (ids, a fixed reason, a time; never content), or, from a
    local dataset, an item whole (`input`, `expect`)."""

    id: str
    note: str
    metadata: dict[str, str]
    trace_id: str | None = None
    input: dict[str, Any] | None = None  # None: a question for a person to write
    expect: str = ""

    def line(self) -> str:
        """The item as a line of a local dataset: question and expect left to a person."""
        return json.dumps(
            {"id": self.id, "question": "", "expect": "", "note": self.note},
            ensure_ascii=False,
        )


@dataclass(frozen=True)
class Source:
    """Langfuse's APIs, as the SDK and plain HTTP speak them."""

    api: LangfuseAPI
    http: httpx.Client
    base_url: str

    @classmethod
    def from_settings(cls, settings: Settings) -> Source:
        public, secret = settings.langfuse_public_key, settings.langfuse_secret_key
        if public is None or secret is None:
            raise EvalError("set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY to collect items")
        timeout = float(settings.langfuse_timeout * 6)
        base = settings.langfuse_base_url
        api, http = apis(base, public, secret.get_secret_value(), timeout)
        return cls(api, http, base.rstrip("/"))


def thumbs_down(source: Source, environment: str, start: datetime, end: datetime) -> list[Stub]:
    """One stub per answer given a 👎 in the window, newest first, with the reason picked."""

    def listed(name: str) -> list[dict[str, Any]]:
        return listed_scores(source.http, name, environment, start, end)

    reasons = {  # only the fixed choices: a hand-made score cannot bring text in
        score["traceId"]: str(score.get("stringValue"))
        for score in listed("user_feedback_reason")
        if score.get("stringValue") in REASONS
    }
    stubs: dict[str, Stub] = {}
    link = _trace_links(source)
    for score in listed("user_feedback"):
        trace = score.get("traceId")
        if not trace or float(score["value"]) != 0.0 or trace in stubs:
            continue
        reason = reasons.get(trace) or "no reason picked"
        at = _when(score["timestamp"])
        stubs[trace] = Stub(
            id=f"thumbs-down-{trace[:16]}",
            note=(
                f"👎 ({reason}) on the answer to a message sent {at}: find it in Slack, then "
                f"write its question and expected behaviour. {link(trace)}"
            ),
            metadata={"from": "thumbs_down", "reason": reason, "sent": at, "trace": trace},
            trace_id=trace,
        )
    return list(stubs.values())


def queued(source: Source, queue: str) -> list[Stub]:
    """One stub per item of the annotation queue (a trace, an observation or a session)."""
    stubs = []
    link = _trace_links(source)
    items = _pages(
        lambda page: source.api.annotation_queues.list_queue_items(queue, page=page, limit=PAGE)
    )
    for item in items:
        kind, object_id = str(item.object_type), item.object_id
        trace = object_id if kind == "TRACE" else None
        where = link(trace) if trace else f"{kind.lower()} {object_id}"
        stubs.append(
            Stub(
                id=f"queue-{_ID_UNSAFE.sub('-', object_id)[:40]}",
                note=(
                    f"From annotation queue {queue} ({str(item.status).lower()}): find the "
                    f"message in Slack, then write its question and expected behaviour. {where}"
                ),
                metadata={"from": "annotation_queue", "queue": queue, kind.lower(): object_id},
                trace_id=trace,
            )
        )
    return stubs


def from_file(path: Path) -> list[Stub]:
    """A local dataset's items, whole, to copy into a Langfuse dataset (a docs folder as a
    path relative to the directory `eval` will run in: this one)."""
    return [
        Stub(
            id=item.id,
            note="",
            metadata={"from": path.name},
            input=langfuse_input(item, Path.cwd()),
            expect=item.expect or "",
        )
        for item in read_jsonl(path)
    ]


def to_dataset(source: Source, name: str, stubs: Sequence[Stub]) -> tuple[int, int]:
    """Add the stubs to the Langfuse dataset `name` (made if missing), linked to their
    traces; (added, already there)."""
    api = source.api
    try:
        api.datasets.get(name)
    except ApiError as exc:
        if exc.status_code != 404:
            raise
        api.datasets.create(
            name=name, description="Vouch: questions to evaluate (python -m app eval)"
        )
    there = {
        item.id
        for item in _pages(
            lambda page: api.dataset_items.list(dataset_name=name, page=page, limit=PAGE)
        )
    }
    # Langfuse's item ids are unique in the project, not the dataset: the dataset's name
    # goes in, so a trace collected into two datasets is an item of each
    scope = hashlib.sha256(name.encode()).hexdigest()[:8]
    added = 0
    for stub in stubs:
        item_id = f"{stub.id}-{scope}"
        if item_id in there:
            continue
        api.dataset_items.create(
            dataset_name=name,
            id=item_id,
            input=stub.input or {"question": ""},
            expected_output={"expect": stub.expect},
            metadata={**stub.metadata, **({"note": stub.note} if stub.note else {})},
            source_trace_id=stub.trace_id,
        )
        added += 1
    return added, len(stubs) - added


def to_file(path: Path, stubs: Sequence[Stub]) -> tuple[int, int]:
    """Append the stubs to a local dataset, leaving out ids it already has."""
    there: set[str] = set()
    try:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    there.add(str(json.loads(line).get("id")))
                except (ValueError, AttributeError):
                    continue
        new = [stub for stub in stubs if stub.id not in there]
        with path.open("a", encoding="utf-8") as out:
            out.writelines(stub.line() + "\n" for stub in new)
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"cannot write {path}: {type(exc).__name__}") from None
    return len(new), len(stubs) - len(new)


def run(
    settings: Settings,
    *,
    feedback: bool,
    queue: str | None,
    since: timedelta,
    jsonl: Path | None = None,
    dataset: str | None,
    path: Path | None,
    out: TextIO,
    now: datetime,
) -> int:
    """The command: read, write, and one line of what it did."""
    if jsonl is not None and dataset is None:
        raise EvalError("--from copies a local dataset into Langfuse: give --dataset NAME")
    source = Source.from_settings(settings)
    try:
        if jsonl is not None:
            what = str(jsonl)
            stubs = from_file(jsonl)
        elif feedback:
            what = f"👎 in the last {_span(since)}"
            stubs = _asked(
                lambda: thumbs_down(source, settings.langfuse_environment, now - since, now)
            )
        else:
            assert queue is not None
            what = f"annotation queue {queue}"
            stubs = _asked(lambda: queued(source, queue), missing=f"no annotation queue {queue}")
        if dataset is not None:
            added, kept = _asked(lambda: to_dataset(source, dataset, stubs))
            where = f"Langfuse dataset {dataset}"
        elif path is not None:
            added, kept = to_file(path, stubs)
            where = str(path)
        else:
            out.writelines(stub.line() + "\n" for stub in stubs)
            return 0
    finally:
        source.http.close()
    todo = sum(1 for stub in stubs if stub.input is None)
    then = (
        "Write each new one's question and expected behaviour, then run python -m app eval."
        if todo
        else f"Run python -m app eval {dataset or path} to evaluate them."
    )
    print(
        f"{len(stubs)} items from {what}: {added} added to {where}, {kept} already there. " + then,
        file=out,
    )
    return 0


def _asked(call: Callable[[], T], missing: str = "") -> T:
    """What Langfuse answered, or EvalError in one line (`missing`: what a 404 means)."""
    try:
        return call()
    except MetricsError as exc:
        raise EvalError(str(exc)) from None
    except NotOffered:
        raise EvalError("this Langfuse server has no scores API (it answered 404)") from None
    except ApiError as exc:
        if exc.status_code == 404 and missing:
            raise EvalError(f"Langfuse has {missing}") from None
        raise EvalError(f"Langfuse answered {exc.status_code}") from None
    except httpx.HTTPError as exc:
        raise EvalError(f"Langfuse is unreachable ({label(exc)})") from None


def _pages(fetch: Callable[[int], Any]) -> Iterator[Any]:
    """The rows of each page of one of the SDK's paginated lists, to the last page (more
    than MAX_PAGES: EvalError, rather than a part taken for the whole)."""
    for number in range(1, MAX_PAGES + 1):
        answer = fetch(number)
        yield from answer.data
        if number >= answer.meta.total_pages:
            return
    raise EvalError(f"Langfuse lists more than {MAX_PAGES * PAGE:,} items there")


def _trace_links(source: Source) -> Callable[[str], str]:
    """Where a trace is in Langfuse's UI (the project's id asked once), or its id."""
    try:
        projects = source.api.projects.get().data
    except (ApiError, httpx.HTTPError):
        projects = []
    if not projects:
        return lambda trace: f"trace {trace}"
    base = f"{source.base_url}/project/{projects[0].id}/traces/"
    return lambda trace: base + trace


def _span(window: timedelta) -> str:
    hours = window.total_seconds() / 3600
    return f"{hours / 24:g} days" if hours >= 48 else f"{hours:g} hours"


def _when(stamp: str) -> str:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M UTC")
