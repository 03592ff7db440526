"""The message's deadline, known to every model call: no retry waits past it.

The SDK retries 408/409/429/5xx itself and waits what the API's Retry-After says, however
long. A wait that would outlast the message's deadline is not waited: the call fails at
once as an outage (the "busy" reply), instead of sleeping into the deadline and ending as
if verification had run out of time.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import anthropic
from anthropic import APIRequest, AsyncAPIResponse, AsyncCallNext

# The SDK's backoff when the API names no wait (anthropic._constants): 0.5 s doubling, ≤ 8 s.
_FIRST_BACKOFF, _MAX_BACKOFF = 0.5, 8.0
_RETRIED = frozenset({408, 409, 429})

_ends_at: ContextVar[float | None] = ContextVar("vouch_deadline", default=None)


class RetryPastDeadline(anthropic.AnthropicError):
    """The API asked for a wait that outlasts the message's deadline; `reason` is a label."""

    def __init__(self, status: int) -> None:
        reason = {429: "rate_limited", 529: "overloaded"}.get(status, f"status_{status}")
        super().__init__(reason)
        self.reason = reason


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Model calls made inside (in this task) know they must end within `seconds`."""
    token = _ends_at.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _ends_at.reset(token)


async def no_wait_past_deadline(
    request: APIRequest, call_next: AsyncCallNext
) -> AsyncAPIResponse[Any]:
    """SDK middleware, run once per HTTP attempt: a response the SDK would retry after a
    wait longer than the time left raises RetryPastDeadline (not retried) instead."""
    response = await call_next(request)
    ends_at = _ends_at.get()
    status = response.status_code
    if ends_at is None or not _retried(status, response.headers.get("x-should-retry")):
        return response
    wait = retry_after(response.headers) or min(
        _FIRST_BACKOFF * 2**request.retries_taken, _MAX_BACKOFF
    )
    if time.monotonic() + wait >= ends_at:
        await response.http_response.aclose()
        raise RetryPastDeadline(status)
    return response


def retry_after(headers: Any) -> float | None:
    """Seconds the API asks to wait (`retry-after-ms`, or `retry-after` in seconds or as a
    date), as the SDK reads them; None when it names none."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers.get(name)) / scale)
        except (TypeError, ValueError):
            pass
    when = email.utils.parsedate_tz(headers.get("retry-after") or "")
    return None if when is None else max(0.0, email.utils.mktime_tz(when) - time.time())


def _retried(status: int, should_retry: str | None) -> bool:
    if should_retry in ("true", "false"):
        return should_retry == "true"
    return status in _RETRIED or status >= 500
