"""Where `python -m app metrics` gets its figures: the first of Langfuse's read APIs that the
server offers, newest first, and the same figures from each.

- Metrics API v2 (`GET /api/public/v2/metrics`): Langfuse Cloud and v4 servers.
- Metrics API v1 (`GET /api/public/metrics`): self-hosted v3 servers, which answer the v2
  one with a 404. It has no `scores-boolean` view: its `scores-numeric` view holds BOOLEAN
  scores too, so a BOOLEAN-only filter asks the same question.
- scores API (`GET /api/public/v2/scores`, paged): every score of each name in the window,
  aggregated here (average and count per name, or count per name and value), the way the
  Metrics API aggregates them. Bounded in pages and time.

The langfuse SDK (5.x) speaks only the v2 Metrics API; the other two are plain HTTP GETs
with the same keys (basic auth).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import httpx
from langfuse.api import LangfuseAPI
from langfuse.api.core import ApiError

from app.errors import label
from app.metrics.window import MetricsError

Rows = list[dict[str, Any]]
V2, V1, SCORES = "Metrics API v2", "Metrics API v1", "scores API"
PAGE = 100  # scores per page: the scores API's maximum
MAX_PAGES = 100  # per score name: 10,000 scores
SCORES_SECONDS = 120.0  # for every page of a report
# The score types each Metrics API view holds (v2's documented views).
VIEW_TYPES = {
    "scores-boolean": frozenset({"BOOLEAN"}),
    "scores-numeric": frozenset({"NUMERIC", "BOOLEAN"}),
    "scores-categorical": frozenset({"CATEGORICAL"}),
}


class NotOffered(Exception):
    """The server has no such API (it answered 404)."""


@dataclass(frozen=True)
class Ask:
    """One question of a report: the scores named `names` of the view's types in the
    window, counted (and `averaged`) per name, or per name and value (`by_value`)."""

    view: str
    names: tuple[str, ...]
    by_value: bool
    averaged: bool
    start: datetime
    end: datetime
    environment: str

    def query(self, version: str = "v2") -> dict[str, Any]:
        """The Metrics API query; for v1, scores-boolean as BOOLEAN scores-numeric."""
        view, kinds = self.view, []
        if version == "v1" and view == "scores-boolean":
            view, kinds = "scores-numeric", [_any_of("dataType", ["BOOLEAN"])]
        metrics = [{"measure": "count", "aggregation": "count"}]
        if self.averaged:
            metrics.insert(0, {"measure": "value", "aggregation": "avg"})
        dimensions = ["name", "stringValue"] if self.by_value else ["name"]
        return {
            "view": view,
            "dimensions": [{"field": name} for name in dimensions],
            "metrics": metrics,
            "filters": [
                _any_of("name", list(self.names)),
                _any_of("environment", [self.environment]),
                *kinds,
            ],
            "fromTimestamp": iso(self.start),
            "toTimestamp": iso(self.end),
            "config": {"row_limit": 1000},
        }


class Reader:
    """Asks each question of a report of the first API the server offers (a 404 moves on
    to the next), and keeps to that API for the rest of the report."""

    def __init__(
        self,
        api: LangfuseAPI,
        http: httpx.Client,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_pages: int = MAX_PAGES,
    ) -> None:
        self._api, self._http, self._clock, self._max_pages = api, http, clock, max_pages
        self._askers: list[tuple[str, Callable[[Ask], Rows]]] = [
            (V2, self._v2),
            (V1, self._v1),
            (SCORES, self._scores),
        ]
        self.source: str | None = None
        self.skipped: list[str] = []
        self.scores_read = 0
        self._deadline: float | None = None

    def ask(self, question: Ask) -> Rows:
        while self._askers:
            name, asker = self._askers[0]
            try:
                rows = _answered(name, partial(asker, question))
            except NotOffered:
                if self.source is not None:  # it answered before: not a missing API
                    raise MetricsError(f"the Langfuse {name} answered 404") from None
                self.skipped.append(name)
                self._askers.pop(0)
                continue
            self.source = name
            return rows
        raise MetricsError(
            "this Langfuse server offers neither the Metrics API (v2 or v1) nor the scores "
            "API (each answered 404): check LANGFUSE_BASE_URL"
        )

    def describe(self) -> str:
        """Which API answered, in one line."""
        line = f"Langfuse {self.source}"
        if self.source == SCORES:
            line += f", {self.scores_read:,} scores read and aggregated here"
        if self.skipped:
            line += f" ({' and '.join(self.skipped)} not offered by this server)"
        return line

    def _v2(self, question: Ask) -> Rows:
        rows: Rows = self._api.metrics.metrics(query=json.dumps(question.query())).data
        return rows

    def _v1(self, question: Ask) -> Rows:
        answer = self._get("/api/public/metrics", {"query": json.dumps(question.query("v1"))})
        rows = answer["data"]
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise TypeError("data is not a list of rows")
        return rows

    def _scores(self, question: Ask) -> Rows:
        kinds = VIEW_TYPES[question.view]
        groups: dict[tuple[str, str], list[float]] = {}
        for name in question.names:
            for score in self._listed(name, question):
                if score["dataType"] in kinds:
                    value = str(score["stringValue"]) if question.by_value else ""
                    numeric = 0.0 if question.by_value else float(score["value"])
                    groups.setdefault((name, value), []).append(numeric)
        return [_row(question, name, value, values) for (name, value), values in groups.items()]

    def _listed(self, name: str, question: Ask) -> Rows:
        """Every score named `name` in the window, within the bounds of the report."""
        if self._deadline is None:
            self._deadline = self._clock() + SCORES_SECONDS
        deadline = self._deadline

        def in_time() -> None:
            if self._clock() > deadline:
                raise MetricsError(
                    f"reading scores took over {SCORES_SECONDS:.0f} s: try a shorter --since"
                )

        scores = listed_scores(
            self._http,
            name,
            question.environment,
            question.start,
            question.end,
            max_pages=self._max_pages,
            in_time=in_time,
        )
        self.scores_read += len(scores)
        return scores

    def _get(self, path: str, params: dict[str, str]) -> Any:
        return _get(self._http, path, params)


def listed_scores(
    http: httpx.Client,
    name: str,
    environment: str,
    start: datetime,
    end: datetime,
    *,
    max_pages: int = MAX_PAGES,
    in_time: Callable[[], None] = lambda: None,
) -> Rows:
    """Every score named `name` in `environment` from `start` to `end` (the scores API,
    GET /api/public/v2/scores), page by page; `in_time()` is called before each page (it
    may raise). MetricsError past `max_pages`; NotOffered when the server has no such API;
    ApiError for another refusal."""
    params = {
        "name": name,
        "environment": environment,
        "fromTimestamp": iso(start),
        "toTimestamp": iso(end),
        "fields": "score",
        "limit": str(PAGE),
    }
    scores: Rows = []
    for page in range(1, max_pages + 1):
        in_time()
        answer = _get(http, "/api/public/v2/scores", {**params, "page": str(page)})
        scores += answer["data"]
        if page >= int(answer["meta"]["totalPages"]):
            return scores
    raise MetricsError(
        f"more than {max_pages * PAGE:,} {name} scores in this window for the scores API: "
        "try a shorter --since"
    )


def _get(http: httpx.Client, path: str, params: dict[str, str]) -> Any:
    response = http.get(path, params=params)
    if response.status_code == 404:
        raise NotOffered(path)
    if not response.is_success:
        raise ApiError(status_code=response.status_code, body=None)
    return response.json()


def apis(
    base_url: str, public: str, secret: str, timeout: float
) -> tuple[LangfuseAPI, httpx.Client]:
    """The SDK's REST client and a plain HTTP one (for what the SDK does not speak), both
    authenticated with the project's keys."""
    api = LangfuseAPI(
        base_url=base_url,
        username=public,
        password=secret,
        x_langfuse_public_key=public,
        timeout=timeout,
    )
    return api, client(base_url, public, secret, timeout)


