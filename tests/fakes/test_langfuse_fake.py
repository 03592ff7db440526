"""The fake Langfuse refuses what Langfuse refuses: per server version, the Metrics APIs it
does not have (Next.js's 404 page), queries a Metrics API version does not accept, bad pages
of the scores list, and, in a batch of scores, each score the server would reject (a 207);
requests without API keys; bad pages of dataset items and annotation queues, unknown datasets
and queues. What it serves, the langfuse SDK reads: datasets, their items (as of a version),
the project, annotation queues, and the experiment runs it records."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from hashlib import sha256
from typing import Any

import httpx
import pytest
from langfuse import Langfuse
from langfuse.api import (
    AnnotationQueueItem,
    AnnotationQueueStatus,
    DatasetItem,
    DatasetStatus,
    LangfuseAPI,
)
from langfuse.api.core import ApiError
from langfuse.api.scores.types.create_score_batch_results import CreateScoreBatchResults
from langfuse.experiment import Evaluation, ExperimentItem, ExperimentItemResult
from opentelemetry.sdk.trace import TracerProvider

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
    answer = api.scores.create(request=[good, {**refused, "id": "s9"}])
    assert isinstance(answer, CreateScoreBatchResults)
    assert (answer.accepted, answer.rejected, len(answer.errors)) == (1, 1, 1)
    assert [s["id"] for s in fake_langfuse.scores] == ["s0"]
    assert type(api.scores.create(request=[good])).__name__ == "CreateScoreBatchResponse"
    with http(fake_langfuse) as client:
        assert client.post("/api/public/scores", json=good).status_code == 400  # not a list


def test_a_score_for_an_experiment_run_or_an_observation_is_accepted(
    fake_langfuse: FakeLangfuse,
) -> None:
    """run_experiment stores run-level scores by datasetRunId alone and item scores on the
    task observation."""
    api = LangfuseAPI(base_url=fake_langfuse.url, username="pk-lf-fake", password="sk")
    run = score(id="s0", traceId=None, datasetRunId="run-1")
    observed = score(id="s1", observationId="o1")
    answer = api.scores.create(request=[run, observed])
    assert type(answer).__name__ == "CreateScoreBatchResponse"
    assert [s["id"] for s in fake_langfuse.scores] == ["s0", "s1"]


# The REST API beyond scores and metrics: the project, datasets, annotation queues.

SDK = Callable[[], Langfuse]


@pytest.fixture
def sdk(fake_langfuse: FakeLangfuse) -> Iterator[SDK]:
    """Makes langfuse SDK clients on the fake, each under a fresh public key (the SDK keeps
    one client per key; the fake records only these keys' spans); shuts them down after."""
    made: list[tuple[Langfuse, TracerProvider]] = []

    def make() -> Langfuse:
        public_key = f"pk-lf-{uuid.uuid4().hex}"
        fake_langfuse.keys.add(public_key)
        # a provider of its own: the global one would export other tests' spans here
        provider = TracerProvider(shutdown_on_exit=False)
        client = Langfuse(
            public_key=public_key,
            secret_key="sk-lf",
            base_url=fake_langfuse.url,
            tracer_provider=provider,
        )
        made.append((client, provider))
        return client

    yield make
    for client, provider in made:
        client.shutdown()
        provider.shutdown()


ITEMS = [
    {"input": {"question": "one"}, "expected_output": "uno", "metadata": {"topic": "n"}},
    {"input": {"question": "two"}, "expected_output": "dos"},
    {"input": {"question": "old"}, "expected_output": "?", "status": "ARCHIVED"},
]


def test_the_sdk_fetches_a_dataset_and_every_page_of_its_items(
    fake_langfuse: FakeLangfuse, sdk: SDK
) -> None:
    """Items come newest first, archived ones too (the SDK keeps them; callers filter), in
    pages of the size the SDK asks for; a name with a slash and a space is found."""
    dataset_id = fake_langfuse.add_dataset("support/eval set", ITEMS)
    dataset = sdk().get_dataset("support/eval set", fetch_items_page_size=2)
    assert (dataset.id, dataset.name, dataset.project_id) == (
        dataset_id,
        "support/eval set",
        "proj-vouch",
    )
    assert all(isinstance(item, DatasetItem) for item in dataset.items)
    assert [item.input["question"] for item in dataset.items] == ["old", "two", "one"]
    assert [item.status for item in dataset.items] == [
        DatasetStatus.ARCHIVED,
        DatasetStatus.ACTIVE,
        DatasetStatus.ACTIVE,
    ]
    one = dataset.items[2]
    assert (one.expected_output, one.metadata, one.dataset_id) == (
        "uno",
        {"topic": "n"},
        dataset_id,
    )
    assert (one.dataset_name, one.source_trace_id, one.media_references) == (
        "support/eval set",
        None,
        [],
    )
    assert fake_langfuse.asked.count("/api/public/dataset-items") == 2  # 3 items, 2 a page


def test_the_sdk_creates_a_dataset_and_upserts_its_items_by_id(
    fake_langfuse: FakeLangfuse, sdk: SDK
) -> None:
    """Creating a dataset twice updates it; an item sent again under its id is changed in
    place (what is not sent is kept) rather than added."""
    langfuse = sdk()
    created = langfuse.create_dataset(name="faq", description="first")
    again = langfuse.create_dataset(name="faq", metadata={"owner": "docs"})
    assert again.id == created.id
    assert (again.description, again.metadata) == ("first", {"owner": "docs"})
    first = langfuse.create_dataset_item(
        dataset_name="faq", id="item-1", input="hi?", expected_output="hello", metadata={"a": 1}
    )
    assert (first.id, first.status, first.dataset_id) == (
        "item-1",
        DatasetStatus.ACTIVE,
        created.id,
    )
    changed = langfuse.create_dataset_item(
        dataset_name="faq", id="item-1", expected_output="hey", status=DatasetStatus("ARCHIVED")
    )
    assert (changed.input, changed.expected_output, changed.metadata) == ("hi?", "hey", {"a": 1})
    assert changed.created_at == first.created_at < changed.updated_at
    other = langfuse.create_dataset_item(dataset_name="faq", input="bye?")
    items = langfuse.get_dataset("faq").items
    assert [(i.id, i.expected_output, i.status) for i in items] == [
        (other.id, None, DatasetStatus.ACTIVE),
        ("item-1", "hey", DatasetStatus.ARCHIVED),
    ]


def test_items_listed_at_a_version_are_as_they_were_then(
    fake_langfuse: FakeLangfuse, sdk: SDK
) -> None:
    langfuse = sdk()
    langfuse.create_dataset(name="faq")
    first = langfuse.create_dataset_item(dataset_name="faq", id="i1", expected_output="old")
    langfuse.create_dataset_item(dataset_name="faq", id="i1", expected_output="new")
    langfuse.create_dataset_item(dataset_name="faq", id="i2", expected_output="later")
    assert first.version is not None
    then = langfuse.get_dataset("faq", version=first.version).items
    assert [(item.id, item.expected_output) for item in then] == [("i1", "old")]
    now = langfuse.get_dataset("faq").items
    assert [(item.id, item.expected_output) for item in now] == [("i2", "later"), ("i1", "new")]


def test_the_sdk_reads_the_project_its_keys_belong_to(sdk: SDK) -> None:
    langfuse = sdk()
    assert langfuse.auth_check()
    project = langfuse.api.projects.get().data[0]
    assert (project.id, project.metadata) == ("proj-vouch", {})


def test_an_unknown_dataset_is_a_404_to_the_sdk(sdk: SDK) -> None:
    with pytest.raises(ApiError) as refused:
        sdk().get_dataset("missing")
    assert refused.value.status_code == 404


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/public/v2/datasets/missing", {}),
        ("/api/public/dataset-items", {"datasetName": "missing"}),
    ],
)
def test_reading_an_unknown_dataset_gets_a_404(
    fake_langfuse: FakeLangfuse, path: str, params: dict[str, str]
) -> None:
    fake_langfuse.add_dataset("known")
    with http(fake_langfuse) as client:
        answer = client.get(path, params=params)
    assert (answer.status_code, answer.json()["message"]) == (404, "Dataset not found")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"page": "0"}, "page"),
        ({"page": "first"}, "page"),
        ({"limit": "101"}, "limit"),
        ({"limit": "0"}, "limit"),
        ({"version": "2026-01-21T14:35:42Z", "datasetName": ""}, "datasetName"),
        ({"version": "last week"}, "version"),
    ],
)
def test_bad_queries_of_dataset_items_get_a_400(
    fake_langfuse: FakeLangfuse, params: dict[str, str], field: str
) -> None:
    fake_langfuse.add_dataset("known", ITEMS)
    good = {"datasetName": "known", "page": "1", "limit": "100"}
    with http(fake_langfuse) as client:
        assert client.get("/api/public/dataset-items", params=good).status_code == 200
        answer = client.get("/api/public/dataset-items", params={**good, **params})
    assert answer.status_code == 400
    assert answer.json()["message"] == "Invalid request data"
    assert answer.json()["error"][0]["path"] == [field]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"datasetName": "missing", "input": "x"}, 404, "Dataset not found"),
        ({"datasetName": "other", "id": "taken"}, 404, "already exists in a dataset other"),
        ({"input": "x"}, 400, "Invalid request data"),
        ({"datasetName": "known", "status": "DELETED"}, 400, "Invalid request data"),
        ({"datasetName": "known", "id": 7}, 400, "Invalid request data"),
    ],
)
def test_items_langfuse_would_not_store_are_refused(
    fake_langfuse: FakeLangfuse, body: dict[str, Any], status: int, message: str
) -> None:
    """An item for an unknown dataset, or under an id another dataset's item has."""
    fake_langfuse.add_dataset("known", [{"id": "taken", "input": "x"}])
    fake_langfuse.add_dataset("other")
    with http(fake_langfuse) as client:
        answer = client.post("/api/public/dataset-items", json=body)
        assert answer.status_code == status
        assert message in answer.json()["message"]
        listed = client.get("/api/public/dataset-items").json()
    assert [item["id"] for item in listed["data"]] == ["taken"]


