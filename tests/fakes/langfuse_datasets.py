"""A Langfuse project's datasets and annotation queues, as the public REST API stores, pages
and refuses them (web/src/pages/api/public/** and their zod schemas in Langfuse's source):

- the project (GET /api/public/projects), which the SDK reads for experiment ids and URLs;
- datasets (POST and GET /api/public/v2/datasets, GET /api/public/v2/datasets/{name}),
  created or updated by name;
- dataset items (POST and GET /api/public/dataset-items), upserted by id and versioned: each
  change is a new version, and `?version=` lists the items as they were at that moment;
- annotation queues (GET /api/public/annotation-queues[/{id}[/items]]), seeded by tests.

A refused request raises `Refused` with Langfuse's status and JSON body: zod's 400
("Invalid request data" and the issues) and LangfuseNotFoundError's 404. Lists are pages of
`{"data": [...], "meta": {page, limit, totalItems, totalPages}}`, newest first."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

Json = dict[str, Any]

_ITEM_STATUSES = {"ACTIVE", "ARCHIVED"}
_QUEUE_STATUSES = {"PENDING", "COMPLETED"}
_OBJECT_TYPES = {"TRACE", "OBSERVATION", "SESSION"}
_PAGING = {"page", "limit"}
_ITEM_FIELDS = (  # what an upsert may change
    "input",
    "expectedOutput",
    "metadata",
    "sourceTraceId",
    "sourceObservationId",
    "status",
)


class Refused(Exception):
    """A request Langfuse answers with `status` and `body` instead of doing it."""

    def __init__(self, status: int, body: Json) -> None:
        super().__init__(body.get("message"))
        self.status, self.body = status, body


def invalid(field_name: str, message: str) -> Refused:
    """zod's refusal, as Langfuse's withMiddlewares answers it: 400 with the issues."""
    issue = {"code": "custom", "path": [field_name], "message": message}
    return Refused(400, {"message": "Invalid request data", "error": [issue]})


def not_found(message: str) -> Refused:
    return Refused(404, {"message": message, "error": "LangfuseNotFoundError"})


def stamp(moment: datetime) -> str:
    """A time as Langfuse's JSON shows it (JavaScript's Date.toJSON)."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def paging(params: Mapping[str, str]) -> tuple[int, int]:
    """`page` and `limit` as publicApiPaginationZod takes them: empty or absent means 1 and
    50, page > 0, limit <= 100. Langfuse lets limit < 1 through zod and then answers a meta
    its own response schema refuses (totalPages Infinity); the fake refuses it instead."""
    page, limit = _number(params, "page", 1), _number(params, "limit", 50)
    if page < 1:
        raise invalid("page", "Number must be greater than 0")
    if limit > 100:
        raise invalid("limit", "Number must be less than or equal to 100")
    if limit < 1:
        raise invalid("limit", "Number must be greater than 0")
    return page, limit


def _number(params: Mapping[str, str], name: str, default: int) -> int:
    raw = params.get(name, "")
    if raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise invalid(name, "Expected number, received nan") from None


