"""The composition root: every part of one Vouch process, built once here with keyword
arguments, and closed once (the model client, the store, the channels' docs).

The path of a message through what is built here: the intake takes it in and stores it
(app/slack/intake.py); a worker takes it from the store (app/work/workers.py) and answers
it (app/slack/answer.py): read (message.py), gathered (gather.py), drafted and verified
with its channel's parts (reply.py, app/deps.py, app/agent/loop.py), delivered
(deliver.py). Bolt's app takes the rest: actions on replies (actions.py) and the Home tab
(home.py)."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass

import aiohttp
from slack_bolt.async_app import AsyncApp

from app.agent.loop import Deps
from app.channels import ChannelsFile
from app.deps import ChannelDeps
from app.knowledge.libraries import Libraries
from app.settings import Settings
from app.slack.actions import Actions
from app.slack.answer import Answering
from app.slack.app import Identity, bolt_app, make_web_client
from app.slack.audience import Audience
from app.slack.conversations import Conversations
from app.slack.drain import InFlight
from app.slack.entities import Groups, Lookups
from app.slack.files import FileLimits, FileReader
from app.slack.gather import Gathering, ThreadLimits
from app.slack.history import ThreadHistory, ThreadLog
from app.slack.home import Home
from app.slack.intake import Intake
from app.slack.message import Reading
from app.slack.people import People
from app.slack.private import Private
from app.slack.reply import Replying
from app.slack.steps import Pace
from app.slack.triage import Triaging
from app.telemetry import Telemetry
from app.work.budget import Budgets, Limits
from app.work.redis_store import RedisStore
from app.work.sqlite_store import SqliteStore
from app.work.workers import Workers


@dataclass(kw_only=True)
class Vouch:
    """One process's parts. `server.py` asks this, and never reaches through it."""

    settings: Settings
    bolt: AsyncApp  # Bolt's app: what the intake leaves to it
    intake: Intake  # message events in, for either transport
    workers: Workers  # answer what the intake stored
    store: SqliteStore | RedisStore  # messages taken in, and budgets' counts
    threads: ThreadHistory
    channels: ChannelsFile
    libraries: Libraries  # channels' own team docs (CHANNELS_FILE)
    deps: ChannelDeps  # the loop's parts, by channel
    home: Home
    actions: Actions
    inflight: InFlight
    owns_agent: bool  # the model client was made here: closed here
    owns_store: bool  # the store was opened here: closed here

    async def prepare(self) -> None:
        """Index the channels' own docs before the first event (off the event loop)."""
        for folder in self.channels.folders():
            await asyncio.to_thread(self.libraries.get, folder)

    def start(self) -> None:
        """Start answering: messages stored before a restart are answered now."""
        self.workers.start()

    async def stop(self, grace: float) -> int:
        """Let answers in flight finish within `grace` seconds; give the rest back to the
        store. How many were given back."""
        return await self.workers.stop(grace)

    @property
    def busy(self) -> bool:
        """Whether anything is under way: a message answered, or work after an ack (a Home
        tab published, a question asked after 👎)."""
        pending = self.home.background.pending or self.actions.background.pending
        return self.workers.busy or bool(self.inflight.count) or pending

    async def close(self) -> None:
        """Stop the workers (answers in flight go back to the store) and the work started
        after acks, then close what was opened here: the store and the model client unless
        they were given, and the channels' docs. Each is closed even when one before it
        fails."""
        async with AsyncExitStack() as stack:
            stack.callback(self.libraries.close)
            if self.owns_agent:
                stack.push_async_callback(self.deps.base.client.close)
            if self.owns_store:
                stack.push_async_callback(self.store.close)
            stack.push_async_callback(self.actions.background.close)
            stack.push_async_callback(self.home.background.close)
            await self.workers.stop(0)


