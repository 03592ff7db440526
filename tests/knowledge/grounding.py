"""Shared by the knowledge tests: the fixture docs' rollback passage, and scripted model
replies that cite it the way the API does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.anthropic import Cite, Reply, cited, search_results

DOCS = Path(__file__).resolve().parent.parent / "fixtures" / "knowledge"
QUESTION = "How do I roll back a billing deploy?"
ROLLBACK = "Press *Revert* on the last deploy, or run `kubectl rollout undo deploy/billing`."
ANSWER = "To roll back billing, press Revert on the last deploy in the pipeline. "


def rollback_id(request: dict[str, Any]) -> str:
    [result] = [r for r in search_results(request) if r["title"] == "Deploying billing › Rollback"]
    return str(result["source"])


def in_turn(*replies: Callable[[dict[str, Any]], Reply]) -> Callable[[dict[str, Any]], Reply]:
    """A responder giving each request the next reply, made from that request."""
    pending = iter(replies)

    def respond(request: dict[str, Any]) -> Reply:
        return next(pending)(request)

    return respond


def citing(source: str, quote: str = ROLLBACK) -> Reply:
    return cited(ANSWER, ("Or undo the rollout with kubectl.", Cite(source, quote)))
