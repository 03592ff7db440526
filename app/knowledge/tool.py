"""The team's docs as a tool the model may call while drafting: a second search, with its
own words, when the passages retrieved for the message do not answer it. What it finds are
sources like the retrieved ones (the same ids, so a passage found twice is one source)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.knowledge.retrieve import Knowledge
from app.verify import Source

MAX_QUERY = 500  # characters of the model's query that are searched


class DocsSearch:
    """The `search_docs` tool (structurally an app.agent.tools.Tool)."""

    name = "search_docs"
    description = (
        "Search the team's documentation (runbooks, guides, policies) for passages about a "
        "topic. Use it when the search results you were given do not answer the question, "
        "with the words the docs would use. Returns the best passages, or none."
    )
    input_schema: dict[str, Any] = {  # noqa: RUF012 (read, never changed)
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in a few words."}
        },
        "required": ["query"],
    }

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge

    async def run(self, arguments: Mapping[str, Any]) -> Sequence[Source]:
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ValueError("no query")  # the model reads "error: ValueError"
        return self.knowledge.search(query[:MAX_QUERY])
