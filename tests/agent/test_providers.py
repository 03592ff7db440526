"""Claude where the company buys it: with ANTHROPIC_PROVIDER=bedrock or vertex, the SDK's
own Bedrock or Vertex client drafts and judges through the loop, and every request reaches
the platform's fake in that platform's wire format (tests/fakes/platforms.py). The fakes'
refusals are tested here too, each with the request the platform would refuse."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import anthropic
import pytest
from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
from botocore.credentials import Credentials  # type: ignore[import-untyped]
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from app.agent.capabilities import DEFAULT, thinking_for
from app.agent.conversation import Conversation, Turn
from app.agent.loop import Deps, answer
from app.agent.model import ModelUnavailable, Request, draft, make_client
from app.knowledge.retrieve import Knowledge
from app.settings import Settings, SettingsError
from tests.fakes.anthropic import Reply, StreamError, search_results
from tests.fakes.platforms import (
    AWS_ACCESS_KEY,
    AWS_REGION,
    AWS_SECRET_KEY,
    FakeBedrock,
    FakeVertex,
)
from tests.fakes.server import cleaned, serving
from tests.knowledge.grounding import ANSWER, QUESTION, citing, rollback_id

BEDROCK_MODEL = "anthropic.claude-sonnet-5-5-v1:0"
BEDROCK_JUDGE = "us.anthropic.claude-haiku-5-5-v1:0"  # a cross-region inference profile
VERTEX_MODEL = "claude-sonnet-5-5@20260101"
VERTEX_JUDGE = "claude-haiku-5-5@20260101"


@pytest.fixture(scope="module")
def bedrock_server() -> Iterator[FakeBedrock]:
    yield from serving(FakeBedrock())


@pytest.fixture(scope="module")
def vertex_server() -> Iterator[FakeVertex]:
    yield from serving(FakeVertex())


@pytest.fixture
def fake_bedrock(
    bedrock_server: FakeBedrock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[FakeBedrock]:
    """The Bedrock fake, with AWS's standard variables naming its key and region (and no
    AWS config files of the machine's)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", AWS_ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS_SECRET_KEY)
    monkeypatch.setenv("AWS_REGION", AWS_REGION)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    yield from cleaned(bedrock_server)


@pytest.fixture(scope="module")
def service_account_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


