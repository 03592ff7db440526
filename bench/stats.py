"""The one percentile every bench figure uses."""

from __future__ import annotations

import statistics


def p99(samples: list[float]) -> float:
    """The 99th percentile (statistics.quantiles' default, exclusive method); of one
    sample, that sample (quantiles needs two)."""
    return statistics.quantiles(samples, n=100)[98] if len(samples) > 1 else samples[0]