def page_of(rows: list[Json], page: int, limit: int) -> Json:
    return {
        "data": rows[(page - 1) * limit : page * limit],
        "meta": {
            "page": page,
            "limit": limit,
            "totalItems": len(rows),
            "totalPages": -(-len(rows) // limit),
        },
    }


def _strict(params: Mapping[str, str], allowed: set[str]) -> None:
    """zod's `.strict()`: a query key the schema does not name is a 400."""
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise invalid(unknown[0], f"Unrecognized key(s) in object: {unknown}")


def _optional_string(body: Json, name: str) -> None:
    if body.get(name) is not None and not isinstance(body[name], str):
        raise invalid(name, "Expected string")


@dataclass
class Project:
    """One project's stored datasets, items and annotation queues."""

    id: str = "proj-vouch"
    name: str = "vouch"
    datasets: dict[str, Json] = field(default_factory=dict)  # by name, as the API shows them
    items: dict[str, list[Json]] = field(default_factory=dict)  # by id: every version, oldest first
    queues: dict[str, Json] = field(default_factory=dict)  # by id
    queue_items: dict[str, list[Json]] = field(default_factory=dict)  # by queue id
    _last: datetime = field(default_factory=lambda: datetime.now(UTC))

    def clear(self) -> None:
        self.datasets.clear()
        self.items.clear()
        self.queues.clear()
        self.queue_items.clear()

    def now(self) -> datetime:
        """The time, a millisecond after the last one at least: newest-first orders and item
        versions stay strict when two writes land in the same millisecond."""
        self._last = max(datetime.now(UTC), self._last + timedelta(milliseconds=1))
        return self._last

    def listing(self) -> Json:
        """GET /api/public/projects: the one project the API keys belong to."""
        organization = {"id": "org-vouch", "name": "Vouch"}
        project = {"id": self.id, "name": self.name, "organization": organization, "metadata": {}}
        return {"data": [project]}

    # Datasets

    def create_dataset(self, body: Any) -> Json:
        """POST /api/public/v2/datasets: created, or updated if the name exists (the fields
        given replace the stored ones)."""
        if not isinstance(body, dict):
            raise invalid("", "Expected object")
        name = body.get("name")
        if not isinstance(name, str):
            raise invalid("name", "Required" if name is None else "Expected string")
        _optional_string(body, "description")
        for schema in ("inputSchema", "expectedOutputSchema"):
            if body.get(schema) is not None and not isinstance(body[schema], dict):
                raise invalid(schema, "Expected a JSON Schema object")
        moment = stamp(self.now())
        stored = self.datasets.get(name)
        if stored is None:
            stored = {
                "id": str(uuid.uuid4()),
                "projectId": self.id,
                "name": name,
                "description": None,
                "metadata": None,
                "inputSchema": None,
                "expectedOutputSchema": None,
                "createdAt": moment,
            }
            self.datasets[name] = stored
        fields = ("description", "metadata", "inputSchema", "expectedOutputSchema")
        stored.update({k: body[k] for k in fields if body.get(k) is not None}, updatedAt=moment)
        return dict(stored)

    def dataset(self, name: str) -> Json:
        """GET /api/public/v2/datasets/{datasetName}."""
        if name not in self.datasets:
            raise not_found("Dataset not found")
        return dict(self.datasets[name])

    def datasets_page(self, params: Mapping[str, str]) -> Json:
        """GET /api/public/v2/datasets."""
        page, limit = paging(params)
        rows = sorted(self.datasets.values(), key=lambda d: d["createdAt"], reverse=True)
        return page_of([dict(row) for row in rows], page, limit)

    # Dataset items

    def upsert_item(self, body: Any) -> Json:
        """POST /api/public/dataset-items: a new item (ACTIVE unless told), or a new version of
        the item with that id; fields sent as null or left out keep their value."""
        if not isinstance(body, dict):
            raise invalid("", "Expected object")
        name = body.get("datasetName")
        if not isinstance(name, str):
            raise invalid("datasetName", "Required" if name is None else "Expected string")
        for key in ("id", "sourceTraceId", "sourceObservationId"):
            _optional_string(body, key)
        if body.get("status") is not None and body["status"] not in _ITEM_STATUSES:
            raise invalid("status", f"Invalid enum value. Expected {sorted(_ITEM_STATUSES)}")
        if name not in self.datasets:
            raise not_found("Dataset not found")
        dataset = self.datasets[name]
        item_id = body.get("id") or str(uuid.uuid4())
        versions = self.items.get(item_id, [])
        if versions and versions[-1]["datasetId"] != dataset["id"]:
            raise not_found(
                f"The dataset item with id {item_id} already exists in a dataset other than {name}"
            )
        moment = stamp(self.now())
        item = (
            dict(versions[-1])
            if versions
            else {
                "id": item_id,
                "status": "ACTIVE",
                "input": None,
                "expectedOutput": None,
                "metadata": None,
                "sourceTraceId": None,
                "sourceObservationId": None,
                "datasetId": dataset["id"],
                "datasetName": name,
                "createdAt": moment,
                "mediaReferences": [],
            }
        )
        item.update({k: body[k] for k in _ITEM_FIELDS if body.get(k) is not None})
        item.update(updatedAt=moment, version=moment)
        self.items[item_id] = [*versions, item]
        return dict(item)

    def items_page(self, params: Mapping[str, str]) -> Json:
        """GET /api/public/dataset-items: the items of `datasetName` (of every dataset if not
        given), filtered by source trace or observation; with `version`, each item as it was
        then, and only the items that existed then."""
        page, limit = paging(params)
        name = params.get("datasetName") or None
        version: datetime | None = None
        if params.get("version"):
            version = _moment(params["version"])
            if version is None:
                raise invalid("version", "Invalid date")
            if name is None:
                raise invalid(
                    "datasetName", "datasetName is required when version parameter is provided"
                )
        if name is not None and name not in self.datasets:
            raise not_found("Dataset not found")
        rows = [item for item in (_at(v, version) for v in self.items.values()) if item]
        if name is not None:
            rows = [item for item in rows if item["datasetName"] == name]
        for key in ("sourceTraceId", "sourceObservationId"):
            if params.get(key):
                rows = [item for item in rows if item[key] == params[key]]
        rows.sort(key=lambda item: item["createdAt"], reverse=True)
        return page_of([dict(row) for row in rows], page, limit)

    def add_dataset(self, name: str, items: Iterable[Mapping[str, Any]] = ()) -> str:
        """Seed a dataset and its items (keys as the SDK's create_dataset_item takes them:
        input, expected_output, metadata, status, id); returns the dataset's id."""
        dataset = self.create_dataset({"name": name})
        for item in items:
            self.upsert_item(
                {
                    "datasetName": name,
                    "input": item.get("input"),
                    "expectedOutput": item.get("expected_output"),
                    "metadata": item.get("metadata"),
                    "status": item.get("status"),
                    "id": item.get("id"),
                }
            )
        return str(dataset["id"])

    # Annotation queues

    def add_queue(self, name: str, items: Iterable[tuple[str, str, str]] = ()) -> str:
        """Seed an annotation queue with (object id, object type, status) items; returns its
        id. A name already taken is refused, as POST /annotation-queues answers 409."""
        if any(queue["name"] == name for queue in self.queues.values()):
            raise ValueError(f"A queue named {name!r} already exists")
        moment = stamp(self.now())
        queue_id = str(uuid.uuid4())
        self.queues[queue_id] = {
            "id": queue_id,
            "name": name,
            "description": None,
            "scoreConfigIds": [],
            "createdAt": moment,
            "updatedAt": moment,
        }
        self.queue_items[queue_id] = []
        for object_id, object_type, status in items:
            if object_type not in _OBJECT_TYPES or status not in _QUEUE_STATUSES:
                raise ValueError(f"Not a queue item: {(object_id, object_type, status)}")
            created = stamp(self.now())
            self.queue_items[queue_id].append(
                {
                    "id": str(uuid.uuid4()),
                    "queueId": queue_id,
                    "objectId": object_id,
                    "objectType": object_type,
                    "status": status,
                    "completedAt": created if status == "COMPLETED" else None,
                    "createdAt": created,
                    "updatedAt": created,
                }
            )
        return queue_id

    def queues_page(self, params: Mapping[str, str]) -> Json:
        """GET /api/public/annotation-queues (a strict query: only page and limit)."""
        _strict(params, _PAGING)
        page, limit = paging(params)
        rows = sorted(self.queues.values(), key=lambda q: q["createdAt"], reverse=True)
        return page_of([dict(row) for row in rows], page, limit)

    def queue(self, queue_id: str) -> Json:
        """GET /api/public/annotation-queues/{queueId}."""
        if queue_id not in self.queues:
            raise not_found("Annotation queue not found")
        return dict(self.queues[queue_id])

    def queue_items_page(self, queue_id: str, params: Mapping[str, str]) -> Json:
        """GET /api/public/annotation-queues/{queueId}/items, optionally of one `status`."""
        _strict(params, _PAGING | {"status", "queueId"})
        status = params.get("status")
        if status is not None and status not in _QUEUE_STATUSES:
            raise invalid("status", f"Invalid enum value. Expected {sorted(_QUEUE_STATUSES)}")
        page, limit = paging(params)
        if queue_id not in self.queues:
            raise not_found("Annotation queue not found")
        rows = [i for i in self.queue_items[queue_id] if status in (None, i["status"])]
        rows.sort(key=lambda item: item["createdAt"], reverse=True)
        return page_of([dict(row) for row in rows], page, limit)


def _at(versions: list[Json], moment: datetime | None) -> Json | None:
    """An item's version current at `moment` (the latest if None), or None before it was."""
    if moment is None:
        return versions[-1]
    then = [v for v in versions if datetime.fromisoformat(v["version"]) <= moment]
    return then[-1] if then else None


def _moment(text: str) -> datetime | None:
    """A time as z.coerce.date reads a query string: ISO 8601, UTC if no offset given."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
