"""Triage in a help channel: is a new top-level message one Vouch should take, unasked?
A worker decides (`Triaging.decide`), after the ack: the first pass by form, then whether
people are answering it in its thread already, then the model (app/agent/question.py) for
what is left. Only a `question` is taken; anything else, or no decision, is left alone,
and telemetry records the category (never the text).

The cheap first pass, with no model call: a message it can tell is not a question for the
channel is left alone, with a category (telemetry says which, never the text):

- `empty`: nothing but files, links, mentions or emoji, or a word or two with no question;
- `announcement`: it notifies the channel (`<!here>`, `<!channel>`, `<!everyone>`);
- `to_person`: it opens by addressing a person or a user group (`<@U…>`, `<!subteam^…>`),
  after a greeting at most: they are asked, not the channel;
- `thanks`: a short thanks or acknowledgement ("ty!!", "+1", "same here", "solved it, nvm");
- `greeting`: a short greeting and nothing else ("morning all :sunny:").

Everything else is `undecided`: the model decides (questions, statements, rhetorical
questions and jokes look alike in form). The words are kept in the languages Vouch answers
in; a message of another language is simply left to the model.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Literal

from slack_sdk.web.async_client import AsyncWebClient

from app.agent import question
from app.agent.capabilities import Client
from app.agent.model import Usage
from app.slack.gather import limits_of
from app.slack.history import ThreadHistory
from app.slack.message import Message
from app.telemetry import Trace
from app.verify.scan import CJK
from app.work.budget import Budgets

log = logging.getLogger("vouch.slack")

Category = Literal["empty", "announcement", "to_person", "thanks", "greeting", "undecided"]
# Every category a decision can carry: the first pass's, the thread's, the model's, and
# `unavailable` (the model gave no decision: left alone).
Decided = Category | question.Category | Literal["answered", "unavailable"]
By = Literal["rules", "thread", "model", "tries"]  # tries: taken too often to triage

SHORT = 8  # words: at most this, a thanks or a greeting is all the message says
FEW = 2  # words of prose: with no question mark, too little to be a question
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S)
_QUOTE = re.compile(r"^(?:>|&gt;).*$", re.M)
_BROADCAST = re.compile(r"<!(?:here|channel|everyone)(?:\|[^>]*)?>")
_ENTITY = re.compile(r"<[^<>\n]*>")
_ADDRESSEE = re.compile(r"<(?:@[UW][A-Z0-9]+|!subteam\^[A-Z0-9]+)(?:\|[^>]*)?>")
_EMOJI = re.compile(r":[a-z0-9_+'-]+:")
_WORD = re.compile(r"\w+(?:['’]\w+)*")
_CJK = re.compile(f"[{CJK}]")
_QUESTION = re.compile("[?？¿]")
_GREETING_WORDS = (
    "hi hey hello hiya yo morning evening afternoon all everyone folks team guys people "
    "good happy friday monday weekend hallo moin servus guten morgen tag abend zusammen "
    "bonjour salut coucou à tous toutes buenos buenas días dias tardes hola todos "
    "bom dia olá ola pessoal ciao buongiorno buonasera a tutti hoi goedemorgen allemaal "
    "dzień dobry wszystkim cześć hej god morgon allihopa hallå merhaba günaydın herkese "
    "привет всем доброе утро おはようございます こんにちは 大家好 早上好 안녕하세요 "
    "नमस्ते सभी को"
).split()
_THANKS = re.compile(
    r"\b(?:thanks?|thx|ty|tysm|cheers|danke|merci|gracias|obrigad[oa]|grazie|dank|bedankt|"
    r"dzięki|dziękuję|tack|teşekkür\w*|sağol|спасибо|благодарю|nvm|never ?mind|solved|"
    r"fixed|works now|got it|same here|ack|noted)\b|\+1|ありがとう|助かりました|"
    r"谢谢|感谢|감사|고맙|धन्यवाद|शुक्रिया",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Triage:
    """The first pass's decision: leave the message (with why), or ask the model."""

    category: Category

    @property
    def leave(self) -> bool:
        return self.category != "undecided"


