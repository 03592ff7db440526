"""Vouch's Home tab: what it is, how it checks answers and how to ask it, for everyone;
for the people in ADMIN_USERS also the last 7 days' verification figures and the settings
in effect. Published with views.publish after the app_home_opened event is acked.

The figures are `python -m app metrics`'s own report (`app.metrics.report.fetch`), not a second
computation; one report is asked of Langfuse per CACHE_SECONDS, however often the tab is
opened, and an admin waits for it at most `wait` seconds: the tab is published without the
figures (and says why) rather than late. The view holds fixed text, figures and setting
values only: no message content.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.metrics.report import TARGET, Report, decimal, fetch, percent
from app.metrics.window import MetricsError
from app.settings import Settings
from app.slack.background import Background
from app.slack.errors import SLACK_FAILURES
from app.work.budget import Budgets, counted
from app.work.store import UNREACHABLE

log = logging.getLogger("vouch.slack")
WINDOW = timedelta(days=7)
CACHE_SECONDS = 300.0  # one Langfuse report per period, shared by every admin's open
RETRY_SECONDS = 60.0  # a report that failed is asked again after this
TOP_PATTERNS = 5  # issue codes shown
TOP_USE = 10  # people and channels shown with this period's budget use
MAX_CHANNELS = 50  # channels with their own settings shown (a view holds 100 blocks)
Block = dict[str, Any]
Row = tuple[str, str]  # a setting's name, as a team knows it, and its value
# The settings in effect in each channel that has its own: (who, as shown: "<#C…>", "DMs",
# "Unlisted channels"; rows), from the per-channel settings file (app/channels.py).
ChannelRows = Callable[[], Sequence[tuple[str, Sequence[Row]]]]


def no_channel_settings() -> Sequence[tuple[str, Sequence[Row]]]:
    """Every channel uses the global settings."""
    return ()


def settings_rows(settings: Settings) -> list[Row]:
    """The global settings that change what a team sees of Vouch."""
    tools = []
    if settings.tool_calls:
        if settings.knowledge_dir is not None:
            tools.append("team docs")
        tools.append("linked Slack messages")
        if settings.slack_search:
            tools.append("Slack search")
    return [
        ("Answer format", "Markdown" if settings.response_format == "markdown" else "mrkdwn"),
        ("Attempts per answer", str(settings.max_attempts)),
        ("Reviewer model (judge)", "on" if settings.judge_enabled else "off"),
        ("Follow-ups without a mention", "on" if settings.follow_ups else "off"),
        ("Knowledge folder", "set" if settings.knowledge_dir is not None else "not set"),
        ("Tools", ", ".join(tools) or "none"),
    ]


@dataclass(frozen=True)
class _Kept:
    figures: Report | str  # the report, or why there is none, in one line
    until: float  # monotonic time it is asked again after


class Figures:
    """The admins' 7-day report, asked of Langfuse at most once per CACHE_SECONDS (a
    failure: once per RETRY_SECONDS); opens while it is being asked share that request."""

    def __init__(self, settings: Settings, *, clock: Callable[[], float] = time.monotonic):
        self._settings = settings
        self._clock = clock
        self._kept: _Kept | None = None
        self._asking: asyncio.Task[Report | str] | None = None
        self.wait = float(settings.langfuse_timeout * 2)  # an admin's wait for a report

    @property
    def on(self) -> bool:
        s = self._settings
        return s.langfuse_public_key is not None and s.langfuse_secret_key is not None

    async def get(self) -> Report | str:
        """The report, or one plain line saying why there is none."""
        if not self.on:
            return "Langfuse is off (no LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY): no figures."
        if self._kept is not None and self._clock() < self._kept.until:
            return self._kept.figures
        if self._asking is None or self._asking.done():
            self._asking = asyncio.create_task(self._ask())
        try:
            return await asyncio.wait_for(asyncio.shield(self._asking), self.wait)
        except TimeoutError:
            return f"Langfuse has not answered within {self.wait:.0f} s: open the tab again soon."

    async def settled(self) -> None:
        """Wait for the report being asked, if one is (an admin's wait may end first)."""
        if self._asking is not None:
            await self._asking

    async def _ask(self) -> Report | str:
        figures: Report | str
        try:
            figures = await _on_daemon_thread(lambda: fetch(self._settings, WINDOW))
            period = CACHE_SECONDS
        except MetricsError as exc:
            figures, period = f"No figures: {exc}.", RETRY_SECONDS
        except Exception as exc:  # the tab is published all the same
            figures, period = f"No figures: {label(exc)}.", RETRY_SECONDS
        if isinstance(figures, str):
            log.warning("home tab figures unavailable: %s", figures)
        self._kept = _Kept(figures, self._clock() + period)
        return figures


async def _on_daemon_thread(call: Callable[[], Report]) -> Report:
    """A blocking call's result, run on a daemon thread of its own: unlike the default
    executor's threads (which asyncio.run waits for), a hanging Langfuse cannot hold up
    the process's exit after SHUTDOWN_GRACE."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Report] = loop.create_future()

    def hand(setter: Callable[[Any], None], value: Any) -> None:
        if not done.cancelled():
            setter(value)

    def work() -> None:
        try:
            outcome: tuple[Callable[[Any], None], Any] = (done.set_result, call())
        except Exception as exc:  # raised to the awaiting task
            outcome = (done.set_exception, exc)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(hand, *outcome)

    threading.Thread(target=work, name="vouch-home-figures", daemon=True).start()
    return await done


PROMPTS = [
    {"title": "What can you do?", "message": "What can you help me with?"},
    {"title": "Summarise a thread", "message": "How do I ask you about a thread?"},
    {"title": "Check an answer", "message": "How do you check your answers?"},
]


class Home:
    """Publishes a user's Home tab, and suggests prompts when they open their DM with
    Vouch (both after the app_home_opened event is acked)."""

    def __init__(
        self,
        settings: Settings,
        *,
        figures: Figures | None = None,
        channels: ChannelRows = no_channel_settings,
        budgets: Budgets | None = None,
    ) -> None:
        self.settings = settings
        self.figures = figures or Figures(settings)
        self.channels = channels
        self.budgets = budgets
        self.background = Background()

    async def on_opened(self, event: dict[str, Any], client: AsyncWebClient) -> None:
        """The DM opened: suggested prompts; the Home tab: its view. Both after the ack
        (Bolt acks when this returns)."""
        if event.get("tab") == "messages" and event.get("channel"):
            self.background.start(_suggest(client, str(event["channel"])))
        elif event.get("tab") == "home" and event.get("user"):
            self.background.start(self.publish(client, str(event["user"])))

    async def publish(self, client: AsyncWebClient, user: str) -> None:
        try:
            await client.views_publish(user_id=user, view=await self.view(user))
        except SLACK_FAILURES as exc:
            log.warning("home tab not published: %s", label(exc))

    async def view(self, user: str) -> dict[str, Any]:
        blocks = general_blocks(self.settings)
        if user in self.settings.admin_users:
            blocks += [{"type": "divider"}, *figure_blocks(await self.figures.get(), self)]
            blocks += settings_blocks(settings_rows(self.settings), self.channels())
            if self.budgets is not None:
                blocks += budget_blocks(self.budgets, await _use(self.budgets))
        return {"type": "home", "blocks": blocks}

    @property
    def dashboard(self) -> str:
        return self.settings.langfuse_base_url.rstrip("/")


async def _suggest(client: AsyncWebClient, channel: str) -> None:
    try:
        await client.assistant_threads_setSuggestedPrompts(
            channel_id=channel, prompts=PROMPTS, title="Try asking"
        )
    except SLACK_FAILURES as exc:
        log.warning("suggested prompts not set: %s", label(exc))


def general_blocks(settings: Settings) -> list[Block]:
    """What everyone sees."""
    reviewed = (
        " A second model then reviews it against the question and the thread."
        if settings.judge_enabled
        else ""
    )
    follow = (
        " In a thread Vouch has answered, ask a follow-up without mentioning it."
        if settings.follow_ups
        else ""
    )
    return [
        _header("Vouch: answers you can trust"),
        _section(
            "*What Vouch is*\nAn assistant that answers questions in Slack threads and DMs, "
            "from the conversation, the files shared in it and your team's sources."
        ),
        _section(
            "*How it checks answers*\nEvery draft is checked before it is posted: that it "
            "renders in Slack, that its citations point at sources it was given, and that "
            f"it stays on the question.{reviewed} A draft that fails is revised, up to "
            f"{settings.max_attempts} attempts. If none passes you get a short note saying "
            "so, never an unchecked answer."
        ),
        _section(
            "*How to ask*\n• Mention @Vouch in a channel: it answers in the thread.\n"
            f"• Or write to it in its Messages tab.{follow}\n"
            "• Rate an answer with 👍 or 👎: it helps the team see how Vouch is doing."
        ),
    ]


def figure_blocks(figures: Report | str, home: Home) -> list[Block]:
    """The admins' 7-day figures, as `python -m app metrics` reports them."""
    link = f"<{home.dashboard}|Open the Langfuse dashboard>"
    if isinstance(figures, str):
        return [_header("Last 7 days"), _section(figures), _context(link)]
    report = figures
    if report.messages == 0:
        return [_header("Last 7 days"), _section("No answered messages."), _context(link)]
    fields = [
        ("Messages answered", f"{report.messages:,}"),
        ("Verified", f"{percent(report.verified_rate)} (target over {TARGET:.0%})"),
        ("Passed on the first attempt", percent(report.first_rate)),
        ("Attempts to verify (average)", decimal(report.avg_attempts)),
        ("Quality score (average)", decimal(report.avg_quality)),
    ]
    if report.busy:
        fields.append(("Busy replies (model unavailable)", f"{report.busy:,}"))
    if report.judged_rate is not None and report.judged_rate < 1:
        fields.append(("Reviewed by the judge", percent(report.judged_rate)))
    blocks = [
        _header("Last 7 days"),
        {"type": "section", "fields": [_mrkdwn(f"*{k}*\n{v}") for k, v in fields]},
    ]
    alerts = []
    if report.below_target:
        alerts.append(f":warning: The verified rate is under the {TARGET:.0%} target.")
    if report.too_busy:
        alerts.append(":warning: Many messages got the busy reply: the model was unavailable.")
    if alerts:
        blocks.append(_section("\n".join(alerts)))
    if report.patterns:
        lines = [
            f"• `{p.code}` {p.count:,} ({p.share:.0%}): {p.fates['repaired']:,} repaired, "
            f"{p.fates['retried']:,} retried, {p.fates['failed']:,} failed"
            for p in report.patterns[:TOP_PATTERNS]
        ]
        blocks.append(_section("*Issues found, most frequent first*\n" + "\n".join(lines)))
    source = f"From the {report.source}. " if report.source else ""
    blocks.append(_context(f"{source}Same figures as `python -m app metrics`. {link}"))
    return blocks


def settings_blocks(
    rows: Sequence[Row], channels: Sequence[tuple[str, Sequence[Row]]]
) -> list[Block]:
    """The settings in effect: the global ones, then each channel with its own."""
    blocks = [_header("Settings in effect"), _section(_lines(rows))]
    for channel, own in channels[:MAX_CHANNELS]:
        blocks.append(_section(f"*{channel}*\n{_lines(own)}"))
    if len(channels) > MAX_CHANNELS:
        more = len(channels) - MAX_CHANNELS
        blocks.append(_context(f"And {more:,} more channels with settings of their own."))
    return blocks


async def _use(budgets: Budgets) -> list[tuple[str, int, int]] | str:
    """This period's use, most first, or why it cannot be shown."""
    try:
        return await budgets.use(TOP_USE)
    except UNREACHABLE as exc:  # the tab is published all the same
        log.warning("home tab budget use unavailable: %s", label(exc))
        return f"Use could not be read ({label(exc)})."


def budget_blocks(budgets: Budgets, use: list[tuple[str, int, int]] | str) -> list[Block]:
    """The budgets in effect and this period's use, most first (ids and counts only)."""
    every = {"hour": "an hour", "day": "a day", "week": "a week"}[budgets.period]
    limits = budgets.limits
    rows = [
        ("Questions per person", limits.user_messages),
        ("Tokens per person", limits.user_tokens),
        ("Questions per channel", limits.channel_messages),
        ("Tokens per channel", limits.channel_tokens),
    ]
    set_ = [(name, f"{limit:,} {every}") for name, limit in rows if limit]
    lines = _lines(set_) if set_ else "None set (BUDGET_*): no limits but channels' own."
    blocks = [_header("Budgets"), _section(lines)]
    if isinstance(use, str):
        return [*blocks, _context(use)]
    shown = [f"• {_who(key)}: {m:,} questions, {t:,} tokens" for key, m, t in use]
    text = "\n".join(shown) if shown else "Nothing used yet."
    return [*blocks, _section(f"*Used this period, most first*\n{text}")]


def _who(key: str) -> str:
    """A budget counter's key as Slack shows it: a person or a channel mention."""
    kind, target = counted(key)
    return f"<@{target}>" if kind == "user" else f"<#{target}>"


def _lines(rows: Sequence[Row]) -> str:
    return "\n".join(f"{name}: *{value}*" for name, value in rows)


def _header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": text}}


def _mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def _section(text: str) -> Block:
    return {"type": "section", "text": _mrkdwn(text)}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [_mrkdwn(text)]}
