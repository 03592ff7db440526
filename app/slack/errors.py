"""What a failed Slack Web API call looks like after the client's own retries."""

from __future__ import annotations

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError

# ok:false and HTTP errors; connection resets and refusals; timeouts (never retried by
# the client: Slack may have done the call)
SLACK_FAILURES = (SlackClientError, aiohttp.ClientError, TimeoutError)


def reason(exc: BaseException) -> str:
    """A failure in a word, for a log line: Slack's error code, or the exception's type."""
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error"))
    return type(exc).__name__
