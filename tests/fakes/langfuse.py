"""A loopback Langfuse, as the langfuse SDK (5.x) and Vouch speak to it:

- OTLP/HTTP trace export (protobuf, gzip or not) and score ingestion (202, or 207 with the
  refused scores counted); `experiments()` reads the experiment runs the spans record;
- the Metrics API and the scores list. `version` picks the server: "v4" (and Cloud) offers
  the Metrics API v2 and v1, "v3" (self-hosted) answers the v2 one with Next.js's 404 page,
  "scores-only" has neither;
- the project (GET /api/public/projects), datasets and their items (create, get, page, as
  of a version) and annotation queues with their items (tests seed them with `add_dataset`
  and `add_queue`): tests/fakes/langfuse_datasets.py.

Every request needs HTTP Basic API keys (else a 401). Records every byte it receives,
decoded, for "nothing of the message leaves" assertions; can answer 500s or hang."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.fakes import langfuse_api
from tests.fakes.langfuse_datasets import Project, Refused
from tests.fakes.langfuse_experiments import Experiment, experiments
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
Json = dict[str, Any]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(eq=False)
class FakeLangfuse(LoopbackServer):
    spans: list[ExportedSpan] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    received: list[bytes] = field(default_factory=list)  # every body, decompressed
    queries: list[dict[str, Any]] = field(default_factory=list)  # Metrics API queries
    asked: list[str] = field(default_factory=list)  # paths of every read (GET) request
    posts: int = 0  # score batches received
    metrics: Metrics | None = None  # scripted Metrics API rows; None: aggregate the scores
    keys: set[str] = field(
        default_factory=set
    )  # record only these projects' requests (all if empty)
    status: int = 0  # answer every ingestion request with this status (0: succeed)
    delay: float = 0.0  # seconds to wait before answering (a slow or hanging Langfuse)
    drop: bool = False  # close ingestion connections without answering (a reset)
    version: str = "v4"  # which Langfuse server: "v4", "v3" or "scores-only" (see above)
    project: Project = field(default_factory=Project)  # its datasets and annotation queues
    _generation: int = 0  # resets so far: a request held across one is an earlier test's

    def reset(self) -> None:
        self._generation += 1
        self.spans.clear()
        self.scores.clear()
        self.received.clear()
        self.queries.clear()
        self.asked.clear()
        self.keys.clear()
        self.metrics = None
        self.status, self.delay, self.drop, self.version, self.posts = 0, 0.0, False, "v4", 0
        self.project.clear()

    def add_dataset(self, name: str, items: Iterable[Mapping[str, Any]] = ()) -> str:
        """A dataset with items ({input, expected_output, metadata, status, id}, each
        optional); returns its id."""
        return self.project.add_dataset(name, items)

    def add_queue(self, name: str, items: Iterable[tuple[str, str, str]] = ()) -> str:
        """An annotation queue with (object id, TRACE|OBSERVATION|SESSION,
        PENDING|COMPLETED) items; returns its id."""
        return self.project.add_queue(name, items)

    def experiments(self) -> dict[str, Experiment]:
        """The experiment runs recorded by the spans and scores received so far, by id."""
        return experiments(self.spans, self.scores)

    def named(self, name: str) -> list[ExportedSpan]:
        return [span for span in self.spans if span.name == name]

    def scores_named(self, name: str) -> list[dict[str, Any]]:
        return [score for score in self.scores if score.get("name") == name]

    def routes(self, app: web.Application) -> None:
        app.middlewares.append(_authorized)
        app.router.add_post("/api/public/otel/v1/traces", self._traces)
        app.router.add_post("/api/public/scores", self._scores)
        app.router.add_get("/api/public/v2/metrics", self._metrics)
        app.router.add_get("/api/public/metrics", self._metrics)
        app.router.add_get("/api/public/v2/scores", self._list)
        project, read, write = self.project, self._reading, self._writing
        app.router.add_get("/api/public/projects", read(lambda _: project.listing()))
        app.router.add_get(
            "/api/public/v2/datasets", read(lambda r: project.datasets_page(r.query))
        )
        app.router.add_post("/api/public/v2/datasets", write(project.create_dataset))
        app.router.add_get(
            "/api/public/v2/datasets/{name}", read(lambda r: project.dataset(r.match_info["name"]))
        )
        app.router.add_get("/api/public/dataset-items", read(lambda r: project.items_page(r.query)))
        app.router.add_post("/api/public/dataset-items", write(project.upsert_item))
        queues = "/api/public/annotation-queues"
        app.router.add_get(queues, read(lambda r: project.queues_page(r.query)))
        app.router.add_get(
            f"{queues}/{{queue}}", read(lambda r: project.queue(r.match_info["queue"]))
        )
        app.router.add_get(
            f"{queues}/{{queue}}/items",
            read(lambda r: project.queue_items_page(r.match_info["queue"], r.query)),
        )

    async def _body(self, request: web.Request) -> bytes | None:
        """The request's body, recorded; None for a project this test does not watch (a
        client from an earlier test still retrying into the shared server)."""
        body = await request.read()  # aiohttp undoes Content-Encoding: gzip
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        if self.keys and request.headers.get("x-langfuse-public-key") not in self.keys:
            return None
        generation = self._generation
        self.received.append(body)
        waited, step = 0.0, 0.05
        while waited < self.delay:  # reset() (delay 0) lets a hanging request go
            await asyncio.sleep(step)
            waited += step
        if generation != self._generation:  # held across a reset: not this test's
            return None
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
        """A batch of scores: 202 when all are stored, else 207 with the refused ones
        counted and described (the SDK does not retry a 207)."""
        body = await self._body(request)
        if self.drop and request.transport is not None:
            request.transport.close()
        if self.status:
            return web.json_response({"message": "fake failure"}, status=self.status)
        if body is None:
            return web.json_response({"message": "Accepted"}, status=202)
        self.posts += 1
        batch = json.loads(body)
        if not isinstance(batch, list):
            return web.json_response({"message": "Invalid request data"}, status=400)
        refusals = [langfuse_api.score_refusal(score) for score in batch]
        now = datetime.now(UTC).isoformat()
        for score, refusal in zip(batch, refusals, strict=True):
            if refusal is None:
                self.scores.append({"timestamp": now, **score})
        errors = [{"message": refusal} for refusal in refusals if refusal is not None]
        if not errors:
            return web.json_response({"message": "Accepted"}, status=202)
        accepted = len(batch) - len(errors)
        results = {"accepted": accepted, "rejected": len(errors), "errors": errors}
        return web.json_response(results, status=207)

    async def _metrics(self, request: web.Request) -> web.Response:
        """The Metrics API: v2 at /api/public/v2/metrics, v1 at /api/public/metrics (v1 has
        no scores-boolean view); a query either refuses is a 400, as Langfuse's zod check."""
        version = "v2" if request.path.startswith("/api/public/v2/") else "v1"
        self.asked.append(request.path)
        waited, step = 0.0, 0.05
        while waited < self.delay:  # a slow Metrics API; reset() lets it go
            await asyncio.sleep(step)
            waited += step
        if not self._offers(version):
            return _not_found()
        if self.status:
            return web.json_response({"message": "fake failure"}, status=self.status)
        try:
            query = json.loads(request.query["query"])
        except (KeyError, ValueError):
            return web.json_response({"message": "Invalid JSON in query parameter"}, status=400)
        refusal = langfuse_api.query_refusal(query, version)
        if refusal is not None:
            return web.json_response({"message": refusal}, status=400)
        self.queries.append(query)
        if self.metrics is not None:
            return web.json_response({"data": self.metrics(query)})
        types = langfuse_api.VIEWS[version][query["view"]]
        return web.json_response({"data": langfuse_api.aggregate(self.scores, query, types)})

    async def _list(self, request: web.Request) -> web.Response:
        """GET /api/public/v2/scores: one page of the stored scores, filtered."""
        self.asked.append(request.path)
        if self.status:
            return web.json_response({"message": "fake failure"}, status=self.status)
        params = dict(request.query)
        refusal = langfuse_api.list_refusal(params)
        if refusal is not None:
            return web.json_response({"message": refusal}, status=400)
        return web.json_response(langfuse_api.listed(self.scores, params))

    def _reading(self, answer: Callable[[web.Request], Json]) -> Handler:
        """A GET of the project's datasets or queues (tests/fakes/langfuse_datasets.py)."""

        async def read(request: web.Request) -> web.Response:
            self.asked.append(request.path)
            try:
                return web.json_response(answer(request))
            except Refused as refused:
                return web.json_response(refused.body, status=refused.status)

        return read

    def _writing(self, answer: Callable[[Any], Json]) -> Handler:
        """A POST to the project's datasets (tests/fakes/langfuse_datasets.py)."""

        async def write(request: web.Request) -> web.Response:
            body = await request.read()
            self.received.append(body)
            try:
                payload = json.loads(body)
            except ValueError:
                return web.json_response({"message": "Invalid JSON body"}, status=400)
            try:
                return web.json_response(answer(payload))
            except Refused as refused:
                return web.json_response(refused.body, status=refused.status)

        return write

    def _offers(self, version: str) -> bool:
        return version in _METRICS_APIS[self.version]

    def aggregate(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        """What the Metrics API v2 answers for a query over the scores received."""
        types = langfuse_api.VIEWS["v2"][query["view"]]
        return langfuse_api.aggregate(self.scores, query, types)


@web.middleware
async def _authorized(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Langfuse checks the API keys before anything else: a 401 without them."""
    refusal = langfuse_api.auth_refusal(request.headers.get("Authorization"))
    if refusal is not None:
        return web.json_response({"message": refusal}, status=401)
    return await handler(request)


_METRICS_APIS = {"v4": {"v2", "v1"}, "v3": {"v1"}, "scores-only": set()}  # per server version


def _not_found() -> web.Response:
    """What a Langfuse server without the route answers: Next.js's 404 page."""
    page = (
        "<!DOCTYPE html><html><body><h1>404</h1><p>This page could not be found.</p></body></html>"
    )
    return web.Response(status=404, text=page, content_type="text/html")


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind is not None else None
