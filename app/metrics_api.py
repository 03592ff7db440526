"""Kept only for app/eval/collect.py, which imports the Langfuse read APIs from here: they
live in `app.metrics.api`. Delete this module once collect.py imports them from there."""

from __future__ import annotations

from app.metrics.api import PAGE, MetricsError, NotOffered, apis, listed_scores

__all__ = ["PAGE", "MetricsError", "NotOffered", "apis", "listed_scores"]
