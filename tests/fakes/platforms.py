"""Loopback fakes of Claude on Amazon Bedrock and on Google Vertex AI: each checks its
platform's own wire format, then answers as FakeAnthropic does (same scripts, same
refusals of the request itself), in its platform's stream encoding.

Bedrock (`POST /model/{modelId}/invoke[-with-response-stream]`): a SigV4 signature by
the fake's AWS key, for service `bedrock` in the fake's region, checked by recomputing it;
an `x-amz-date` within the signature's day; a model id Bedrock names (`anthropic.…-v1:0`,
optionally behind an inference-profile prefix such as `us.`); `anthropic_version` in the
body; no `model` and no `stream` in the body (the path says both). A stream is AWS's
binary event stream: `chunk` events whose `bytes` are the API's events, and an
`exception` frame for an error mid-stream. Errors are `{"message": …}` with the
`x-amzn-ErrorType` header. No Models API and no token counting: those paths are 404s.

Vertex AI (`POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict`,
or `:rawPredict`): a bearer token the fake's OAuth endpoint (`POST /token`, what a service
account's `token_uri` names) handed out; the fake's project and region; a model id as
Vertex names it (`claude-…@YYYYMMDD`, or bare); `anthropic_version` in the body, no
`model` (the path says it), `stream` matching the method. Streams are server-sent events
like the first-party API; errors of the platform itself are Google's error shape.

Every refused request is noted in `refused` (a short reason), so a test sees why.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from anthropic._constants import ANTHROPIC_API_VERSION
from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
from botocore.credentials import Credentials  # type: ignore[import-untyped]

from tests.fakes.anthropic import Fail, FakeAnthropic
from tests.fakes.models import MODELS

# What each platform takes in `anthropic_version`: its own dated value, and the API
# version the SDK (2.14) sends to both.
BEDROCK_VERSIONS = frozenset({"bedrock-2023-05-31", ANTHROPIC_API_VERSION})
VERTEX_VERSIONS = frozenset({"vertex-2023-10-16", ANTHROPIC_API_VERSION})

AWS_ACCESS_KEY = "AKIAFAKEBEDROCK00001"
AWS_SECRET_KEY = "fake/secret/key/for/the/bedrock/fake"
AWS_REGION = "us-west-2"

_AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[A-Z0-9]+)/(?P<day>\d{8})/(?P<region>[a-z0-9-]+)"
    r"/(?P<service>[a-z0-9-]+)/aws4_request, SignedHeaders=(?P<signed>[a-z0-9;-]+), "
    r"Signature=(?P<signature>[0-9a-f]{64})"
)
_AMZ_DATE = re.compile(r"\d{8}T\d{6}Z")
_BEDROCK_MODEL = re.compile(
    r"(?:(?:us|eu|apac|jp|au|global)\.)?anthropic\.(?P<model>claude-[a-z0-9-]+?)"
    r"(?:-\d{8})?-v\d+:\d+"
)
_VERTEX_MODEL = re.compile(r"(?P<model>claude-[a-z0-9-]+?)(?:@\d{8})?")

# Bedrock's error type for each HTTP status it answers with.
_AWS_ERRORS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    413: "ValidationException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    503: "ServiceUnavailableException",
}
_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED"}


def bedrock_model(model_id: str) -> str | None:
    """The first-party model a Bedrock model id names, or None."""
    match = _BEDROCK_MODEL.fullmatch(model_id)
    return match["model"] if match and match["model"] in MODELS else None


def vertex_model(model_id: str) -> str | None:
    """The first-party model a Vertex model id names, or None."""
    match = _VERTEX_MODEL.fullmatch(model_id)
    return match["model"] if match and match["model"] in MODELS else None


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One message of AWS's event stream: a prelude (total and header lengths) and its
    CRC32, string headers, the payload, and the CRC32 of everything before it."""
    encoded = b"".join(
        bytes([len(name)])
        + name.encode()
        + b"\x07"
        + struct.pack(">H", len(value))
        + value.encode()
        for name, value in headers.items()
    )
    prelude = struct.pack(">II", 12 + len(encoded) + len(payload) + 4, len(encoded))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack(">I", zlib.crc32(message))