def client(base_url: str, public: str, secret: str, timeout: float) -> httpx.Client:
    """An HTTP client for the APIs the SDK does not speak, authenticated as the SDK is."""
    return httpx.Client(
        base_url=base_url.rstrip("/"),
        auth=(public, secret),
        headers={"x-langfuse-public-key": public},
        timeout=timeout,
    )


def _answered(name: str, call: Callable[[], Rows]) -> Rows:
    """The rows, or NotOffered for a 404, or MetricsError in one line."""
    try:
        return call()
    except ApiError as exc:
        if exc.status_code == 404:
            raise NotOffered(name) from None
        raise MetricsError(f"the Langfuse {name} answered {exc.status_code}") from None
    except httpx.HTTPError as exc:
        raise MetricsError(f"Langfuse is unreachable ({label(exc)})") from None
    except (MetricsError, NotOffered):
        raise
    except Exception as exc:  # e.g. a 200 whose body is not what the API promises
        raise MetricsError(f"unexpected answer from Langfuse ({label(exc)})") from None


def _row(question: Ask, name: str, value: str, values: list[float]) -> dict[str, Any]:
    """A result row as the Metrics API shapes it (counts as strings)."""
    row: dict[str, Any] = {"name": name, "count_count": str(len(values))}
    if question.by_value:
        row["stringValue"] = value
    if question.averaged:
        row["avg_value"] = sum(values) / len(values)
    return row


def _any_of(column: str, values: list[str]) -> dict[str, Any]:
    return {"column": column, "operator": "any of", "value": values, "type": "stringOptions"}


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
