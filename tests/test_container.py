"""The container: the Dockerfile's promises (read as text: no Docker engine runs here) and
`python -m app health`, its health check, against a real server."""

from __future__ import annotations

import asyncio
import fnmatch
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from app.health import health
from app.server import serve
from tests.fakes.server import free_port, wait_healthy
from tests.isolation import process_env

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    lines = [line.strip() for line in joined.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def test_dockerfile_is_slim_non_root_with_a_cached_dependency_layer() -> None:
    steps = instructions()
    kinds = [kind for kind, _ in steps]
    assert steps[0] == ("FROM", "python:3.11-slim")
    copies = [arg for kind, arg in steps if kind == "COPY"]
    assert copies[0].startswith("pyproject.toml")  # dependencies before the code
    assert "app ./app" in copies and copies.index("app ./app") > 0
    install = kinds.index("RUN")
    assert 'pip install ".${EXTRAS:+[$EXTRAS]}"' in steps[install][1]  # extras: Bedrock, Vertex
    assert install < steps.index(("COPY", "app ./app"))
    user = [arg for kind, arg in steps if kind == "USER"]
    assert user == ["vouch"] and kinds.index("USER") > kinds.index("RUN")
    assert steps[-1] == ("CMD", '["python", "-m", "app"]')
    [check] = [arg for kind, arg in steps if kind == "HEALTHCHECK"]
    assert check.endswith('CMD ["python", "-m", "app", "health"]')
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".env", ".venv", ".git", "data"} <= set(ignored)


async def test_health_follows_the_server(make_settings: Any) -> None:
    port = free_port()
    settings = make_settings(slack_signing_secret="s", host="127.0.0.1", port=port)
    assert await asyncio.to_thread(health, settings) == 1  # nothing listening yet
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop))
    await wait_healthy(f"http://127.0.0.1:{port}")
    assert await asyncio.to_thread(health, settings) == 0
    stop.set()
    await asyncio.wait_for(task, 10)
    assert await asyncio.to_thread(health, settings) == 1
    assert health(make_settings(slack_app_token="xapp-1", port=port)) == 0  # Socket Mode


def test_health_command_exit_status(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app", "health"],
        cwd=tmp_path,
        env=process_env(PORT=str(free_port())),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "unhealthy: URLError"


def test_the_image_installs_every_data_file_the_code_reads() -> None:
    """The image installs Vouch with `pip install .`, not from the source tree: a file of
    app/ that is not Python (the filler model's weights) reaches it only if pyproject.toml
    declares it package data. Without it the bot fails at start-up, in the image only."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    declared = setuptools.get("package-data", {})
    data = [
        path.relative_to(ROOT)
        for path in (ROOT / "app").rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    ]
    assert data, "no data file found: the test would pass on nothing"
    for path in data:
        package = ".".join(path.parent.parts)
        globs = declared.get(package, [])
        assert any(fnmatch.fnmatch(path.name, glob) for glob in globs), f"{path}: not declared"