def test_a_dataset_without_a_name_is_refused(fake_langfuse: FakeLangfuse) -> None:
    with http(fake_langfuse) as client:
        answer = client.post("/api/public/v2/datasets", json={"description": "nameless"})
        assert answer.status_code == 400
        assert client.get("/api/public/v2/datasets").json()["data"] == []


def test_the_sdk_pages_annotation_queues_and_their_items(
    fake_langfuse: FakeLangfuse, sdk: SDK
) -> None:
    queue_id = fake_langfuse.add_queue(
        "review",
        [
            ("t1", "TRACE", "PENDING"),
            ("o1", "OBSERVATION", "COMPLETED"),
            ("s1", "SESSION", "PENDING"),
        ],
    )
    other = fake_langfuse.add_queue("other")
    queues = sdk().api.annotation_queues
    listed = queues.list_queues()
    assert [queue.id for queue in listed.data] == [other, queue_id]
    assert (listed.meta.total_items, listed.meta.total_pages) == (2, 1)
    assert queues.get_queue(queue_id).name == "review"
    page = queues.list_queue_items(queue_id, limit=2)
    assert all(isinstance(item, AnnotationQueueItem) for item in page.data)
    assert [item.object_id for item in page.data] == ["s1", "o1"]
    assert (page.meta.total_items, page.meta.total_pages) == (3, 2)
    assert queues.list_queue_items(queue_id, page=2, limit=2).data[0].object_id == "t1"
    pending = queues.list_queue_items(queue_id, status=AnnotationQueueStatus.PENDING).data
    assert [(i.object_id, i.object_type, i.completed_at) for i in pending] == [
        ("s1", "SESSION", None),
        ("t1", "TRACE", None),
    ]
    done = queues.list_queue_items(queue_id, status=AnnotationQueueStatus.COMPLETED).data
    assert [item.object_id for item in done] == ["o1"]
    assert done[0].completed_at is not None


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        ("/api/public/annotation-queues/nope/items", {}, 404),
        ("/api/public/annotation-queues/nope", {}, 404),
        ("/api/public/annotation-queues/{queue}/items", {"status": "DONE"}, 400),
        ("/api/public/annotation-queues/{queue}/items", {"objectType": "TRACE"}, 400),
        ("/api/public/annotation-queues/{queue}/items", {"page": "0"}, 400),
        ("/api/public/annotation-queues", {"limit": "101"}, 400),
        ("/api/public/annotation-queues", {"name": "review"}, 400),  # a strict query
    ],
)
def test_unknown_queues_and_bad_queries_of_queues_are_refused(
    fake_langfuse: FakeLangfuse, path: str, params: dict[str, str], status: int
) -> None:
    queue_id = fake_langfuse.add_queue("review", [("t1", "TRACE", "PENDING")])
    with http(fake_langfuse) as client:
        assert client.get(f"/api/public/annotation-queues/{queue_id}/items").status_code == 200
        answer = client.get(path.format(queue=queue_id), params=params)
    assert answer.status_code == status
    expected = "Annotation queue not found" if status == 404 else "Invalid request data"
    assert answer.json()["message"] == expected


