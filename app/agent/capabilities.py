"""What a model accepts, asked of the Models API once per model, so a request never carries a
`thinking` type or an `effort` the model answers with a 400.

Each `thinking.type` is accepted or refused per model (some current models refuse
"disabled", older ones refuse "adaptive"), and `effort` only where the model lists it: a
judge request that assumes either would fail on every message with such a JUDGE_MODEL.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal
from weakref import WeakKeyDictionary

import anthropic
from anthropic import AsyncAnthropic
from anthropic.types import ModelCapabilities, ThinkingConfigParam

log = logging.getLogger("vouch.agent")


@dataclass(frozen=True, slots=True)
class Thinking:
    """How a request asks (or does not ask) the model to think."""

    config: ThinkingConfigParam | None  # None: leave the field out (the model's default)
    effort: Literal["low"] | None  # None: leave `effort` out


DEFAULT = Thinking(None, None)  # when the model's capabilities are not known
_known: WeakKeyDictionary[AsyncAnthropic, dict[str, Thinking | None]] = WeakKeyDictionary()


class Unsupported(Exception):
    """The model cannot do what the caller needs (e.g. structured output)."""


async def light_thinking(client: AsyncAnthropic, model: str) -> Thinking:
    """The least thinking `model` accepts, for a short structured answer: adaptive at low
    effort where it has both, adaptive alone, thinking disabled, or the model's default when
    its capabilities cannot be read (the budget holds thinking either way). Raises
    Unsupported for a model without structured output. Asked once per model and client;
    a failed lookup is asked again next time."""
    known = _known.setdefault(client, {})
    if model not in known:
        try:
            info = await client.models.retrieve(model)
        except anthropic.AnthropicError as exc:
            name = type(exc).__name__
            log.warning("model capabilities not read (%s): thinking left to the model", name)
            return DEFAULT
        known[model] = _choose(info.capabilities)
    choice = known[model]
    if choice is None:
        raise Unsupported("no_structured_outputs")
    return choice


def _choose(capabilities: ModelCapabilities | None) -> Thinking | None:
    if capabilities is None:
        return DEFAULT
    if not capabilities.structured_outputs.supported:
        return None
    types, effort = capabilities.thinking.types, capabilities.effort
    low: Literal["low"] | None = "low" if effort.supported and effort.low.supported else None
    if types.adaptive.supported:
        return Thinking({"type": "adaptive"}, low)
    if types.disabled.supported:
        return Thinking({"type": "disabled"}, None)
    return DEFAULT
