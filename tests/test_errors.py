"""One label for every exception: Slack's error code, a Labelled reason, or the type name;
never the message."""

from __future__ import annotations

import asyncio

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.slack_response import SlackResponse

from app.agent.model import CallFailed, ModelUnavailable
from app.errors import label
from app.telemetry import label as telemetry_label


def refused(error: object) -> SlackApiError:
    """What the Web API client raises for an ok:false answer."""
    data = {"ok": False, "error": error} if error is not None else {"ok": False}
    response = SlackResponse(
        client=None,
        http_verb="POST",
        api_url="http://127.0.0.1/api/chat.postMessage",
        req_args={},
        data=data,
        headers={},
        status_code=200,
    )
    return SlackApiError(  # type: ignore[no-untyped-call]  # slack_sdk leaves it unannotated
        "The request to the Slack API failed. how do I deploy?", response
    )


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (refused("channel_not_found"), "channel_not_found"),
        (refused("a sentence, not a code"), "SlackApiError"),
        (refused(None), "SlackApiError"),
        (ModelUnavailable("status_529"), "status_529"),
        (CallFailed("a reason with spaces"), "CallFailed"),
        (ValueError("how do I deploy billing?"), "ValueError"),
        (OSError(13, "Permission denied", "/docs/secret plans.md"), "PermissionError"),
        (asyncio.CancelledError(), "CancelledError"),
    ],
)
def test_a_label_is_a_code_or_a_type_never_the_message(exc: BaseException, expected: str) -> None:
    assert label(exc) == expected


def test_slack_and_telemetry_say_the_same_label() -> None:
    """Telemetry's label is the one label: a Slack error in a trace is recorded by its
    code, as the logs name it."""
    for exc in (refused("ratelimited"), ModelUnavailable("overloaded"), KeyError("x")):
        assert telemetry_label(exc) == label(exc)