@pytest.mark.parametrize(
    "path",
    [
        "/api/public/projects",
        "/api/public/v2/datasets/known",
        "/api/public/dataset-items",
        "/api/public/annotation-queues",
        "/api/public/v2/scores",
    ],
)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer pk-lf-fake"},
        {"Authorization": "Basic cGstbGYtZmFrZQ=="},  # "pk-lf-fake": no secret key
        {"Authorization": "Basic not base64!"},
    ],
)
def test_requests_without_api_keys_get_a_401(
    fake_langfuse: FakeLangfuse, path: str, headers: dict[str, str]
) -> None:
    fake_langfuse.add_dataset("known")
    with http(fake_langfuse) as client:
        assert client.get(path).status_code == 200
    with httpx.Client(base_url=fake_langfuse.url, timeout=5) as client:
        answer = client.get(path, headers=headers)
    assert answer.status_code == 401
    assert answer.json()["message"]


def test_reset_forgets_datasets_and_queues(fake_langfuse: FakeLangfuse) -> None:
    fake_langfuse.add_dataset("known", ITEMS)
    queue_id = fake_langfuse.add_queue("review")
    fake_langfuse.reset()
    with http(fake_langfuse) as client:
        assert client.get("/api/public/v2/datasets/known").status_code == 404
        assert client.get(f"/api/public/annotation-queues/{queue_id}").status_code == 404
        assert client.get("/api/public/dataset-items").json()["meta"]["totalItems"] == 0


