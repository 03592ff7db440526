"""One structured-output call: the model answers JSON of a given shape, with the least
thinking it accepts. The judge asks this way, and so does the evaluation's grader. It fails
with a label rather than guess: no answer, no judgement."""

from __future__ import annotations

from typing import Any, TypeVar

import anthropic
import pydantic
from anthropic import omit, transform_schema
from anthropic.types import JSONOutputFormatParam, OutputConfigParam
from pydantic import BaseModel

from app.agent.capabilities import Client, Unsupported, thinking_for
from app.agent.deadline import RetryPastDeadline
from app.agent.model import CallFailed, Usage, usage_of
from app.errors import label

Shape = TypeVar("Shape", bound=BaseModel)


def output_format(shape: type[BaseModel]) -> JSONOutputFormatParam:
    """The structured output's schema (build it once: messages.parse builds it every call)."""
    return {"type": "json_schema", "schema": transform_schema(shape)}


async def ask(
    client: Client,
    model: str,
    max_tokens: int,
    system: str,
    messages: list[dict[str, Any]],
    *,
    shape: type[Shape],
    schema: JSONOutputFormatParam,
    invalid: str,
) -> tuple[Shape, Usage]:
    """The model's answer as `shape`, and the call's usage. Thinking tokens count toward
    max_tokens, and current models think unless told otherwise: this asks for the least
    thinking the model accepts (adaptive at low effort skips it on easy cases). Raises
    CallFailed: the API's error label, `no_structured_outputs`, `truncated` (thinking
    and JSON did not fit), or `invalid` (the text is not `shape`)."""
    try:
        thinking = await thinking_for(client, model, structured=True)
        output: OutputConfigParam = {"format": schema}
        if thinking.effort is not None:
            output["effort"] = thinking.effort
        message = await client.messages.create(
            model=model,
            max_tokens=max_tokens,
            system=system,
            messages=messages,  # type: ignore[arg-type]
            thinking=thinking.config if thinking.config is not None else omit,
            output_config=output,
        )
    except (Unsupported, RetryPastDeadline) as exc:
        raise CallFailed(str(exc)) from None
    except anthropic.AnthropicError as exc:  # API errors, and the SDK's own
        raise CallFailed(label(exc)) from None
    if message.stop_reason == "max_tokens":
        raise CallFailed("truncated")
    text = "".join(block.text for block in message.content if block.type == "text")
    try:
        return shape.model_validate_json(text), usage_of(message.usage)
    except pydantic.ValidationError:
        raise CallFailed(invalid) from None
