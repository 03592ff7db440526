"""manifest.yml grants exactly the scopes of the Web API methods and events the app uses."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import yaml

from app.slack.events import COMMAND, SHORTCUT
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import HISTORY_SCOPES, READ_SCOPES, FakeSlack
from tests.fakes.slack import METHOD_SCOPES as SLACK_METHOD_SCOPES
from tests.slack.bolt import dispatch, make_app, mention, message, settle, until

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = yaml.safe_load((ROOT / "manifest.yml").read_text())
HISTORY = set(HISTORY_SCOPES.values())
# What each method needs: the scope its reference page names first (the one Slack will keep
# taking), as the fake Slack enforces it; conversations.replies: the history scope of each
# conversation type Vouch answers in.
METHOD_SCOPES: dict[str, set[str]] = {
    **{method: set(scopes[:1]) for method, scopes in SLACK_METHOD_SCOPES.items()},
    "conversations.replies": HISTORY,
    "conversations.history": HISTORY,  # does a message an answer links to exist
    "conversations.info": set(READ_SCOPES.values()),  # the audience of each type
    "conversations.members": set(READ_SCOPES.values()),
}
REPLIES = ("chat.postMessage", "chat.stopStream")
EVENT_SCOPES = {
    "app_mention": {"app_mentions:read"},
    "message.channels": {"channels:history"},
    "message.groups": {"groups:history"},
    "message.im": {"im:history"},
    "message.mpim": {"mpim:history"},
    "app_home_opened": set(),
}


def downloads_files() -> bool:
    """Whether the app's code downloads shared files (url_private, with files:read)."""
    return any("url_private" in p.read_text() for p in (ROOT / "app").rglob("*.py"))


def methods_in_source() -> set[str]:
    """Every Web API method the app's code calls on a client."""
    calls = re.compile(r"client\.([a-z]+(?:_[a-zA-Z]+)+)\(")
    found: set[str] = set()
    for path in (ROOT / "app").rglob("*.py"):
        found.update(name.replace("_", ".") for name in calls.findall(path.read_text()))
    return found


async def methods_called(
    make_settings: Any, slack: FakeSlack, anthropic: FakeAnthropic
) -> set[str]:
    """Every Web API method called while serving each kind of event, in both formats."""
    anthropic.default = Reply("Merge to `main` and the pipeline deploys billing to staging.")
    for fmt in ("mrkdwn", "markdown"):
        app = make_app(make_settings(response_format=fmt))
        root = f"40{len(fmt)}.000001"
        before = len(slack.calls)
        await dispatch(app, mention("how do I deploy billing?", root))
        await until(
            cast(
                "Callable[[], bool]",  # mypy infers no lambda with a default
                lambda before=before: any(c.method in REPLIES for c in slack.calls[before:]),
            )
        )
        await settle(slack)
        slack.threads.setdefault(("C0001", root), []).insert(0, {"ts": root, "user": "U0001"})
        await dispatch(app, message("and rollback?", f"40{len(fmt)}.000002", thread_ts=root))
        await dispatch(app, message("deploy?", f"41{len(fmt)}.1", "D0001", channel_type="im"))
        older = f"42{len(fmt)}.000001"  # a thread that began before Vouch was listening
        slack.threads[("C0001", older)] = [{"ts": older, "user": "U0002", "text": "slow?"}]
        await dispatch(app, mention("why?", f"42{len(fmt)}.000002", thread_ts=older))
        opened = {"type": "app_home_opened", "user": "U0001", "channel": "D0001"}
        await dispatch(app, {**opened, "tab": "messages"})
        await settle(slack)
    return {call.method for call in slack.calls}


async def test_manifest_grants_exactly_the_scopes_the_app_needs(
    make_settings: Any, fake_slack: FakeSlack, fake_anthropic: FakeAnthropic
) -> None:
    called = await methods_called(make_settings, fake_slack, fake_anthropic)
    source = methods_in_source()
    assert called - {"auth.test"} <= source, "a method is called that the scan missed"
    assert source <= set(METHOD_SCOPES), f"no scope known for {source - set(METHOD_SCOPES)}"
    events = set(MANIFEST["settings"]["event_subscriptions"]["bot_events"])
    needed = set().union(*(METHOD_SCOPES[m] for m in source | called))
    needed |= set().union(*(EVENT_SCOPES[e] for e in events))
    needed |= {"files:read"} if downloads_files() else set()  # no method: the file host
    needed |= {"commands"} if MANIFEST["features"].get("shortcuts") else set()
    assert set(MANIFEST["oauth_config"]["scopes"]["bot"]) == needed
    assert {"conversations.replies", "chat.startStream", "chat.postMessage"} <= called


def test_manifest_subscribes_to_the_events_the_app_handles() -> None:
    events = set(MANIFEST["settings"]["event_subscriptions"]["bot_events"])
    assert events == set(EVENT_SCOPES)
    settings = MANIFEST["settings"]
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["socket_mode_enabled"] is True
    view = MANIFEST["features"]["agent_view"]
    assert view["agent_description"] and len(view["suggested_prompts"]) >= 1
    assert "assistant_view" not in MANIFEST["features"]  # the legacy form
    [ask] = MANIFEST["features"]["shortcuts"]
    assert (ask["type"], ask["callback_id"]) == ("message", SHORTCUT)
    [command] = MANIFEST["features"]["slash_commands"]
    assert command["command"] == COMMAND and command["should_escape"] is True
    assert command["url"] == settings["interactivity"]["request_url"]  # one endpoint
