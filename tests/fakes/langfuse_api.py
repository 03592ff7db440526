"""What a Langfuse server accepts and answers on the endpoints Vouch uses, as pure functions
over the scores it stored: the Metrics API (v2 on Cloud and v4 servers, v1 on v3 servers),
the scores list (GET /api/public/v2/scores) and score ingestion (POST /api/public/scores,
202 or 207 per item), and the API keys every endpoint asks for. Each `*_refusal` returns
Langfuse's reason for a 400 (a 401 for `auth_refusal`), or None."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

Score = dict[str, Any]

# The score views of each Metrics API version (v1 has no scores-boolean view) and the score
# types each view holds.
VIEWS: dict[str, dict[str, set[str]]] = {
    "v2": {
        "scores-boolean": {"BOOLEAN"},
        "scores-numeric": {"NUMERIC", "BOOLEAN"},
        "scores-categorical": {"CATEGORICAL", "TEXT"},
    },
    "v1": {
        "scores-numeric": {"NUMERIC", "BOOLEAN"},
        "scores-categorical": {"CATEGORICAL", "TEXT"},
    },
}
_DIMENSIONS = {"environment", "name", "source", "dataType", "configId", "timestampMonth"}
_HIGH_CARDINALITY = {"id", "traceId", "observationId", "sessionId", "userId"}
_VALUE_DIMENSION = {
    "scores-boolean": "booleanValue",
    "scores-numeric": "value",
    "scores-categorical": "stringValue",
}
_AGGREGATIONS = {"sum", "avg", "count", "max", "min", "p50", "p75", "p90", "p95", "p99"}
_QUERY_KEYS = {
    "view",
    "dimensions",
    "metrics",
    "filters",
    "timeDimension",
    "fromTimestamp",
    "toTimestamp",
    "orderBy",
    "config",
}
_DATA_TYPES = {"NUMERIC", "BOOLEAN", "CATEGORICAL", "TEXT", "CORRECTION"}
_ENVIRONMENT = re.compile(r"[a-z0-9_-]{1,40}")
_SCORE_FIELDS = {"score", "trace"}


def auth_refusal(header: str | None) -> str | None:
    """Why Langfuse answers 401 for the request's Authorization header, or None. The fake
    takes any keys, but only as HTTP Basic public:secret, as the SDK and Vouch send them
    (Langfuse takes a Bearer public key alone on a few score routes; nobody here sends one)."""
    if not header:
        return "No authorization header"
    scheme, _, credentials = header.partition(" ")
    try:
        decoded = base64.b64decode(credentials, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        decoded = ""
    public, _, secret = decoded.partition(":")
    if scheme != "Basic" or not public or not secret:
        return "Invalid authorization header. Confirm that you've configured the correct host."
    return None


def query_refusal(query: Any, version: str) -> str | None:
    """Why Langfuse's Metrics API `version` refuses a query with 400 (zod's checks and
    the view's declared dimensions and measures), or None."""
    return next(_query_problems(query, version), None)


def _query_problems(query: Any, version: str) -> Iterator[str]:
    """Each check runs only if the ones before passed (the caller takes the first)."""
    if not isinstance(query, dict) or not set(query) <= _QUERY_KEYS:
        yield "Invalid request data: unknown keys"
    views = VIEWS[version]
    view = query.get("view")
    if view not in views:
        yield f"Invalid request data: view must be one of {sorted(views)}"
    dimensions = {"name", *_DIMENSIONS, _VALUE_DIMENSION[view]}
    for dimension in query.get("dimensions", []):
        field = dimension.get("field")
        if field not in dimensions or (version == "v2" and field in _HIGH_CARDINALITY):
            yield f"Invalid dimension {field}"
    measures = {"count"} if view == "scores-categorical" else {"count", "value"}
    metrics = query.get("metrics")
    if not isinstance(metrics, list) or not metrics:
        yield "Invalid request data: metrics must hold at least one metric"
    for metric in metrics:
        if metric.get("measure") not in measures or metric.get("aggregation") not in _AGGREGATIONS:
            yield f"Invalid metric {metric}"
    for rule in query.get("filters", []):
        if rule.get("column") not in dimensions | _HIGH_CARDINALITY or "type" not in rule:
            yield f"Invalid filter {rule.get('column')}"
    start, end = _moment(query.get("fromTimestamp")), _moment(query.get("toTimestamp"))
    if start is None or end is None:
        yield "Invalid request data: fromTimestamp and toTimestamp need an ISO time and offset"
    elif not start < end:
        yield "fromTimestamp must be before toTimestamp"
    config = query.get("config", {})
    if not {"bins", "row_limit"} >= set(config) or not 0 < config.get("row_limit", 1) <= 1000:
        yield "Invalid request data: config"


def aggregate(scores: list[Score], query: Mapping[str, Any], view_types: set[str]) -> list[Score]:
    """A Metrics API answer: "any of" filters over the scores in the time window, grouped by
    the dimensions; measures named `<aggregation>_<measure>`, counts as strings (as
    ClickHouse returns them)."""
    start, end = _moment(query["fromTimestamp"]), _moment(query["toTimestamp"])
    assert start is not None and end is not None
    rows = [s for s in stored(scores) if s["dataType"] in view_types]
    rows = [s for s in rows if start <= _timestamp(s) <= end]
    for rule in query.get("filters", []):
        assert rule["operator"] == "any of", rule
        rows = [s for s in rows if _field(s, rule["column"]) in rule["value"]]
    groups: dict[tuple[Any, ...], list[Score]] = {}
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


