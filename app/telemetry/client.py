"""The Langfuse client, process-wide: set up from the settings (or off), a trace per
message, scores, and a flush and shutdown that wait no longer than their bound."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from langfuse import Langfuse, propagate_attributes
from langfuse.span_filter import is_langfuse_span
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from app.errors import label
from app.settings import Settings
from app.telemetry import ids
from app.telemetry.allowlist import allow_listed, checked
from app.telemetry.guard import bounded, guarded
from app.telemetry.ids import MessageIds, message_time
from app.telemetry.scores import DataType, ScoreRow, feedback_row, reason_row, score_id
from app.telemetry.trace import Trace

log = logging.getLogger("vouch.telemetry")

TRACE_NAME = "vouch.answer"
EXPERIMENTS = "sdk-experiment"  # the environment Langfuse's experiment runs are recorded in


class Telemetry:
    """Process-wide: the Langfuse client (None when telemetry is off), the hashing key and
    the tags every trace carries."""

    def __init__(
        self,
        client: Langfuse | None,
        *,
        salt: bytes = b"",
        tags: Sequence[str] = (),
        flush_timeout: float = 5.0,
        provider: TracerProvider | None = None,
    ) -> None:
        self._client = client
        self._provider = provider
        self._salt = salt
        self._tags = list(tags)
        self._flush_timeout = flush_timeout
        self._closed = False

    @classmethod
    def off(cls) -> Telemetry:
        return cls(None)

    @classmethod
    def from_settings(cls, settings: Settings) -> Telemetry:
        """The bot's telemetry; says once whether it is on."""
        environment = settings.langfuse_environment
        mode = "socket" if settings.slack_app_token is not None else "http"
        tags = (f"format:{settings.response_format}", f"mode:{mode}", f"env:{environment}")
        made = _langfuse(settings, environment, mask=True)
        if made is None:
            log.info("telemetry off: set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY to enable")
            return cls(None, tags=tags)
        client, provider, salt = made
        log.info("telemetry on: traces and scores go to Langfuse (environment %s)", environment)
        flush_timeout = settings.langfuse_flush_timeout
        return cls(client, salt=salt, tags=tags, flush_timeout=flush_timeout, provider=provider)

    @classmethod
    def for_experiments(cls, settings: Settings) -> Telemetry:
        """Telemetry for `python -m app eval` on a Langfuse dataset: the same traces and
        scores, in Langfuse's experiment environment (never the bot's, so its rates stay
        the bot's), and without the export mask: an experiment's items and outputs, which
        the team put in Langfuse, are shown with its runs. Off without the keys."""
        made = _langfuse(settings, EXPERIMENTS, mask=False)
        if made is None:
            return cls(None)
        client, provider, salt = made
        return cls(
            client,
            salt=salt,
            tags=("eval",),
            flush_timeout=settings.langfuse_flush_timeout,
            provider=provider,
        )

    @property
    def langfuse(self) -> Langfuse | None:
        """The SDK's client (None when off): for what only the SDK does, such as datasets."""
        return None if self._closed else self._client

    @property
    def enabled(self) -> bool:
        return self._client is not None and not self._closed

    def hashed(self, slack_id: str) -> str:
        """A salted one-way hash of a Slack id: stable, and useless without the salt."""
        return ids.hashed(self._salt, slack_id)

    def trace_id(self, message_key: str) -> str:
        """The trace id of a user message, from its team:channel:ts key (see ids.trace_id)."""
        return ids.trace_id(self._salt, message_key)

    @contextmanager
    def trace(self, message: MessageIds) -> Iterator[Trace]:
        """The trace of one message, its root observation open while the body runs."""
        trace_id = self.trace_id(message.key)
        langfuse = self._client
        if langfuse is None or self._closed:
            yield Trace(trace_id, None, self, message_time(message.key))
            return
        with propagate_attributes(
            user_id=self.hashed(message.user),
            session_id=self.hashed(message.thread),
            tags=self._tags,
            trace_name=TRACE_NAME,
        ):
            root = guarded(
                "trace",
                lambda: langfuse.start_observation(
                    trace_context={"trace_id": trace_id},
                    name=TRACE_NAME,
                    as_type="span",
                    metadata=checked(
                        {
                            "kind": message.kind,
                            "history_messages": message.history_messages,
                            "files": message.files,
                            "files_unread": message.files_unread,
                        }
                    ),
                ),
            )
            trace = Trace(trace_id, root, self, message_time(message.key))
            scored = True
            try:
                yield trace
            except Exception as exc:  # the user is told of the failure: not verified
                trace.root.fail(label(exc))
                trace.outcome = None
                raise
            except BaseException as exc:  # cancelled (shutting down): nothing to score
                trace.root.fail(label(exc))
                scored = False
                raise
            finally:
                if scored:
                    trace.score()
                trace.root.end()

    def failed(self, message: MessageIds, reason: str, *, triage: str | None = None) -> None:
        """A message Vouch answered with the failure message before its trace opened (e.g.
        its thread could not be read): a trace of its own, counted as not verified.
        `triage`: an unasked message's category (help channels)."""
        with self.trace(message) as trace:
            trace.triage = triage
            trace.root.fail(reason)

    def over_budget(self, message: MessageIds, which: str, *, triage: str | None = None) -> None:
        """A message past a budget, told so without a model call: a trace of its own, with
        outcome `over_budget` and the `budget` it was past; no verification rates."""
        with self.trace(message) as trace:
            trace.triage = triage
            trace.over_budget = which

    def score(
        self,
        trace_id: str,
        name: str,
        value: float | str,
        data_type: DataType,
        score_id: str,
        *,
        at: datetime | None = None,
    ) -> None:
        """Queue one trace score (sent by the SDK's score thread). A fixed score id makes a
        repeat (a Slack retry answered again after a restart, a second click) replace it,
        but Langfuse keeps one score per id and day of its timestamp: `at` is the time of
        the Slack message it is about, the same however late the repeat comes."""
        langfuse = self._client
        if langfuse is None or self._closed:
            return
        guarded(
            "score",
            lambda: langfuse.create_score(
                name=name,
                value=value,  # type: ignore[arg-type]  # the overloads split float/str by type
                trace_id=trace_id,
                score_id=score_id,
                data_type=data_type,  # type: ignore[arg-type]
                timestamp=at,
            ),
        )

    def scores(self, trace_id: str, rows: Iterable[ScoreRow], at: datetime | None) -> None:
        """Queue the score of each row, its id from the trace, its name and its suffix."""
        for row in rows:
            name, value, data_type, _ = row
            self.score(trace_id, name, value, data_type, score_id(trace_id, row), at=at)

    def feedback(
        self, trace_id: str, user: str, positive: bool, at: datetime | None = None
    ) -> None:
        """A 👍/👎 click on an answer: `user_feedback` on the answer's trace, one per user,
        stamped with the answer's time (`at`) so a click days later replaces the first."""
        self.scores(trace_id, [feedback_row(self.hashed(user), positive)], at)

    def escalated(self, trace_id: str, at: datetime | None = None) -> None:
        """Someone asked for a person after Vouch could not answer: `escalated` (once)."""
        self.scores(trace_id, [("escalated", 1.0, "BOOLEAN", "")], at)

    def shared(self, trace_id: str) -> None:
        """A private answer (`/vouch`) its asker shared in the channel: `shared` (once)."""
        self.scores(trace_id, [("shared", 1.0, "BOOLEAN", "")], None)

    def feedback_reason(
        self, trace_id: str, user: str, reason: str, at: datetime | None = None
    ) -> None:
        """Why a 👎 (one of REASONS): `user_feedback_reason`, one per user, at `at`."""
        self.scores(trace_id, [reason_row(self.hashed(user), reason)], at)

    async def flush(self) -> bool:
        """Send what is queued, waiting at most LANGFUSE_FLUSH_TIMEOUT; True if all went."""
        langfuse = self._client
        if langfuse is None or self._closed:
            return True
        return await asyncio.to_thread(bounded, langfuse.flush, self._flush_timeout)

    async def close(self) -> None:
        """Flush and stop the SDK's threads, within the bound; later calls are no-ops."""
        langfuse = self._client
        if langfuse is None or self._closed:
            return
        self._closed = True
        provider = self._provider

        def shutdown() -> None:
            langfuse.shutdown()  # flushes; stops the score and media threads
            if provider is not None:
                provider.shutdown()  # stops the span exporter's thread

        if not await asyncio.to_thread(bounded, shutdown, self._flush_timeout):
            log.warning("telemetry: shutdown gave up after %ss", self._flush_timeout)


