"""A loopback Langfuse: OTLP/HTTP trace export (protobuf, gzip or not), score ingestion and
the Metrics API v2, as the langfuse SDK speaks them. Records every byte it receives, decoded,
for "nothing of the message leaves" assertions; can answer 500s or hang."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.fakes.server import LoopbackServer

_METADATA = "langfuse.observation.metadata."


@dataclass(frozen=True)
class ExportedSpan:
    """One span as exported, attributes decoded from OTLP's AnyValue."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    scope: str
    attributes: dict[str, Any]
    start_ns: int
    end_ns: int

    @property
    def type(self) -> str:
        return str(self.attributes.get("langfuse.observation.type", ""))

    @property
    def metadata(self) -> dict[str, Any]:
        """The observation's metadata, each value JSON-decoded as the SDK encoded it."""
        return {
            key.removeprefix(_METADATA): json.loads(value)
            for key, value in self.attributes.items()
            if key.startswith(_METADATA)
        }

    @property
    def usage(self) -> dict[str, int]:
        raw = self.attributes.get("langfuse.observation.usage_details")
        return json.loads(raw) if isinstance(raw, str) else {}


Metrics = Callable[[dict[str, Any]], list[dict[str, Any]]]


@dataclass(eq=False)
class FakeLangfuse(LoopbackServer):
    spans: list[ExportedSpan] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    received: list[bytes] = field(default_factory=list)  # every body, decompressed
    queries: list[dict[str, Any]] = field(default_factory=list)  # Metrics API queries
    metrics: Metrics | None = None  # scripted Metrics API rows; None: aggregate the scores
    keys: set[str] = field(
        default_factory=set
    )  # record only these projects' requests (all if empty)
    status: int = 0  # answer every ingestion request with this status (0: succeed)
    delay: float = 0.0  # seconds to wait before answering (a slow or hanging Langfuse)
    drop: bool = False  # close ingestion connections without answering (a reset)

    def reset(self) -> None:
        self.spans.clear()
        self.scores.clear()
        self.received.clear()
        self.queries.clear()
        self.keys.clear()
        self.metrics = None
        self.status, self.delay, self.drop = 0, 0.0, False

    def named(self, name: str) -> list[ExportedSpan]:
        return [span for span in self.spans if span.name == name]

    def scores_named(self, name: str) -> list[dict[str, Any]]:
        return [score for score in self.scores if score.get("name") == name]

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/api/public/otel/v1/traces", self._traces)
        app.router.add_post("/api/public/scores", self._scores)
        app.router.add_get("/api/public/v2/metrics", self._metrics)

    async def _body(self, request: web.Request) -> bytes | None:
        """The request's body, recorded; None for a project this test does not watch (a
        client from an earlier test still retrying into the shared server)."""
        body = await request.read()  # aiohttp undoes Content-Encoding: gzip
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        if self.keys and request.headers.get("x-langfuse-public-key") not in self.keys:
            return None
        self.received.append(body)
        waited, step = 0.0, 0.05
        while waited < self.delay:  # reset() (delay 0) lets a hanging request go
            await asyncio.sleep(step)
            waited += step
        return body

    async def _traces(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if self.drop and request.transport is not None:
            request.transport.close()
        if self.status:
            return web.Response(status=self.status, text="fake failure")
        if body is None:
            return web.Response(body=b"", content_type="application/x-protobuf")
        export = ExportTraceServiceRequest.FromString(body)
        for resource_spans in export.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    self.spans.append(
                        ExportedSpan(
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            name=span.name,
                            scope=scope_spans.scope.name,
                            attributes={kv.key: _value(kv.value) for kv in span.attributes},
                            start_ns=span.start_time_unix_nano,
                            end_ns=span.end_time_unix_nano,
                        )
                    )
        return web.Response(
            body=b"", content_type="application/x-protobuf"
        )  # an empty ExportTraceServiceResponse

    async def _scores(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if self.drop and request.transport is not None:
            request.transport.close()
        if self.status:
            return web.json_response({"message": "fake failure"}, status=self.status)
        if body is not None:
            self.scores.extend(json.loads(body))
        return web.json_response({"message": "Accepted"}, status=202)

    async def _metrics(self, request: web.Request) -> web.Response:
        if self.status:
            return web.json_response({"message": "fake failure"}, status=self.status)
        query = json.loads(request.query["query"])
        self.queries.append(query)
        rows = self.metrics(query) if self.metrics is not None else self.aggregate(query)
        return web.json_response({"data": rows})

    def aggregate(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        """What Langfuse answers for a scores-* query over the scores received: "any of"
        filters, grouping by dimensions, avg/count measures named `<aggregation>_<measure>`
        (counts as strings, as ClickHouse returns them)."""
        types = _VIEW_TYPES[query["view"]]
        # a score replaces the one with its id and the same day of its timestamp (ClickHouse
        # ReplacingMergeTree ordered by day): a repeat on another day is stored twice
        latest = {(s["id"], str(s.get("timestamp", ""))[:10]): s for s in self.scores}
        rows = [s for s in latest.values() if s.get("dataType") in types]
        for rule in query.get("filters", []):
            assert rule["operator"] == "any of", rule
            rows = [s for s in rows if _field(s, rule["column"]) in rule["value"]]
        groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        fields = [d["field"] for d in query.get("dimensions", [])]
        for score in rows:
            groups.setdefault(tuple(_field(score, f) for f in fields), []).append(score)
        result = []
        for key, members in groups.items():
            row: dict[str, Any] = dict(zip(fields, key, strict=True))
            for metric in query["metrics"]:
                if metric["aggregation"] == "count":
                    row["count_count"] = str(len(members))
                else:
                    values = [float(m["value"]) for m in members]
                    row[f"avg_{metric['measure']}"] = sum(values) / len(values)
            result.append(row)
        return result


_VIEW_TYPES = {
    "scores-boolean": {"BOOLEAN"},
    "scores-numeric": {"NUMERIC", "BOOLEAN"},
    "scores-categorical": {"CATEGORICAL"},
}


def _field(score: dict[str, Any], name: str) -> Any:
    return score["value"] if name == "stringValue" else score.get(name)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind is not None else None
