"""The Slack side's clients and Bolt's app: Web API clients that retry what Slack asks to
be retried, who the bot is (auth.test, asked once), and the listeners Bolt runs."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.async_authorize import AsyncAuthorize
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.settings import Settings
from app.slack.actions import Actions
from app.slack.deliver import ESCALATE_ACTION, FEEDBACK_ACTION, REASON_ACTION
from app.slack.errors import SLACK_FAILURES
from app.slack.events import SHORTCUT
from app.slack.home import Home
from app.slack.intake import Intake
from app.slack.private import SHARE_ACTION, Private
from app.slack.thread import Bot
from app.work.workers import TryLater


def make_web_client(
    settings: Settings, session: aiohttp.ClientSession | None = None, *, wait: bool = True
) -> AsyncWebClient:
    """A Web API client at SLACK_API_URL that honours Retry-After on 429 (when `wait` is
    False, only a Retry-After of a few seconds: a reader that would rather do without than
    wait a minute) and retries 5xx and connection errors a bounded number of times. Pass a
    session to reuse connections (without one, the SDK opens a new connection each call)."""
    token = settings.slack_bot_token
    handlers: list[AsyncRetryHandler] = [
        AsyncConnectionErrorRetryHandler(max_retry_count=2),
        AsyncServerErrorRetryHandler(max_retry_count=2),
    ]
    limits = AsyncRateLimitErrorRetryHandler if wait else ShortRateLimitRetryHandler
    handlers.insert(1, limits(max_retry_count=3))
    return AsyncWebClient(
        token=token.get_secret_value() if token is not None else None,
        base_url=settings.slack_api_url,
        timeout=settings.slack_timeout,
        session=session,
        retry_handlers=handlers,
    )


class ShortRateLimitRetryHandler(AsyncRateLimitErrorRetryHandler):
    """Retries a 429 only when its Retry-After is at most SHORT_WAIT seconds."""

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if response is None or response.status_code != 429:
            return False
        named = {k.lower(): v for k, v in response.headers.items()}.get("retry-after") or ["1"]
        try:
            return int(named[0]) <= SHORT_WAIT
        except ValueError:
            return False


SHORT_WAIT = 5  # seconds a reader waits out a rate limit


log = logging.getLogger("vouch.slack")


def bolt_logger() -> logging.Logger:
    """Bolt's framework logger, kept to errors: its warnings can print a whole request body
    (message text), e.g. for an unhandled event."""
    logger = logging.getLogger("vouch.bolt")
    logger.setLevel(logging.ERROR)
    return logger


class SlackUnavailable(Exception):
    """auth.test failed; the event is refused so that Slack delivers it again."""


class Identity(AsyncAuthorize):
    """Who the bot is, from auth.test, asked once and then kept. Bolt's own single-team
    authorization answers 200 when auth.test fails, and the event is lost; this one
    raises, so Bolt answers 500 and Slack delivers the event again (HTTP mode)."""

    def __init__(self, client: AsyncWebClient) -> None:
        self._client = client
        self._result: AuthorizeResult | None = None
        self._asking = asyncio.Lock()

    async def __call__(self, **_: Any) -> AuthorizeResult:  # Bolt passes the event's ids
        if self._result is not None:  # every event after the first: no lock to take
            return self._result
        async with self._asking:  # events arriving together share one auth.test
            if self._result is None:
                try:
                    response = await self._client.auth_test()
                except SLACK_FAILURES as exc:
                    raise SlackUnavailable(f"auth.test: {label(exc)}") from None
                self._result = AuthorizeResult.from_auth_test_response(
                    bot_token=self._client.token, auth_test_response=response
                )
            return self._result

    async def bot(self) -> Bot:
        """The bot's user and bot ids; TryLater while auth.test cannot be asked."""
        try:
            result = await self()
        except SlackUnavailable as exc:
            raise TryLater(str(exc)) from None
        return Bot(result.bot_user_id or "", result.bot_id or "")


async def _unhandled(error: Exception) -> None:
    """An event Bolt could not hand to a listener (e.g. auth.test failed): Bolt answers
    500, so Slack delivers it again in HTTP mode. Logged by type (Bolt's default handler
    logs a traceback and the error's text)."""
    cause = str(error) if isinstance(error, SlackUnavailable) else label(error)
    log.error("event not handled: %s", cause)


def bolt_app(
    settings: Settings,
    client: AsyncWebClient,
    identity: Identity,
    *,
    intake: Intake,
    actions: Actions,
    home: Home,
    private: Private,
) -> AsyncApp:
    """Bolt's app with Vouch's listeners: the message events the intake in front of it
    leaves to it, the Home tab and DM opened, and the actions on Vouch's replies (and on
    its private answers: share)."""
    secret = settings.slack_signing_secret
    app = AsyncApp(
        logger=bolt_logger(),
        client=client,
        authorize=identity,
        # listeners only record (and ack actions first): Slack's ack waits for the store,
        # so a message acked is a message on disk (user messages mostly come through the
        # intake in front of Bolt, app/slack/intake.py; these listeners take the rest)
        process_before_response=True,
        signing_secret=secret.get_secret_value() if secret is not None else "",
        request_verification_enabled=secret is not None,
    )
    app.error(_unhandled)
    app.event("app_mention")(intake.on_message)
    app.event("message")(intake.on_message)
    app.event("app_home_opened")(home.on_opened)
    app.shortcut(SHORTCUT)(intake.on_shortcut)
    app.action(re.compile(f"^{FEEDBACK_ACTION}_(up|down)$"))(actions.on_feedback)
    app.action(re.compile(f"^{REASON_ACTION}_[a-z_]+$"))(actions.on_reason)
    app.action(ESCALATE_ACTION)(actions.on_escalate)
    app.action(SHARE_ACTION)(private.on_share)
    app.action(re.compile(".*"))(_acked)  # last: a click on anything else is acked, not a 404
    return app


async def _acked(ack: AsyncAck) -> None:
    """A click on a control Vouch does not know (another app's, an old message's): acked,
    so Slack shows its user no error, and logged."""
    await ack()
    log.info("action on a control Vouch does not know: acked")
