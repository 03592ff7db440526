"""create_app(): the Bolt AsyncApp, with every listener wired and one Web API client."""

from __future__ import annotations

import logging
import re

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from app.agent.loop import Deps
from app.settings import Settings
from app.slack.dedupe import LocalStore, MessageStore
from app.slack.deliver import FEEDBACK_ACTION
from app.slack.drain import InFlight
from app.slack.listeners import Listeners
from app.slack.shared import RedisStore
from app.telemetry import Telemetry


def make_web_client(
    settings: Settings, session: aiohttp.ClientSession | None = None
) -> AsyncWebClient:
    """A Web API client at SLACK_API_URL that honours Retry-After on 429 and retries 5xx
    and connection errors a bounded number of times. Pass a session to reuse connections
    (without one, the SDK opens a new connection for every call)."""
    token = settings.slack_bot_token
    return AsyncWebClient(
        token=token.get_secret_value() if token is not None else None,
        base_url=settings.slack_api_url,
        session=session,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
    )


def message_store(settings: Settings) -> MessageStore:
    """Redis when REDIS_URL is set (several instances), else in process."""
    if settings.redis_url is None:
        return LocalStore(settings.dedupe_ttl)
    return RedisStore(settings.redis_url.get_secret_value(), settings.dedupe_ttl)


def bolt_logger() -> logging.Logger:
    """Bolt's framework logger, kept to errors: its warnings can print a whole request body
    (message text), e.g. for an unhandled event."""
    logger = logging.getLogger("vouch.bolt")
    logger.setLevel(logging.ERROR)
    return logger


def create_app(
    settings: Settings,
    agent: Deps,
    session: aiohttp.ClientSession | None = None,
    *,
    telemetry: Telemetry | None = None,
    inflight: InFlight | None = None,
    store: MessageStore | None = None,
) -> AsyncApp:
    secret = settings.slack_signing_secret
    app = AsyncApp(
        logger=bolt_logger(),
        client=make_web_client(settings, session),
        signing_secret=secret.get_secret_value() if secret is not None else "",
        request_verification_enabled=secret is not None,
    )
    listeners = Listeners(
        settings,
        agent,
        store or message_store(settings),
        telemetry or Telemetry.off(),
        inflight or InFlight(),
    )
    app.event("app_mention")(listeners.on_mention)
    app.event("message")(listeners.on_message)
    app.event("app_home_opened")(listeners.on_home_opened)
    app.action(re.compile(f"^{FEEDBACK_ACTION}_(up|down)$"))(listeners.on_feedback)
    return app
