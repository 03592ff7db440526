"""The one percentile every bench figure uses."""

from __future__ import annotations

import statistics


def p99(samples: list[float]) -> float:
    """The 99th percentile (statistics.quantiles' default, exclusive method)."""
    return statistics.quantiles(samples, n=100)[98]
