"""Start the bot: Socket Mode when SLACK_APP_TOKEN is set, else HTTP on HOST:PORT with
POST /slack/events (signature-verified) and GET /healthz, its connections bounded by
app/connections.py. Either way user messages go through the intake (app/slack/intake.py:
recorded, then acked, before any Slack call), everything else through Bolt.

Shutdown (the `stop` event: SIGTERM or SIGINT from the command line) is graceful: no new
events are taken (HTTP answers 503, so Slack retries elsewhere, and /healthz turns 503;
Socket Mode disconnects), answers in flight get up to SHUTDOWN_GRACE seconds to finish,
then telemetry is flushed."""

from __future__ import annotations

import asyncio
import gc
import logging
import urllib.parse
import urllib.request
from contextlib import AsyncExitStack

import aiohttp
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from app import connections
from app.agent.loop import Deps
from app.knowledge.retrieve import Knowledge
from app.settings import Settings
from app.slack.drain import InFlight
from app.slack.events import parse
from app.slack.intake import SocketIntake, intake, signed
from app.telemetry import Telemetry
from app.verify import warm
from app.wiring import Vouch, build

log = logging.getLogger("vouch")


async def serve(settings: Settings, stop: asyncio.Event | None = None) -> None:
    """Run until `stop` is set (then shut down gracefully) or until cancelled; Slack Web API
    calls share one connection pool; the knowledge index is brought up to date before the
    first event; telemetry is flushed on the way out, within LANGFUSE_FLUSH_TIMEOUT."""
    telemetry = Telemetry.from_settings(settings)
    knowledge = None
    try:
        knowledge = await asyncio.to_thread(Knowledge.open, settings)
        await asyncio.to_thread(warm)
        _settle_heap()
        async with aiohttp.ClientSession() as session:
            await _serve(settings, session, telemetry, knowledge, stop or asyncio.Event())
    finally:
        if knowledge is not None:
            knowledge.close()
        await telemetry.close()


def _settle_heap() -> None:
    """Start-up objects (modules, the language models, the index) live as long as the
    process: moved out of the collector's sight, a full collection no longer walks them
    all while a burst of events waits on the event loop (one took ~150 ms)."""
    gc.collect()
    gc.freeze()


async def _serve(
    settings: Settings,
    session: aiohttp.ClientSession,
    telemetry: Telemetry,
    knowledge: Knowledge | None,
    stop: asyncio.Event,
) -> None:
    agent = Deps.from_settings(settings, knowledge=knowledge)
    inflight = InFlight()
    async with AsyncExitStack() as stack:
        stack.push_async_callback(agent.client.close)  # made here: closed here, whatever fails
        vouch = build(
            settings, agent=agent, session=session, telemetry=telemetry, inflight=inflight
        )
        stack.push_async_callback(vouch.close)
        await vouch.prepare()  # the channels' own docs, indexed before the first event
        vouch.start()  # messages stored before a restart are answered now
        await _run(settings, vouch, inflight, stop)


async def _run(settings: Settings, vouch: Vouch, inflight: InFlight, stop: asyncio.Event) -> None:
    if settings.slack_app_token is not None:
        log.info("starting in Socket Mode")
        # user messages: recorded, then acked (before any Slack call); the rest: Bolt
        token = settings.slack_app_token.get_secret_value()
        handler = SocketIntake(vouch.bolt, vouch.intake, token)
        await handler.connect_async()  # type: ignore[no-untyped-call]
        try:
            await stop.wait()
        finally:
            inflight.closing = True
            await handler.close_async()  # type: ignore[no-untyped-call]
        await _drain(vouch, inflight, settings.shutdown_grace)
        return
    web_app = vouch.bolt.web_app(path="/slack/events", port=settings.port)
    web_app.middlewares.insert(0, connections.reading)  # outermost: the read clock covers bodies
    web_app.middlewares.append(_refuse_when_closing(inflight))
    secret = settings.slack_signing_secret  # HTTP mode needs it (credential_problems)
    if secret is not None:  # unsigned: 401 before the body is parsed
        web_app.middlewares.append(signed(secret.get_secret_value()))
    web_app.middlewares.append(_refuse_malformed_form)
    web_app.middlewares.append(intake(vouch.intake))  # JSON: parsed, recorded, acked
    web_app.router.add_get("/healthz", _healthz(inflight))
    runner = web.AppRunner(web_app)
    await runner.setup()
    listener = await connections.listen(runner, settings)
    log.info("listening for HTTP events on %s:%s", settings.host, settings.port)
    try:
        await stop.wait()
        inflight.closing = True
        await _drain(vouch, inflight, settings.shutdown_grace)
    finally:
        listener.close()
        await runner.cleanup()


async def _drain(vouch: Vouch, inflight: InFlight, grace: float) -> None:
    """Answers in flight get `grace` seconds; the rest go back to the store, to
    be answered after the restart (or by another process on the same store)."""
    log.info("shutting down: %d answer(s) in flight, waiting up to %.0f s", inflight.count, grace)
    given_back = await vouch.stop(grace)
    if given_back:
        log.warning("shutdown: %d answer(s) given back to the store for the restart", given_back)
    else:
        log.info("shutdown: every answer finished")


@web.middleware
async def _refuse_malformed_form(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A body Slack would never send that is not JSON (the intake parses JSON: a form
    whose payload is not a JSON object, or neither a form nor JSON) gets 400; Bolt would
    raise on it and answer 500, which asks for redelivery."""
    if request.method == "POST" and not well_formed_form(await request.read()):
        log.warning("malformed request body refused (%d bytes)", request.content_length or 0)
        return web.json_response({"ok": False, "error": "malformed_body"}, status=400)
    return await handler(request)


def well_formed_form(body: bytes) -> bool:
    """Whether `body` is JSON to be parsed by the intake (starting with `{`), or a form as
    Slack posts it (slash commands; a JSON-object `payload` for interactions)."""
    if body.lstrip().startswith(b"{"):
        return True
    try:
        form = urllib.parse.parse_qs(body.decode("utf-8"), strict_parsing=True)
        return bool(form) and (
            "payload" not in form or isinstance(parse(form["payload"][0].encode()), dict)
        )
    except ValueError:  # not UTF-8, not a form, a payload not JSON or too deep
        return False


def _refuse_when_closing(inflight: InFlight) -> Middleware:
    @web.middleware
    async def refuse(request: web.Request, handler: Handler) -> web.StreamResponse:
        if inflight.closing and request.method == "POST":
            return web.json_response({"ok": False, "error": "shutting_down"}, status=503)
        return await handler(request)

    return refuse


def _healthz(inflight: InFlight) -> Handler:
    async def healthz(request: web.Request) -> web.StreamResponse:
        if inflight.closing:
            return web.json_response({"ok": False, "closing": True}, status=503)
        return web.json_response({"ok": True})

    return healthz
