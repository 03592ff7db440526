"""What a failed Slack Web API call looks like after the client's own retries."""

from __future__ import annotations

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError

# ok:false and HTTP errors; connection resets and refusals; timeouts (never retried by
# the client: Slack may have done the call)
SLACK_FAILURES = (SlackClientError, aiohttp.ClientError, TimeoutError)


class StoppedByUser(Exception):
    """The user pressed stop on a streamed answer: Slack takes nothing more in it, and
    Vouch posts nothing more for it (no completion, no further piece, no failure message)."""


def stopped_by_user(exc: BaseException) -> bool:
    """Whether Slack refused a stream's append or stop because the user stopped it."""
    return isinstance(exc, SlackApiError) and exc.response.get("error") == "stopped_by_user"
