"""What the tokens of a run cost at Anthropic's list prices (US dollars per million tokens,
Claude API, standard tier), for the models Vouch is configured with by default and their
neighbours. Prices change: these are from Anthropic's pricing pages as of 2026-11
(docs/evaluation.md says where to check). A model not listed has no cost in the report
(its tokens are still counted); Bedrock and Vertex price on their own."""

from __future__ import annotations

from dataclasses import dataclass

from app.agent.model import Usage


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float  # a 5-minute cache write (the only kind Vouch makes)


# Model id prefixes, longest first wins: dated ids ("claude-haiku-4-5-20251001") match theirs.
PRICES: dict[str, Price] = {
    "claude-sonnet-5-5": Price(2.0, 10.0, 0.10, 2.50),
    "claude-sonnet-5": Price(2.0, 10.0, 0.20, 2.50),
    "claude-sonnet-4": Price(3.0, 15.0, 0.30, 3.75),
    "claude-haiku-5-5": Price(0.10, 0.50, 0.01, 0.125),  # prompts up to 100k tokens
    "claude-haiku-4-5": Price(1.0, 5.0, 0.10, 1.25),
    "claude-opus-5-5": Price(4.0, 20.0, 0.20, 5.0),
    "claude-opus-5": Price(5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-5": Price(5.0, 25.0, 0.50, 6.25),
}


def price_of(model: str) -> Price | None:
    matches = [prefix for prefix in PRICES if model.startswith(prefix)]
    return PRICES[max(matches, key=len)] if matches else None


def cost(model: str, usage: Usage) -> float | None:
    """Dollars for `usage` on `model` (None: no list price known). Usage summed over a
    run's calls cannot tell a long prompt apart, so Haiku 5.5's higher band for prompts
    over 100,000 tokens is not applied (Vouch's prompts stay far below it)."""
    price = price_of(model)
    if price is None:
        return None
    dollars = (
        usage.input * price.input
        + usage.output * price.output
        + usage.cache_read * price.cache_read
        + usage.cache_write * price.cache_write
    )
    return dollars / 1_000_000
