"""The fake Langfuse refuses what Langfuse refuses: per server version, the Metrics APIs it
does not have (Next.js's 404 page), queries a Metrics API version does not accept, bad pages
of the scores list, and, in a batch of scores, each score the server would reject (a 207)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from langfuse.api import LangfuseAPI
from langfuse.api.core import ApiError
from langfuse.api.scores.types.create_score_batch_results import CreateScoreBatchResults

from tests.fakes.langfuse import FakeLangfuse

NOW = datetime.now(UTC)
WINDOW = {
    "fromTimestamp": (NOW - timedelta(days=1)).isoformat(),
    "toTimestamp": NOW.isoformat(),
}
QUERY = {
    "view": "scores-numeric",
    "dimensions": [{"field": "name"}],
    "metrics": [{"measure": "value", "aggregation": "avg"}],
    "filters": [],
    **WINDOW,
}


def http(fake: FakeLangfuse) -> httpx.Client:
    return httpx.Client(base_url=fake.url, auth=("pk-lf-fake", "sk-lf-fake"), timeout=5)


@pytest.mark.parametrize(
    ("version", "v2", "v1", "scores"),
    [("v4", 200, 200, 200), ("v3", 404, 200, 200), ("scores-only", 404, 404, 200)],
)
def test_each_version_offers_its_apis(
    fake_langfuse: FakeLangfuse, version: str, v2: int, v1: int, scores: int
) -> None:
    fake_langfuse.version = version
    query = {"query": json.dumps(QUERY)}
    with http(fake_langfuse) as client:
        answers = [
            client.get("/api/public/v2/metrics", params=query),
            client.get("/api/public/metrics", params=query),
            client.get("/api/public/v2/scores", params=WINDOW),
        ]
    assert [answer.status_code for answer in answers] == [v2, v1, scores]
    missing = [answer for answer in answers if answer.status_code == 404]
    assert all(answer.headers["content-type"].startswith("text/html") for answer in missing)


def test_the_sdk_sees_a_v3_servers_missing_metrics_api_v2_as_a_404(
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_langfuse.version = "v3"
    api = LangfuseAPI(base_url=fake_langfuse.url, username="pk-lf-fake", password="sk")
    with pytest.raises(ApiError) as refused:
        api.metrics.metrics(query=json.dumps(QUERY))
    assert refused.value.status_code == 404


@pytest.mark.parametrize(
    ("path", "change", "refusal"),
    [
        ("/api/public/metrics", {"view": "scores-boolean"}, "view must be one of"),
        ("/api/public/v2/metrics", {"view": "scores-text"}, "view must be one of"),
        ("/api/public/metrics", {"dimensions": [{"field": "booleanValue"}]}, "dimension"),
        ("/api/public/v2/metrics", {"dimensions": [{"field": "traceId"}]}, "dimension"),
        ("/api/public/v2/metrics", {"metrics": []}, "at least one metric"),
        ("/api/public/v2/metrics", {"metrics": [{"measure": "value", "aggregation": "mean"}]}, ""),
        ("/api/public/v2/metrics", {"limit": 10}, "unknown keys"),
        ("/api/public/v2/metrics", {"config": {"row_limit": 5000}}, "config"),
        ("/api/public/metrics", {"toTimestamp": "2026-11-20T00:00:00"}, "offset"),
        ("/api/public/metrics", {"toTimestamp": WINDOW["fromTimestamp"]}, "before"),
    ],
)
def test_queries_a_metrics_api_does_not_accept_get_a_400(
    fake_langfuse: FakeLangfuse, path: str, change: dict[str, Any], refusal: str
) -> None:
    with http(fake_langfuse) as client:
        assert client.get(path, params={"query": json.dumps(QUERY)}).status_code == 200
        answer = client.get(path, params={"query": json.dumps({**QUERY, **change})})
    assert answer.status_code == 400
    assert refusal in answer.json()["message"]
    assert len(fake_langfuse.queries) == 1  # the refused one was not answered


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "101"},
        {"page": "0"},
        {"fields": "score,everything"},
        {"fields": "trace"},
        {"fromTimestamp": "yesterday"},
        {"dataType": "boolean-ish"},
    ],
)
def test_bad_pages_of_the_scores_list_get_a_400(
    fake_langfuse: FakeLangfuse, params: dict[str, str]
) -> None:
    with http(fake_langfuse) as client:
        assert client.get("/api/public/v2/scores", params={"limit": "100"}).status_code == 200
        assert client.get("/api/public/v2/scores", params=params).status_code == 400


def score(**fields: Any) -> dict[str, Any]:
    return {
        "id": "s1",
        "traceId": "t1",
        "name": "verified",
        "value": 1.0,
        "dataType": "BOOLEAN",
        "environment": "production",
        "timestamp": NOW.isoformat(),
        **fields,
    }


@pytest.mark.parametrize(
    "refused",
    [
        score(value=2.0),  # BOOLEAN: 0 or 1
        score(value="yes"),
        score(dataType="NUMERIC", value="1"),
        score(dataType="CATEGORICAL", value=1.0),
        score(dataType="TEXT", value=""),
        score(dataType="SCALE"),
        score(name=""),
        score(traceId=None),
        score(environment="Production"),
        score(environment="langfuse-internal"),
        score(timestamp="2026-11-20T10:00:00"),  # no offset
    ],
)
def test_a_batch_with_scores_langfuse_rejects_gets_a_207_counting_them(
    fake_langfuse: FakeLangfuse, refused: dict[str, Any]
) -> None:
    """Through the SDK's own client and types: the good score is stored, the other one
    counted in `rejected` with a message, and the batch is not an error."""
    api = LangfuseAPI(base_url=fake_langfuse.url, username="pk-lf-fake", password="sk")
    good = score(id="s0", value=0.0)
    answer = api.scores.create(request=[good, {**refused, "id": "s9"}])  # type: ignore[list-item]
    assert isinstance(answer, CreateScoreBatchResults)
    assert (answer.accepted, answer.rejected, len(answer.errors)) == (1, 1, 1)
    assert [s["id"] for s in fake_langfuse.scores] == ["s0"]
    assert type(api.scores.create(request=[good])).__name__ == "CreateScoreBatchResponse"
    with http(fake_langfuse) as client:
        assert client.post("/api/public/scores", json=good).status_code == 400  # not a list
