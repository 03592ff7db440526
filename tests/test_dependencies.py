"""Every package app/ imports is installed by `pip install .` alone: a runtime dependency
or one of theirs, never only a test extra (PyYAML once was, and the bot would not have
started outside the test environment)."""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions, requires
from pathlib import Path

from packaging.requirements import Requirement

APP = Path(__file__).resolve().parents[1] / "app"


def imported() -> set[str]:
    """The top-level modules app/ imports, outside the standard library and app itself."""
    found: set[str] = set()
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m not in ("app", "__future__")}


def runtime_closure(dist: str = "vouch") -> set[str]:
    """The distributions `pip install <dist>` installs, extras left out."""
    seen: set[str] = set()
    pending = [dist]
    while pending:
        name = pending.pop()
        key = _key(name)
        if key in seen:
            continue
        seen.add(key)
        for line in requires(name) or ():
            requirement = Requirement(line)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue  # an extra's, or another Python's
            pending.append(requirement.name)
    return seen


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_what_the_app_imports_is_a_runtime_dependency() -> None:
    providers = packages_distributions()
    installed = runtime_closure()
    missing = {
        module: providers.get(module, [])
        for module in imported()
        if not any(_key(dist) in installed for dist in providers.get(module, []))
    }
    assert missing == {}
