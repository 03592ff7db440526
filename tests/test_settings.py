"""Settings: read from env and .env, validated with clear errors, in sync with .env.example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.settings import Settings, SettingsError, load_settings

ROOT = Path(__file__).resolve().parent.parent


def _example() -> dict[str, tuple[str, str]]:
    """NAME -> (value, comment line above it) from .env.example."""
    lines = (ROOT / ".env.example").read_text().splitlines()
    entries = {}
    for index, line in enumerate(lines):
        match = re.fullmatch(r"([A-Z][A-Z0-9_]*)=(.*)", line)
        if match:
            entries[match.group(1)] = (match.group(2), lines[index - 1])
    return entries


def test_env_example_lists_every_setting_with_a_comment() -> None:
    entries = _example()
    assert set(entries) == {name.upper() for name in Settings.model_fields}
    for name, (_, comment) in entries.items():
        assert comment.startswith("# ") and len(comment) > 10, name


def test_env_example_values_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, (value, _) in _example().items():
        monkeypatch.setenv(name, value)
    load_settings(_env_file=None)


def test_reads_environment_and_dotenv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("RESPONSE_FORMAT=markdown\nLOG_LEVEL=debug\n")
    assert load_settings(_env_file=dotenv).response_format == "markdown"
    assert load_settings(_env_file=dotenv).log_level == "DEBUG"
    monkeypatch.setenv("RESPONSE_FORMAT", "mrkdwn")
    assert load_settings(_env_file=dotenv).response_format == "mrkdwn"  # env wins over .env


def test_bad_value_names_the_setting_and_what_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPONSE_FORMAT", "html-secret-value")
    with pytest.raises(SettingsError) as raised:
        load_settings(_env_file=None)
    message = str(raised.value)
    assert "RESPONSE_FORMAT" in message
    assert "'mrkdwn' or 'markdown'" in message
    assert "html-secret-value" not in message


def test_settings_are_frozen() -> None:
    settings = load_settings(_env_file=None)
    with pytest.raises(ValueError, match="frozen"):
        settings.log_level = "ERROR"  # type: ignore[misc]


def test_only_settings_reads_the_environment() -> None:
    readers = re.compile(r"os\.environ|os\.getenv|getenv\(|environ\[")
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "app").rglob("*.py")
        if path.name != "settings.py" and readers.search(path.read_text())
    ]
    assert offenders == []


def test_knowledge_base_url_is_a_folder(tmp_path: Path) -> None:
    def base(value: str) -> str | None:
        return load_settings(_env_file=None, knowledge_base_url=value).knowledge_base_url

    assert base("https://wiki.example.com/docs") == "https://wiki.example.com/docs/"
    assert base("https://wiki.example.com/docs/") == "https://wiki.example.com/docs/"
    assert base("") is None
    with pytest.raises(SettingsError, match="KNOWLEDGE_BASE_URL"):
        base("ftp://files.example.com/")
    with pytest.raises(SettingsError, match="KNOWLEDGE_DIR"):
        load_settings(_env_file=None, knowledge_dir=tmp_path / "missing")


@pytest.mark.parametrize(
    "name, value",
    [
        ("HTTP_KEEPALIVE_TIMEOUT", "0"),
        ("HTTP_KEEPALIVE_TIMEOUT", "3601"),
        ("HTTP_READ_TIMEOUT", "0"),
        ("HTTP_READ_TIMEOUT", "301"),
        ("HTTP_MAX_CONNECTIONS", "0"),
        ("HTTP_MAX_CONNECTIONS", "100001"),
    ],
)
def test_connection_bounds_are_bounded(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        load_settings(_env_file=None, **{name.lower(): value})


def test_admin_users_are_a_comma_list_of_user_ids() -> None:
    assert load_settings(_env_file=None).admin_users == frozenset()
    admins = load_settings(_env_file=None, admin_users=" U012AB3CD, W0ABC ,,")
    assert admins.admin_users == {"U012AB3CD", "W0ABC"}
    with pytest.raises(SettingsError, match=r"ADMIN_USERS: .*Slack user ids"):
        load_settings(_env_file=None, admin_users="U012AB3CD,@alice")
