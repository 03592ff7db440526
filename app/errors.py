"""An exception in a word: the one place that turns an exception into a label for logs,
telemetry and error text. Never its message, which may quote data."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.logs import TOKEN

if TYPE_CHECKING:
    from pydantic import ValidationError


class Labelled(Exception):
    """An exception that carries its own label: `reason`, short and fixed (e.g.
    "overloaded"), never content."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def label(exc: BaseException) -> str:
    """Slack's error code for a refused Web API call, the reason of a Labelled exception,
    otherwise (or when that is not id-like) the exception's type name."""
    named = type(exc).__name__
    if isinstance(exc, Labelled):
        reason: object = exc.reason
    else:  # slack_sdk's SlackApiError, recognised by its response's `error` (the layers
        # below Slack import no Slack code, and they share this function)
        getter = getattr(getattr(exc, "response", None), "get", None)
        reason = getter("error") if callable(getter) else None
    return reason if isinstance(reason, str) and TOKEN.fullmatch(reason) else named


def invalid_fields(exc: ValidationError) -> list[tuple[str, str]]:
    """Each problem of a pydantic validation: the field's dotted path ("" for the whole)
    and pydantic's message, never the value given (a setting may be a secret, a dataset
    line a question)."""
    return [
        (".".join(str(part) for part in error["loc"]), error["msg"])
        for error in exc.errors(include_input=False, include_url=False)
    ]