def test_an_experiment_on_a_fetched_dataset_is_grouped_from_its_spans(
    fake_langfuse: FakeLangfuse, sdk: SDK
) -> None:
    """run_experiment records the run only as spans and scores; the fake groups them into one
    experiment, under the id Langfuse derives from the project, dataset and run name."""
    dataset_id = fake_langfuse.add_dataset("faq", ITEMS[:2])
    langfuse = sdk()
    dataset = langfuse.get_dataset("faq")

    def task(*, item: ExperimentItem, **_: dict[str, Any]) -> str:
        assert isinstance(item, DatasetItem)
        return f"answer to {item.input['question']}"

    def exact(
        *,
        input: Any,
        output: Any,
        expected_output: Any,
        metadata: dict[str, Any] | None,
        **_: dict[str, Any],
    ) -> Evaluation:
        return Evaluation(name="exact", value=float(output == expected_output))

    def runs(*, item_results: list[ExperimentItemResult], **_: dict[str, Any]) -> Evaluation:
        return Evaluation(name="items", value=float(len(item_results)))

    result = dataset.run_experiment(
        name="faq eval", run_name="run-1", task=task, evaluators=[exact], run_evaluators=[runs]
    )
    langfuse.flush()
    derived = ["langfuse-experiment-v1", "proj-vouch", dataset_id, "run-1"]
    expected_id = sha256(json.dumps(derived, separators=(",", ":")).encode()).hexdigest()[:16]
    assert result.experiment_id == expected_id
    assert list(fake_langfuse.experiments()) == [expected_id]
    experiment = fake_langfuse.experiments()[expected_id]
    assert (experiment.name, experiment.dataset_id) == ("run-1", dataset_id)
    assert [(s["name"], s["value"]) for s in experiment.scores] == [("items", 2.0)]
    assert set(experiment.items) == {item.id for item in dataset.items}
    for item in dataset.items:
        run = experiment.items[item.id]
        assert (run.input, run.expected_output) == (item.input, item.expected_output)
        assert run.output == f"answer to {item.input['question']}"
        assert [(s["name"], s["observationId"]) for s in run.scores] == [
            ("exact", run.observation_id)
        ]
    traces = {run.trace_id for run in experiment.items.values()}
    assert traces == {result.trace_id for result in result.item_results}
