"""Many patterns looked for in one pass: RE2's set of them, an automaton over the text's
bytes, tells which occur (Python's `re` has no search for several patterns at once; one
search per pattern reads the text again each time).

RE2's syntax, not Python's: no lookaround or back-references, `\\d` and `\\s` are ASCII
(`\\p{Nd}` is any digit), and `(?i)` folds case as Python does (the Kelvin sign is a k,
the long s an s). Keep each pattern to literals and short runs: the automaton grows with
the counted runs that can overlap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

import re2

Key = TypeVar("Key")


class PatternSet(Generic[Key]):
    """Patterns, each belonging to a key; `found(text)` is the keys with one in `text`."""

    def __init__(self, patterns: Mapping[Key, Iterable[str]]) -> None:
        self._set = re2.Set.SearchSet()
        owners: list[Key] = []
        for key, each in patterns.items():
            for pattern in each:
                self._set.Add(pattern)
                owners.append(key)
        self._set.Compile()
        self._owners = tuple(owners)

    def found(self, text: str) -> set[Key]:
        """The keys with a pattern that occurs in `text` (a lone surrogate is passed on as
        its three bytes)."""
        matched = self._set.Match(text.encode("utf-8", "surrogatepass")) or ()
        return {self._owners[index] for index in matched}
