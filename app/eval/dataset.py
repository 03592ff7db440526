"""An evaluation dataset: items a team wrote (a question, maybe a thread, docs or passages,
and the behaviour it expects), read from a local JSONL file or from a Langfuse dataset.

A local file is one JSON object a line (evals/README.md has the fields). A Langfuse item
holds the same fields: `input` all but `expect` and `note`, `expected_output`
`{"expect": ...}`. An error names the line (or item) and the field, never a value: a
dataset holds the team's questions."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.agent.conversation import Conversation, Turn
from app.errors import invalid_fields
from app.eval.plan import EvalError
from app.verify import Dialect, Source

Expect = Literal["answer", "cite", "refuse", "fail"]
EXPECTS: tuple[Expect, ...] = get_args(Expect)


class DatasetError(EvalError):
    """The dataset cannot be read: says where and which field, never the value."""


class _Turn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    role: Literal["user", "assistant"]
    text: str = Field(min_length=1)
    speaker: str = ""


class _Source(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    url: str | None = None
    text: str = ""


class _Input(BaseModel):
    """What the loop is given: the fields of `input` in Langfuse."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    question: str = ""  # "" only in an item still to be filled in (see app.eval.collect)
    thread: list[_Turn] = []
    speaker: str = ""
    dialect: Dialect | None = None
    knowledge: str | None = None  # a docs folder, relative to the dataset file
    sources: list[_Source] = []
    instructions: str = ""


class _Line(_Input):
    """One line of a local dataset: the input, and the item's own fields."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    expect: Literal["answer", "cite", "refuse", "fail", ""] | None = None  # "": a stub's
    note: str = ""


@dataclass(frozen=True, slots=True)
class Item:
    """One dataset item, ready to run."""

    id: str
    question: str
    thread: tuple[Turn, ...] = ()
    speaker: str = ""
    dialect: Dialect | None = None
    knowledge: Path | None = None  # resolved; None: KNOWLEDGE_DIR (unless sources are given)
    sources: tuple[Source, ...] = ()
    instructions: str = ""
    expect: Expect | None = None
    source: Any = None  # the Langfuse DatasetItem it came from, if any

    @property
    def filled(self) -> bool:
        """False for a stub still waiting for a person to write its question."""
        return bool(self.question.strip())

    def conversation(self, dialect: Dialect, instructions: str = "") -> Conversation:
        """The conversation the bot would see; `instructions` (a prompt file) are added to
        the item's own."""
        standing = "\n\n".join(filter(None, (self.instructions.strip(), instructions.strip())))
        return Conversation(
            self.thread,
            self.question,
            self.dialect or dialect,
            speaker=self.speaker,
            instructions=standing,
        )


def read_jsonl(path: Path) -> list[Item]:
    """The items of a local dataset; DatasetError names the first bad line and field."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read {path}: {type(exc).__name__}") from None
    items: list[Item] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            parsed = _Line.model_validate(json.loads(line))
        except json.JSONDecodeError:
            raise DatasetError(f"{where}: not a JSON object") from None
        except ValidationError as exc:
            raise DatasetError(f"{where}: {_fields(exc)}") from None
        if parsed.id in seen:
            raise DatasetError(f"{where}: id repeats an earlier item's")
        seen.add(parsed.id)
        items.append(
            _item(parsed.id, parsed, expect=parsed.expect or None, base=path.parent, where=where)
        )
    if not items:
        raise DatasetError(f"{path.name} holds no items")
    return items


def from_langfuse(item: Any, base: Path) -> Item:
    """A Langfuse DatasetItem (input and expected_output as above); `base` resolves a
    relative knowledge folder."""
    where = f"item {item.id}"
    try:
        parsed = _Input.model_validate(item.input)
    except ValidationError as exc:
        raise DatasetError(f"{where}: input {_fields(exc)}") from None
    expected = item.expected_output
    expect = expected.get("expect") if isinstance(expected, Mapping) else expected
    if expect in ("", None):
        expect = None
    elif expect not in EXPECTS:
        raise DatasetError(f"{where}: expected_output.expect must be one of {', '.join(EXPECTS)}")
    return _item(str(item.id), parsed, expect=expect, base=base, where=where, source=item)


def langfuse_input(item: Item, base: Path) -> dict[str, Any]:
    """An item as a Langfuse dataset item's `input` (its knowledge folder relative to
    `base`, where it was one)."""
    data: dict[str, Any] = {"question": item.question}
    if item.thread:
        data["thread"] = [_turn(turn) for turn in item.thread]
    if item.speaker:
        data["speaker"] = item.speaker
    if item.dialect:
        data["dialect"] = item.dialect
    if item.knowledge is not None:
        data["knowledge"] = _relative(item.knowledge, base)
    if item.sources:
        data["sources"] = [
            {"id": s.id, "title": s.title, "url": s.url, "text": s.text} for s in item.sources
        ]
    if item.instructions:
        data["instructions"] = item.instructions
    return data


def _item(
    item_id: str,
    parsed: _Input,
    *,
    expect: Expect | None,
    base: Path,
    where: str,
    source: Any = None,
) -> Item:
    if parsed.knowledge is not None and parsed.sources:
        raise DatasetError(f"{where}: give knowledge or sources, not both")
    folder = None
    if parsed.knowledge is not None:
        folder = (base / parsed.knowledge).resolve()
        if not folder.is_dir():
            raise DatasetError(f"{where}: knowledge is not a folder")
    return Item(
        id=item_id,
        question=parsed.question,
        thread=tuple(Turn(t.role, t.text, t.speaker) for t in parsed.thread),
        speaker=parsed.speaker,
        dialect=parsed.dialect,
        knowledge=folder,
        sources=tuple(Source(s.id, s.title, s.url, s.text) for s in parsed.sources),
        instructions=parsed.instructions,
        expect=expect,
        source=source,
    )


def _fields(exc: ValidationError) -> str:
    """Which fields are wrong and how, from pydantic's errors without their input."""
    return "; ".join(f"{name or 'item'}: {message}" for name, message in invalid_fields(exc)[:3])


def _turn(turn: Turn) -> dict[str, str]:
    data = {"role": turn.role, "text": turn.text}
    if turn.speaker:
        data["speaker"] = turn.speaker
    return data


def _relative(folder: Path, base: Path) -> str:
    try:
        return str(folder.relative_to(base.resolve()))
    except ValueError:
        return str(folder)
