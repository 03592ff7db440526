"""How many examples a property test draws, by Hypothesis profile: `make test` loads `ci`
(a quarter of each test's full count, at least 10); `pytest --hypothesis-profile=thorough`
(`make test-thorough`) draws the full count; `deep`, four times it."""

from __future__ import annotations

from hypothesis import settings

FULL = 100  # the `thorough` profile's max_examples: each test's count as written
settings.register_profile("ci", max_examples=25)
settings.register_profile("thorough", max_examples=FULL)
settings.register_profile("deep", max_examples=4 * FULL)
settings.load_profile("ci")  # the default; the pytest option loads another after this


def examples(full: int) -> int:
    """`full` examples (a test's count under `thorough`), scaled to the loaded profile."""
    loaded = settings.default
    assert loaded is not None  # a profile is loaded above
    return max(10, full * loaded.max_examples // FULL)
