"""The models the fake Anthropic API serves, with what each accepts, as the Models API
(`GET /v1/models/{id}`) reports it and the Messages API enforces it: a `thinking.type` or
an `effort` a model does not list, or a structured output it lacks, gets a 400.

The capabilities of the current models are assumed here (no real API can be asked from
this machine); what matters is that the fake refuses what a model's own entry refuses, so
code that assumes one model's capabilities for another fails a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

THINKING_TYPES = ("adaptive", "between_tools", "disabled", "enabled")
EFFORTS = ("low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class Model:
    thinking: frozenset[str]  # the thinking types it accepts
    efforts: frozenset[str] = frozenset()  # the effort levels it accepts; none: no effort
    structured_outputs: bool = True
    line: str | None = None
    capabilities: bool = True  # False: the Models API gives no capabilities object
    min_cache_tokens: int = 1024  # the shortest prefix the API caches for this model

    def info(self, model_id: str) -> dict[str, Any]:
        """The model's ModelInfo, as GET /v1/models/{id} answers."""
        info: dict[str, Any] = {
            "id": model_id,
            "type": "model",
            "display_name": model_id,
            "created_at": "2026-01-01T00:00:00Z",
            "lifecycle": "active",
            "line": self.line,
        }
        if self.capabilities:
            info["capabilities"] = self._capabilities()
        return info

    def _capabilities(self) -> dict[str, Any]:
        def flag(value: bool) -> dict[str, bool]:
            return {"supported": value}

        return {
            "batch": flag(True),
            "citations": flag(True),
            "code_execution": flag(False),
            "context_management": {"supported": False},
            "effort": {"supported": bool(self.efforts)}
            | {level: flag(level in self.efforts) for level in EFFORTS},
            "image_input": flag(True),
            "pdf_input": flag(True),
            "server_tools": {
                "supported": False,
                "code_execution": flag(False),
                "web_search": flag(False),
            },
            "structured_outputs": flag(self.structured_outputs),
            "thinking": {
                "supported": bool(self.thinking - {"disabled"}),
                "types": {kind: flag(kind in self.thinking) for kind in THINKING_TYPES},
            },
        }

    def refuses(self, body: dict[str, Any]) -> str | None:
        """Why this model would refuse the request, or None."""
        kind = (body.get("thinking") or {}).get("type")
        if kind is not None and kind not in self.thinking:
            return f"thinking.type '{kind}' is not supported by this model"
        output = body.get("output_config") or {}
        effort = output.get("effort")
        if effort is not None and effort not in self.efforts:
            return f"output_config.effort '{effort}' is not supported by this model"
        if "format" in output and not self.structured_outputs:
            return "output_config.format: structured outputs are not supported by this model"
        return None


CURRENT = frozenset({"adaptive", "disabled", "between_tools"})
SOME = frozenset({"low", "medium", "high"})
# Caching minimums: the documented range is 1,024-4,096 tokens; Sonnet's is the lowest and
# Haiku's and Opus's the highest in the docs' table, and the current models are assumed alike.
MODELS: dict[str, Model] = {
    "claude-sonnet-5-5": Model(CURRENT, SOME, line="sonnet"),
    "claude-haiku-5-5": Model(CURRENT, SOME, line="haiku", min_cache_tokens=4096),
    "claude-opus-5-5": Model(CURRENT, frozenset(EFFORTS), line="opus", min_cache_tokens=4096),
    # adaptive thinking only: "disabled" gets a 400
    "claude-fable-5": Model(frozenset({"adaptive"}), frozenset({"low", "high"}), line="fable"),
    # before adaptive thinking: a budget or nothing, and no effort
    "claude-haiku-4-5": Model(
        frozenset({"enabled", "disabled"}), line="haiku", min_cache_tokens=4096
    ),
    # a model the Models API describes without capabilities
    "claude-unlisted-1": Model(frozenset({"enabled", "disabled"}), capabilities=False),
    # a model without structured output
    "claude-plain-1": Model(frozenset({"disabled"}), structured_outputs=False),
}