def _langfuse(
    settings: Settings, environment: str, *, mask: bool
) -> tuple[Langfuse, TracerProvider, bytes] | None:
    """The SDK's client with a tracer provider of its own (other OpenTelemetry spans in the
    process, such as the Anthropic SDK's, which carry the same token usage as our
    generations, never reach Langfuse), and the hashing key; None without the keys.
    `mask`: every exported attribute outside the allowlist is dropped (the bot's)."""
    public, secret = settings.langfuse_public_key, settings.langfuse_secret_key
    if public is None or secret is None:
        return None
    provider = TracerProvider(
        resource=Resource.create({"service.name": "vouch", "langfuse.environment": environment}),
        shutdown_on_exit=False,  # close() shuts down, within LANGFUSE_FLUSH_TIMEOUT
    )
    client = Langfuse(
        public_key=public,
        secret_key=secret.get_secret_value(),
        base_url=settings.langfuse_base_url,
        timeout=settings.langfuse_timeout,
        environment=environment,
        tracer_provider=provider,
        should_export_span=is_langfuse_span,
        mask_otel_spans=allow_listed if mask else None,
    )
    salt_setting = settings.telemetry_salt
    salt = (
        salt_setting.get_secret_value().encode()
        if salt_setting is not None
        else ids.derived_salt(secret.get_secret_value())
    )
    return client, provider, salt