def triage(text: str, files: int = 0) -> Triage:
    """Whether a new top-level message in a help channel is, by its form alone, not a
    question for the channel. `files`: how many files it shares."""
    if _BROADCAST.search(text):
        return Triage("announcement")
    prose = _QUOTE.sub(" ", _CODE.sub(" code ", text))
    if _opens_with_addressee(prose):
        return Triage("to_person")
    plain = _EMOJI.sub(" ", _ENTITY.sub(" ", prose))  # no links, mentions or emoji
    words = _WORD.findall(plain)
    count = _count(words)
    if _QUESTION.search(prose) is not None or count > SHORT:
        return Triage("undecided")
    return Triage(_short(prose, plain, words, count, files))


def _short(prose: str, plain: str, words: list[str], count: int, files: int) -> Category:
    """What a short message with no question mark is."""
    if _THANKS.search(plain) or (not words and _EMOJI.search(prose)):
        return "thanks"
    if count <= FEW and not (files and words):
        return "empty"
    if all(word.casefold() in _GREETING_WORDS for word in words):
        return "greeting"
    return "undecided"


def _opens_with_addressee(prose: str) -> bool:
    """Whether the message opens with a mention of a person or group, after a greeting at
    most ("hey <@U…> can you…")."""
    found = _ADDRESSEE.search(prose)
    if found is None:
        return False
    before = _WORD.findall(_EMOJI.sub(" ", prose[: found.start()]))
    return all(word.casefold() in _GREETING_WORDS for word in before)


def _count(words: list[str]) -> int:
    """How many words: in scripts written without spaces, a run of characters counts one
    word per three characters (a character carries a syllable or a word)."""
    return sum(max(1, len(_CJK.findall(word)) // 3) for word in words)


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether an unasked message is taken, why (a fixed category), and what it cost."""

    category: Decided
    by: By
    duration_ms: float
    model: str | None = None  # the model that decided, when one did
    usage: Usage | None = None

    @property
    def take(self) -> bool:
        return self.category == "question"

    def tell(self, trace: Trace) -> None:
        """Record the decision on the message's trace (a category, never the text)."""
        trace.triaged(self.category, self.by, self.duration_ms, model=self.model, usage=self.usage)


@dataclass(frozen=True, slots=True, kw_only=True)
class Triaging:
    """Decides whether a worker takes an unasked message from a help channel."""

    client: AsyncWebClient
    threads: ThreadHistory
    model: Client  # the Anthropic client
    model_name: str  # JUDGE_MODEL: a small model decides
    max_tokens: int  # JUDGE_MAX_TOKENS
    budgets: Budgets  # the model's tokens count toward the asker's and the channel's

    async def decide(self, message: Message) -> Decision:
        started = time.perf_counter()

        def took() -> float:
            return round((time.perf_counter() - started) * 1000, 1)

        files = message.event.get("files") or ()
        first = triage(str(message.event.get("text") or ""), len(files))
        if first.leave:
            return Decision(first.category, "rules", took())
        if not message.follow_up and await self.threads.replied(
            self.client, message.target, message.bot
        ):  # a follow-up's thread is Vouch's own: the model tells whom it addresses
            return Decision("answered", "thread", took())
        decided = await question.decide(
            self.model,
            self.model_name,
            self.max_tokens,
            str(message.event.get("text") or ""),
            len(files),
        )
        if isinstance(decided, str):  # no decision: left alone (fails closed)
            log.warning("help channel: no triage decision (%s): left alone", decided)
            return Decision("unavailable", "model", took(), self.model_name)
        category, usage = decided
        target = message.target
        await self.budgets.spend(
            target.team, target.channel, target.user, usage.total, limits_of(message.here)
        )
        return Decision(category, "model", took(), self.model_name, usage)