@pytest.fixture
def fake_vertex(
    vertex_server: FakeVertex,
    service_account_key: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Iterator[FakeVertex]:
    """The Vertex fake, with application default credentials: a service account whose
    token endpoint is the fake's."""
    account = {
        "type": "service_account",
        "project_id": vertex_server.project,
        "private_key_id": "fake-key-1",
        "private_key": service_account_key,
        "client_email": f"vouch@{vertex_server.project}.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": f"{vertex_server.url}/token",
    }
    path = tmp_path / "service-account.json"
    path.write_text(json.dumps(account))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    yield from cleaned(vertex_server)


def on_bedrock(fake: FakeBedrock) -> dict[str, Any]:
    return {
        "anthropic_provider": "bedrock",
        "anthropic_bedrock_base_url": fake.url,
        "anthropic_model": BEDROCK_MODEL,
        "judge_model": BEDROCK_JUDGE,
    }


def on_vertex(fake: FakeVertex) -> dict[str, Any]:
    return {
        "anthropic_provider": "vertex",
        "anthropic_vertex_base_url": f"{fake.url}/v1",
        "cloud_ml_region": fake.region,
        "anthropic_vertex_project_id": fake.project,
        "anthropic_model": VERTEX_MODEL,
        "judge_model": VERTEX_JUDGE,
    }


async def ask_grounded(settings: Settings) -> Any:
    knowledge = Knowledge.open(settings)
    assert knowledge is not None
    try:
        deps = Deps.from_settings(settings, knowledge=knowledge)
        earlier = (Turn("user", "Who owns billing?"), Turn("assistant", "The payments team."))
        return await answer(Conversation(earlier, QUESTION), deps, reference="ref0123456789")
    finally:
        knowledge.close()


def assert_drafted_and_judged(fake: FakeBedrock | FakeVertex, outcome: Any) -> None:
    """A cited follow-up verified and judged: the draft carried search results with
    citations on and a cache breakpoint after the earlier turns, the judge asked for
    structured output."""
    assert outcome.verified, outcome.attempts
    assert outcome.text.startswith(ANSWER + "Or undo the rollout with kubectl.")
    [request] = fake.requests
    assert all(r["citations"] == {"enabled": True} for r in search_results(request))
    assert request["messages"][-2]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "thinking" not in request  # no Models API here: left to the model
    [judged] = fake.judge_requests
    assert judged["output_config"]["format"]["type"] == "json_schema"
    assert fake.refused == [] and fake.misscripted == []


async def test_a_grounded_answer_is_drafted_and_judged_through_bedrock(
    knowledge_settings: Any, fake_bedrock: FakeBedrock
) -> None:
    fake_bedrock.responder = lambda request: citing(rollback_id(request))
    outcome = await ask_grounded(knowledge_settings(**on_bedrock(fake_bedrock)))
    assert_drafted_and_judged(fake_bedrock, outcome)
    assert fake_bedrock.paths == [
        f"/model/{BEDROCK_MODEL}/invoke-with-response-stream",
        f"/model/{BEDROCK_JUDGE}/invoke",
    ]
    for raw in (*fake_bedrock.raw, *fake_bedrock.judge_raw):
        body = json.loads(raw)
        assert "model" not in body and "stream" not in body and body["anthropic_version"]


async def test_a_grounded_answer_is_drafted_and_judged_through_vertex(
    knowledge_settings: Any, fake_vertex: FakeVertex
) -> None:
    fake_vertex.responder = lambda request: citing(rollback_id(request))
    outcome = await ask_grounded(knowledge_settings(**on_vertex(fake_vertex)))
    assert_drafted_and_judged(fake_vertex, outcome)
    place = f"/v1/projects/{fake_vertex.project}/locations/{fake_vertex.region}"
    models = f"{place}/publishers/anthropic/models"
    assert fake_vertex.paths == [
        f"{models}/{VERTEX_MODEL}:streamRawPredict",
        f"{models}/{VERTEX_JUDGE}:rawPredict",
    ]
    [draft_raw], [judge_raw] = fake_vertex.raw, fake_vertex.judge_raw
    assert json.loads(draft_raw)["stream"] is True and "stream" not in json.loads(judge_raw)
    assert all("model" not in json.loads(raw) for raw in (draft_raw, judge_raw))
    # one token from Google's OAuth endpoint, for the service account's signed assertion
    [token_request] = fake_vertex.token_requests
    assert token_request["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"


async def test_the_models_api_is_not_asked_off_anthropics_api(
    make_settings: Any, fake_bedrock: FakeBedrock, fake_vertex: FakeVertex
) -> None:
    for settings in (
        make_settings(**on_bedrock(fake_bedrock)),
        make_settings(**on_vertex(fake_vertex)),
    ):
        client = make_client(settings)
        assert await thinking_for(client, settings.judge_model, structured=True) == DEFAULT
    assert fake_bedrock.paths == fake_vertex.paths == []


async def test_an_error_inside_a_bedrock_stream_is_an_exception_frame(
    make_settings: Any, fake_bedrock: FakeBedrock
) -> None:
    """Bedrock's event stream carries a mid-stream error as an `exception` message; the
    SDK surfaces it as the first-party stream's `error` event, and Vouch retries it once."""
    fake_bedrock.push(StreamError(), StreamError())
    client = make_client(make_settings(**on_bedrock(fake_bedrock)))
    request = Request(BEDROCK_MODEL, 2048, [], [{"role": "user", "content": "hi"}])
    with pytest.raises(ModelUnavailable) as failed:
        await draft(client, request)
    assert failed.value.reason == "modelStreamErrorException"
    assert len(fake_bedrock.requests) == 2


# The fakes' refusals.


def signed(
    fake: FakeBedrock, path: str, body: dict[str, Any], secret: str = AWS_SECRET_KEY
) -> dict[str, str]:
    """The headers of a request to the Bedrock fake, SigV4-signed as the SDK signs it."""
    request = AWSRequest(
        method="POST",
        url=fake.url + path,
        headers={"content-type": "application/json"},
        data=json.dumps(body).encode(),
    )
    SigV4Auth(Credentials(AWS_ACCESS_KEY, secret), "bedrock", AWS_REGION).add_auth(request)
    return dict(request.headers.items())


async def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=json.dumps(body).encode(), headers=headers) as response,
    ):
        return response.status, await response.json()


