"""Experiment runs as Langfuse reads them from what the langfuse SDK 5 exports: the SDK
creates no dataset run through the REST API; `run_experiment` records each item as one trace
whose spans carry `langfuse.experiment.*` attributes (the item's root observation is its
task span, which holds the input and output), item scores on that trace and observation,
and run-level scores with `datasetRunId` set to the experiment's id."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.langfuse import ExportedSpan

Score = dict[str, Any]

_EXPERIMENT = "langfuse.experiment."


@dataclass(frozen=True)
class ExperimentItem:
    """One item's run: the dataset item's id (for local data, a hash of the input), its
    trace, and its task span's input and output, JSON-decoded."""

    item_id: str
    trace_id: str
    observation_id: str  # the task span: the item's root observation
    input: Any
    output: Any
    expected_output: Any
    scores: list[Score] = field(default_factory=list)  # on this item's trace


@dataclass(frozen=True)
class Experiment:
    id: str
    name: str  # the run name, which Langfuse shows as the experiment's name
    dataset_id: str | None  # None for local data
    description: str | None
    items: dict[str, ExperimentItem]  # by item id
    scores: list[Score] = field(default_factory=list)  # run-level: datasetRunId == id


def experiments(spans: Iterable[ExportedSpan], scores: list[Score]) -> dict[str, Experiment]:
    """The experiments the spans record, by id, with their scores."""
    found: dict[str, Experiment] = {}
    for span in spans:
        attributes = span.attributes
        if attributes.get(f"{_EXPERIMENT}item.root_observation_id") != span.span_id:
            continue  # the run span, an evaluator's, or no experiment's: the task span says all
        experiment_id = str(attributes[f"{_EXPERIMENT}id"])
        experiment = found.setdefault(
            experiment_id,
            Experiment(
                id=experiment_id,
                name=str(attributes.get(f"{_EXPERIMENT}name", "")),
                dataset_id=attributes.get(f"{_EXPERIMENT}dataset.id"),
                description=attributes.get(f"{_EXPERIMENT}description"),
                items={},
                scores=[s for s in scores if s.get("datasetRunId") == experiment_id],
            ),
        )
        item_id = str(attributes[f"{_EXPERIMENT}item.id"])
        experiment.items[item_id] = ExperimentItem(
            item_id=item_id,
            trace_id=span.trace_id,
            observation_id=span.span_id,
            input=_decoded(attributes.get("langfuse.observation.input")),
            output=_decoded(attributes.get("langfuse.observation.output")),
            expected_output=_decoded(attributes.get(f"{_EXPERIMENT}item.expected_output")),
            scores=[s for s in scores if s.get("traceId") == span.trace_id],
        )
    return found


def _decoded(value: Any) -> Any:
    """An input or output attribute as Langfuse reads it: the SDK sends a string as is and
    anything else as JSON, so JSON is decoded and any other text kept (a string that reads
    as JSON, "2", comes back as 2, there too); None if not set."""
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return value