@dataclass(eq=False)
class FakeBedrock(FakeAnthropic):
    region: str = AWS_REGION
    access_key: str = AWS_ACCESS_KEY
    secret_key: str = AWS_SECRET_KEY
    refused: list[str] = field(default_factory=list)  # why each refused request was refused
    paths: list[str] = field(default_factory=list)  # every invoke path, as sent

    stream_type = "application/vnd.amazon.eventstream"

    def reset(self) -> None:
        super().reset()
        self.refused.clear()
        self.paths.clear()

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/model/{model_id}/{action}", self._invoke)

    async def _invoke(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        self.paths.append(request.raw_path)
        body = _json_object(raw)
        problem = next(self._problems(request, raw, body), None)
        if problem is not None:
            status, kind, message = problem
            self.refused.append(kind)
            return _aws_error(status, kind, message)
        assert body is not None
        del body["anthropic_version"]
        model = bedrock_model(request.match_info["model_id"])
        streaming = request.match_info["action"] == "invoke-with-response-stream"
        return await self.answer(request, raw, {"model": model, **body, "stream": streaming})

    def _problems(
        self, request: web.Request, raw: bytes, body: dict[str, Any] | None
    ) -> Iterator[tuple[int, str, str]]:
        """Why Bedrock would refuse this request, first reason first."""
        action = request.match_info["action"]
        if action not in ("invoke", "invoke-with-response-stream"):
            yield 404, "UnknownOperationException", f"unknown operation: {action}"
        unsigned = self._unsigned(request, raw)
        if unsigned is not None:
            yield 403, "InvalidSignatureException", unsigned
        if body is None:
            yield 400, "ValidationException", "the body is not a JSON object"
            return
        if bedrock_model(request.match_info["model_id"]) is None:
            yield 400, "ValidationException", "The provided model identifier is invalid."
        if body.get("anthropic_version") not in BEDROCK_VERSIONS:
            yield 400, "ValidationException", "anthropic_version: invalid or missing"
        for name in sorted({"model", "stream"} & set(body)):
            yield 400, "ValidationException", f"extraneous key [{name}] is not permitted"

    def _unsigned(self, request: web.Request, raw: bytes) -> str | None:
        """Why the request's SigV4 signature is not this fake's key's, or None."""
        match = _AUTHORIZATION.fullmatch(request.headers.get("authorization", ""))
        if match is None:
            return "Authorization is not AWS4-HMAC-SHA256 Credential, SignedHeaders, Signature"
        stamp = request.headers.get("x-amz-date", "")
        if not _AMZ_DATE.fullmatch(stamp) or stamp[:8] != match["day"]:
            return "x-amz-date is missing or not the signature's day"
        if (match["key"], match["region"], match["service"]) != (
            self.access_key,
            self.region,
            "bedrock",
        ):
            return "the credential scope is not this key, region and service"
        signed = match["signed"].split(";")
        if not {"host", "x-amz-date"} <= set(signed) or any(
            name not in request.headers for name in signed
        ):
            return "SignedHeaders must hold host and x-amz-date, and only headers sent"
        aws = AWSRequest(
            method=request.method,
            url=self.url + request.raw_path,
            headers={name: request.headers[name] for name in signed},
            data=raw,
        )
        aws.context["timestamp"] = stamp
        signer = SigV4Auth(Credentials(self.access_key, self.secret_key), "bedrock", self.region)
        expected = signer.signature(signer.string_to_sign(aws, signer.canonical_request(aws)), aws)
        return None if expected == match["signature"] else "The request signature does not match"

    def failed(self, item: Fail) -> web.Response:
        kind = _AWS_ERRORS.get(item.status, "InternalServerException")
        return _aws_error(item.status, kind, item.message)

    async def event(self, response: web.StreamResponse, name: str, data: dict[str, Any]) -> None:
        if name == "error":
            headers = {
                ":exception-type": "modelStreamErrorException",
                ":content-type": "application/json",
                ":message-type": "exception",
            }
            payload = {"message": data["error"]["message"]}
        else:
            headers = {
                ":event-type": "chunk",
                ":content-type": "application/json",
                ":message-type": "event",
            }
            payload = {"bytes": base64.b64encode(json.dumps(data).encode()).decode()}
        await response.write(frame(headers, json.dumps(payload).encode()))


def _json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _aws_error(status: int, kind: str, message: str) -> web.Response:
    return web.json_response(
        {"message": message},
        status=status,
        headers={
            "x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"
        },
    )


@dataclass(eq=False)
class FakeVertex(FakeAnthropic):
    project: str = "vouch-fake-project"
    region: str = "us-east5"
    token: str = "ya29.fake-vertex-token"
    refused: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    token_requests: list[dict[str, str]] = field(default_factory=list)  # /token forms

    def reset(self) -> None:
        super().reset()
        self.refused.clear()
        self.paths.clear()
        self.token_requests.clear()

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/token", self._token)
        prefix = "/v1/projects/{project}/locations/{region}/publishers/anthropic/models"
        app.router.add_post(prefix + "/{model_method}", self._predict)

    async def _token(self, request: web.Request) -> web.Response:
        """Google's OAuth token endpoint for a service account: a signed JWT for a token."""
        form = dict(await request.post())
        self.token_requests.append({k: str(v) for k, v in form.items()})
        assertion = str(form.get("assertion", ""))
        if (
            form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer"
            or assertion.count(".") != 2
        ):
            return web.json_response({"error": "invalid_grant"}, status=400)
        return web.json_response(
            {"access_token": self.token, "expires_in": 3600, "token_type": "Bearer"}
        )

    async def _predict(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        self.paths.append(request.raw_path)
        body = _json_object(raw)
        problem = next(self._problems(request, body), None)
        if problem is not None:
            return self._refuse(*problem)
        assert body is not None
        del body["anthropic_version"]
        model_id = request.match_info["model_method"].rpartition(":")[0]
        return await self.answer(request, raw, {"model": vertex_model(model_id), **body})

    def _problems(
        self, request: web.Request, body: dict[str, Any] | None
    ) -> Iterator[tuple[int, str]]:
        """Why Vertex AI would refuse this request, first reason first."""
        if request.headers.get("authorization") != f"Bearer {self.token}":
            yield 401, "Request had invalid authentication credentials."
        info = request.match_info
        if (info["project"], info["region"]) != (self.project, self.region):
            yield 403, "Permission denied on the project or location."
        model_id, _, method = info["model_method"].rpartition(":")
        if method not in ("rawPredict", "streamRawPredict") or vertex_model(model_id) is None:
            yield 404, "Publisher model or method not found."
        if body is None:
            yield 400, "Invalid JSON payload received."
            return
        if body.get("anthropic_version") not in VERTEX_VERSIONS:
            yield 400, "anthropic_version: invalid or missing"
        if "model" in body:
            yield 400, "model: Extra inputs are not permitted"
        if bool(body.get("stream")) != (method == "streamRawPredict"):
            yield 400, f"stream does not match {method}"

    def _refuse(self, status: int, message: str) -> web.Response:
        kind = _GOOGLE_STATUS.get(status, "NOT_FOUND")
        self.refused.append(kind)
        error = {"code": status, "message": message, "status": kind}
        return web.json_response({"error": error}, status=status)
