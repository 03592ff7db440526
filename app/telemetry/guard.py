"""Telemetry can neither break nor delay an answer: every SDK call is guarded, and the
blocking ones (flush, shutdown) run in a thread with a time bound."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from app.errors import label

log = logging.getLogger("vouch.telemetry")

T = TypeVar("T")


def guarded(what: str, call: Callable[[], T]) -> T | None:
    """Run one SDK call; telemetry failing must never break an answer."""
    try:
        return call()
    except Exception as exc:  # the SDK's own bugs included
        log.warning("telemetry: %s not recorded (%s)", what, label(exc))
        return None


def bounded(action: Callable[[], object], timeout: float) -> bool:
    """Run a blocking SDK call (flush, shutdown) in a daemon thread, waiting at most
    `timeout` seconds: a slow or unreachable Langfuse cannot hold up the caller or exit."""
    worker = threading.Thread(target=guarded, args=("flush or shutdown", action), daemon=True)
    worker.start()
    worker.join(timeout)
    return not worker.is_alive()