MESSAGE = {"max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
BEDROCK_BODY = {"anthropic_version": "bedrock-2023-05-31", **MESSAGE}
INVOKE = f"/model/{BEDROCK_MODEL}/invoke"


@pytest.mark.parametrize(
    ("path", "body", "refusal"),
    [
        (INVOKE, BEDROCK_BODY, None),
        (INVOKE, {**BEDROCK_BODY, "model": BEDROCK_MODEL}, "ValidationException"),
        (INVOKE, {**BEDROCK_BODY, "stream": True}, "ValidationException"),
        (INVOKE, MESSAGE, "ValidationException"),  # no anthropic_version
        ("/model/claude-sonnet-5-5/invoke", BEDROCK_BODY, "ValidationException"),
        (f"/model/{BEDROCK_MODEL}/converse", BEDROCK_BODY, "UnknownOperationException"),
    ],
)
async def test_bedrock_refuses_what_is_not_its_wire_format(
    fake_bedrock: FakeBedrock, path: str, body: dict[str, Any], refusal: str | None
) -> None:
    fake_bedrock.push(Reply("fine"))
    status, answered = await post(fake_bedrock.url + path, body, signed(fake_bedrock, path, body))
    if refusal is None:
        assert status == 200 and answered["content"][0]["text"] == "fine"
        assert fake_bedrock.refused == []
        return
    assert status in (400, 404) and set(answered) == {"message"}
    assert fake_bedrock.refused == [refusal] and fake_bedrock.requests == []


async def test_bedrock_refuses_a_request_not_signed_by_its_key(fake_bedrock: FakeBedrock) -> None:
    wrong = signed(fake_bedrock, INVOKE, BEDROCK_BODY, secret="not-the-secret")
    unsigned = {"content-type": "application/json"}
    for headers in (wrong, unsigned):
        status, _ = await post(fake_bedrock.url + INVOKE, BEDROCK_BODY, headers)
        assert status == 403
    tampered = signed(fake_bedrock, INVOKE, BEDROCK_BODY)
    status, _ = await post(fake_bedrock.url + INVOKE, {**BEDROCK_BODY, "max_tokens": 9}, tampered)
    assert status == 403
    assert fake_bedrock.refused == ["InvalidSignatureException"] * 3


async def test_a_first_party_model_id_is_refused_on_bedrock(
    make_settings: Any, fake_bedrock: FakeBedrock
) -> None:
    """ANTHROPIC_MODEL is used as given: Anthropic's own id is not one Bedrock serves."""
    client = make_client(make_settings(**on_bedrock(fake_bedrock)))
    with pytest.raises(anthropic.BadRequestError):
        await client.messages.create(model="claude-sonnet-5-5", max_tokens=1024, messages=[])
    assert fake_bedrock.refused == ["ValidationException"]


VERTEX_BODY = {"anthropic_version": "vertex-2023-10-16", **MESSAGE}


@pytest.mark.parametrize(
    ("where", "body", "token", "status"),
    [
        ("{models}/claude-sonnet-5-5@20260101:rawPredict", VERTEX_BODY, True, 200),
        ("{models}/claude-sonnet-5-5:rawPredict", VERTEX_BODY, True, 200),
        ("{models}/claude-sonnet-5-5@20260101:rawPredict", VERTEX_BODY, False, 401),
        ("/v1/projects/other/locations/{region}/publishers/anthropic/models/"
         "claude-sonnet-5-5:rawPredict", VERTEX_BODY, True, 403),
        ("{models}/claude-sonnet-5-5:predict", VERTEX_BODY, True, 404),
        ("{models}/anthropic.claude-sonnet-5-5-v1:0:rawPredict", VERTEX_BODY, True, 404),
        ("{models}/claude-sonnet-5-5:rawPredict", MESSAGE, True, 400),
        ("{models}/claude-sonnet-5-5:rawPredict", {**VERTEX_BODY, "model": "x"}, True, 400),
        ("{models}/claude-sonnet-5-5:rawPredict", {**VERTEX_BODY, "stream": True}, True, 400),
        ("{models}/claude-sonnet-5-5:streamRawPredict", VERTEX_BODY, True, 400),
    ],
)  # fmt: skip
async def test_vertex_refuses_what_is_not_its_wire_format(
    fake_vertex: FakeVertex, where: str, body: dict[str, Any], token: bool, status: int
) -> None:
    fake_vertex.push(Reply("fine"))
    place = f"/v1/projects/{fake_vertex.project}/locations/{fake_vertex.region}"
    path = where.format(models=f"{place}/publishers/anthropic/models", region=fake_vertex.region)
    bearer = fake_vertex.token if token else "ya29.someone-elses"
    headers = {"authorization": f"Bearer {bearer}", "content-type": "application/json"}
    answered_status, answered = await post(fake_vertex.url + path, body, headers)
    assert answered_status == status
    if status == 200:
        assert answered["content"][0]["text"] == "fine" and fake_vertex.refused == []
    else:
        assert answered["error"]["code"] == status and fake_vertex.requests == []
        assert len(fake_vertex.refused) == 1


@pytest.mark.parametrize("missing", ["cloud_ml_region", "anthropic_vertex_project_id"])
def test_vertex_needs_a_region_and_a_project(
    make_settings: Any, fake_vertex: FakeVertex, missing: str
) -> None:
    with pytest.raises(SettingsError, match=missing.upper()):
        make_settings(**{**on_vertex(fake_vertex), missing: ""})