def stored(scores: list[Score]) -> list[Score]:
    """The scores as Langfuse keeps them: a score replaces the one with its id and the same
    day of its timestamp (ClickHouse ReplacingMergeTree ordered by day), so a repeat on
    another day is stored twice."""
    return list({(s["id"], str(s.get("timestamp", ""))[:10]): s for s in scores}.values())


def list_refusal(params: Mapping[str, str]) -> str | None:
    """Why GET /api/public/v2/scores answers 400 (its zod query schema), or None."""
    for name in ("page", "limit"):
        if name in params and not params[name].isdigit():
            return f"Invalid request data: {name} must be a number"
    if int(params.get("page", "1")) < 1 or int(params.get("limit", "50")) > 100:
        return "Invalid request data: page > 0 and limit <= 100"
    for name in ("fromTimestamp", "toTimestamp"):
        if name in params and _moment(params[name]) is None:
            return f"Invalid request data: {name} needs an ISO time and offset"
    if "dataType" in params and params["dataType"] not in _DATA_TYPES:
        return "Invalid request data: dataType"
    fields = {f.strip() for f in params.get("fields", "score").split(",") if f.strip()}
    if not fields <= _SCORE_FIELDS or "score" not in fields:
        return "Invalid request data: fields"
    return None


def listed(scores: list[Score], params: Mapping[str, str]) -> dict[str, Any]:
    """One page of GET /api/public/v2/scores: newest first; `name`, `environment` and
    `dataType` exact, fromTimestamp inclusive, toTimestamp exclusive."""
    rows = stored(scores)
    for param in ("name", "environment", "dataType"):
        if param in params:
            rows = [s for s in rows if s.get(param) == params[param]]
    start, end = _moment(params.get("fromTimestamp")), _moment(params.get("toTimestamp"))
    rows = [s for s in rows if (start is None or start <= _timestamp(s))]
    rows = [s for s in rows if (end is None or _timestamp(s) < end)]
    rows.sort(key=_timestamp, reverse=True)
    page, limit = int(params.get("page", "1")), int(params.get("limit", "50"))
    shown = rows[(page - 1) * limit : page * limit]
    return {
        "data": [_listed(score) for score in shown],
        "meta": {
            "page": page,
            "limit": limit,
            "totalItems": len(rows),
            "totalPages": -(-len(rows) // limit),
        },
    }


def _listed(score: Score) -> Score:
    """A score as the v2 scores API shows it: categorical values in `stringValue` (value 0),
    booleans as 0/1 with "True"/"False"."""
    kind, value = score["dataType"], score["value"]
    shown: Score = {
        "id": score["id"],
        "traceId": score.get("traceId"),
        "name": score["name"],
        "source": "API",
        "dataType": kind,
        "timestamp": score["timestamp"],
        "environment": score.get("environment", "default"),
        "createdAt": score["timestamp"],
        "updatedAt": score["timestamp"],
        "comment": None,
        "configId": None,
    }
    if kind == "CATEGORICAL":
        return {**shown, "value": 0, "stringValue": value}
    if kind == "BOOLEAN":
        return {**shown, "value": value, "stringValue": "True" if value else "False"}
    return {**shown, "value": value}


def score_refusal(score: Any) -> str | None:
    """Why POST /api/public/scores rejects one score of a batch (it is then counted in a
    207's `rejected`), or None. Messages quote the score, as zod's do."""
    return next(_score_problems(score), None)


def _score_problems(score: Any) -> Iterator[str]:
    """Each check runs only if the ones before passed (the caller takes the first)."""
    if not isinstance(score, dict):
        yield "Invalid score: not an object"
    name, value, kind = score.get("name"), score.get("value"), score.get("dataType", "NUMERIC")
    if not isinstance(name, str) or not name:
        yield "Invalid score: name must be a non-empty string"
    if kind not in _DATA_TYPES:
        yield f"Invalid score {name}: dataType {kind!r}"
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "NUMERIC" and not numeric:
        yield f"Invalid score {name}: value {value!r} must be a number"
    if kind == "BOOLEAN" and (not numeric or value not in (0, 1)):
        yield f"Invalid score {name}: value {value!r} must be either 0 or 1"
    if kind in ("CATEGORICAL", "TEXT", "CORRECTION") and not isinstance(value, str):
        yield f"Invalid score {name}: value {value!r} must be a string"
    if kind == "TEXT" and not 1 <= len(value) <= 500:
        yield f"Invalid score {name}: text values hold 1 to 500 characters"
    if not any(score.get(k) for k in ("traceId", "sessionId", "datasetRunId")):
        yield f"Invalid score {name}: traceId, sessionId or datasetRunId is required"
    environment = score.get("environment", "default")
    if not _ENVIRONMENT.fullmatch(str(environment)) or str(environment).startswith("langfuse"):
        yield f"Invalid score {name}: environment {environment!r}"
    if "timestamp" in score and _moment(score["timestamp"]) is None:
        yield f"Invalid score {name}: timestamp needs an ISO time and offset"


def _moment(text: Any) -> datetime | None:
    """An ISO datetime with an offset (zod's `datetime({ offset: true })`), or None."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _timestamp(score: Score) -> datetime:
    moment = _moment(score.get("timestamp"))
    assert moment is not None, "the fake stores only scores with a timestamp"
    return moment


def _field(score: Score, name: str) -> Any:
    return score["value"] if name == "stringValue" else score.get(name)