def build(
    settings: Settings,
    *,
    agent: Deps | None = None,
    session: aiohttp.ClientSession | None = None,
    telemetry: Telemetry | None = None,
    inflight: InFlight | None = None,
    store: SqliteStore | RedisStore | None = None,
) -> Vouch:
    """Every part, from the settings. `agent` (default: from the settings, with no team
    docs), `telemetry` (default: off), `inflight` and `store` (default: SQLite at
    QUEUE_PATH, or Redis with REDIS_URL) may be given; Slack Web API calls share `session`
    when one is given."""
    telemetry = telemetry or Telemetry.off()
    inflight = inflight or InFlight()
    owns_store = store is None
    store = store or _store(settings)
    channels = ChannelsFile(settings.channels_file)
    libraries = Libraries(settings)
    deps = ChannelDeps(
        base=agent or Deps.from_settings(settings), settings=settings, libraries=libraries
    )
    client = make_web_client(settings, session)
    reader = make_web_client(settings, session, wait=False)  # lookups that may do without
    identity = Identity(client)
    people = People(client)
    conversations = Conversations(reader)
    audience = Audience(conversations)
    budgets = Budgets(store, settings.budget_period, _limits(settings))
    threads = ThreadHistory(
        ThreadLog(
            settings.thread_log_threads,
            settings.thread_max_messages + 1,
            settings.thread_max_chars,
        ),
        reader,
        shared=settings.redis_url is not None,
    )
    reading = Reading(
        telemetry=telemetry,
        channels=channels,
        dialect=settings.response_format,
        group=settings.escalation_group,
    )
    private = Private(client=client, store=store, telemetry=telemetry)
    answering = Answering(
        client=client,
        whoami=identity.bot,
        reading=reading,
        threads=threads,
        gathering=Gathering(
            client=client,
            threads=threads,
            people=people,
            files=_file_reader(settings, session),
            budgets=budgets,
            telemetry=telemetry,
            limits=ThreadLimits(
                messages=settings.thread_max_messages,
                chars=settings.thread_max_chars,
                files=settings.files_max_count,
            ),
        ),
        replying=Replying(
            client=client,
            deps=deps,
            telemetry=telemetry,
            threads=threads,
            people=people,
            audience=audience,
            lookups=Lookups(reader, people, conversations, Groups(reader)),
            budgets=budgets,
            search=settings.slack_search,
            receipts=settings.check_receipt,
            private=private,
            steps=Pace() if settings.show_steps else None,
        ),
        conversations=conversations,
        private=private,
        triaging=Triaging(
            client=client,
            threads=threads,
            model=deps.base.client,
            model_name=settings.judge_model,
            max_tokens=settings.judge_max_tokens,
            budgets=budgets,
        ),
        telemetry=telemetry,
        inflight=inflight,
    )
    workers = Workers(store, answering.answer, settings.workers, settings.queue_lease)
    intake = Intake(
        threads=threads,
        store=store,
        workers=workers,
        channels=channels,
        follow_ups=settings.follow_ups,
    )
    home = Home(settings, channels=channels.rows, budgets=budgets)
    actions = Actions(client=client, telemetry=telemetry, reading=reading)
    bolt = bolt_app(
        settings, client, identity, intake=intake, actions=actions, home=home, private=private
    )
    return Vouch(
        settings=settings,
        bolt=bolt,
        intake=intake,
        workers=workers,
        store=store,
        threads=threads,
        channels=channels,
        libraries=libraries,
        deps=deps,
        home=home,
        actions=actions,
        inflight=inflight,
        owns_agent=agent is None,
        owns_store=owns_store,
    )


def _store(settings: Settings) -> SqliteStore | RedisStore:
    """Redis when REDIS_URL is set (shared by several instances), else SQLite at QUEUE_PATH."""
    if settings.redis_url is None:
        return SqliteStore(settings.queue_path, settings.dedupe_ttl)
    return RedisStore(settings.redis_url.get_secret_value(), settings.dedupe_ttl)


def _limits(settings: Settings) -> Limits:
    """The global budgets (BUDGET_*)."""
    return Limits(
        settings.budget_user_messages,
        settings.budget_user_tokens,
        settings.budget_channel_messages,
        settings.budget_channel_tokens,
    )


def _file_reader(settings: Settings, session: aiohttp.ClientSession | None) -> FileReader:
    """Reads shared files with the bot token, within FILES_MAX_COUNT, FILES_MAX_BYTES and
    FILES_TYPES."""
    token = settings.slack_bot_token
    limits = FileLimits(
        settings.files_max_count, settings.files_max_bytes, frozenset(settings.files_types)
    )
    secret = token.get_secret_value() if token is not None else ""
    return FileReader(secret, limits, settings.slack_api_url, session)
