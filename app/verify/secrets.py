"""SECRET: an answer that holds a credential, even one the person pasted in the thread.

The finding is detect-secrets' (Yelp): its plugins for vendors' credential formats (Slack,
AWS, GitHub, GitLab, Stripe, OpenAI, SendGrid, Twilio, npm, PyPI, Discord, Mailchimp,
Square, Telegram, Azure storage, Artifactory), private keys, JSON Web Tokens and passwords
in URLs (`scheme://user:password@host`), with the filters its own scan applies by default
to a value (templated and `$`-prefixed values, sequences, UUIDs, values with no letter;
not its filter of whole lines that look like `x = f(…)`, meant for its keyword plugin,
which would pass `WebClient(token="xoxb-…")`). Not its generic plugins (high-entropy
strings, keywords, public IPs): they flag commit hashes, ids and base64 by design; nor its
keyword-assignment ones for IBM Cloud, Cloudant and SoftLayer (`ibm_api_key = …`), which
find a value by the name it is assigned to, not by its format, and took 70% of a scan's
time.

Formats detect-secrets does not know (or knows in an older form) are added as plugins of
the same kind, from the vendors' documented prefixes: Anthropic API keys, Google API keys,
GitHub fine-grained tokens, Slack's app-level and refresh tokens, OpenAI's project and
service-account keys, Stripe's webhook signing secrets, and a password in a URL with no
user name (`redis://:password@host`). Two filters are added to detect-secrets' own: a
value with at most three distinct characters after its prefix (`AKIA` and sixteen `X`,
`ghp_xxxx…`), and a password in a URL written like a name (capitals and underscores:
`postgres://USER:PASSWORD@…`), is a placeholder, not a credential.

What a finding carries is the kind of credential (a plugin's name for it), never the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache

from detect_secrets.filters import heuristic
from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector


def _plugin(name: str, kind: str, pattern: str) -> type[RegexBasedDetector]:
    """A detect-secrets plugin of the regex kind: its name, the kind of credential it finds
    (a finding's detail), and the vendor's documented format."""
    fields = {"secret_type": kind, "denylist": (re.compile(pattern),), "__doc__": kind}
    return type(name, (RegexBasedDetector,), fields)


# sk-ant-api03-…, sk-ant-admin01-…
AnthropicKeyDetector = _plugin(
    "AnthropicKeyDetector", "Anthropic API Key", r"sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{32,}"
)
# Google Cloud and Firebase: AIza + 35 characters
GoogleApiKeyDetector = _plugin("GoogleApiKeyDetector", "Google API Key", r"AIza[0-9A-Za-z_-]{35}")
# fine-grained personal access tokens
GitHubFineGrainedDetector = _plugin(
    "GitHubFineGrainedDetector", "GitHub Token", r"github_pat_[0-9A-Za-z_]{60,}"
)
# app-level tokens (xapp-1-…) and token-rotation refresh tokens (xoxe-…)
SlackAppTokenDetector = _plugin(
    "SlackAppTokenDetector",
    "Slack Token",
    r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+|xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]+",
)
# project, service-account and admin keys (sk-proj-…T3BlbkFJ…)
OpenAIProjectKeyDetector = _plugin(
    "OpenAIProjectKeyDetector",
    "OpenAI Token",
    r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}",
)
# webhook signing secrets
StripeWebhookSecretDetector = _plugin(
    "StripeWebhookSecretDetector", "Stripe Access Key", r"whsec_[A-Za-z0-9+/]{24,}"
)
# a password in a URL with no user name (redis://:password@host)
UrlPasswordDetector = _plugin(
    "UrlPasswordDetector", "Basic Auth Credentials", r"://:([^\s:/?#\[\]@!$&'()*+,;=]+)@"
)


PLUGINS = (
    ArtifactoryDetector,
    AWSKeyDetector,
    AzureStorageKeyDetector,
    BasicAuthDetector,
    DiscordBotTokenDetector,
    GitHubTokenDetector,
    GitLabTokenDetector,
    JwtTokenDetector,
    MailchimpDetector,
    NpmDetector,
    OpenAIDetector,
    PrivateKeyDetector,
    PypiTokenDetector,
    SendGridDetector,
    SlackDetector,
    SquareOAuthDetector,
    StripeDetector,
    TelegramBotTokenDetector,
    TwilioKeyDetector,
    AnthropicKeyDetector,
    GoogleApiKeyDetector,
    GitHubFineGrainedDetector,
    SlackAppTokenDetector,
    OpenAIProjectKeyDetector,
    StripeWebhookSecretDetector,
    UrlPasswordDetector,
)
_TOKEN = re.compile(r"[A-Za-z0-9_+/=.%-]{1,512}")  # bounded: one match per occurrence
# The signature of jwt.io's sample token (its payload is John Doe's): public, in every
# tutorial.
_JWT_IO_SAMPLE = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
MAX_USER = 256  # characters of a URL's user name looked back over
_USER = re.compile(r"//([^\s:/@]+):\Z")
# An auth token near an Account SID: 32 hex characters given as a token (`AUTH_TOKEN=…`,
# `auth_token = "…"`, `"authToken": "…"`) or right after the SID (`-u AC…:token`,
# `Client("AC…", "…")`). Other 32-hex runs near it (a checksum, a Sentry DSN key, a
# request id) are not its token.
_HEX32 = r"[\"']?[0-9a-f]{32}(?![0-9A-Za-z])"
_TWILIO_TOKEN = re.compile(rf"(?i:token)[\"']?\s*[=:]\s*{_HEX32}")
TOKEN_WITHIN = 400  # characters around an Account SID its auth token is looked for in
# Hosts a default password is harmless on: this machine, or a container's service name
# (`db`, `postgres`: no dot) in a compose file or a CI job
_LOCAL_HOST = re.compile(
    r"@(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|host\.docker\.internal|[A-Za-z0-9_-]+)"
    r"(?![A-Za-z0-9_-])(?!\.[A-Za-z0-9])"  # the host ends here (a period may end the sentence)
)
# AWS's documentation keys end in EXAMPLE (ids) or EXAMPLEKEY (secrets); a token that goes
# on with letters or digits after it is not one of them
_EXAMPLE = re.compile(r"EXAMPLE(?:KEY)?(?![A-Za-z0-9])")
KEY_WITHIN = 400  # characters after a private key's header its material starts within
# A key's material: a line of base64 only (quoted or indented, as pasted), or a run of
# base64 no word is as long as (a key in a JSON string or an environment variable, "\n"
# written out)
_KEY_MATERIAL = re.compile(
    r"^[ \t>]*[A-Za-z0-9+/]{16,}={0,2}[ \t]*$|(?=[A-Za-z0-9+/]{0,40}[g-zG-Z+/])[A-Za-z0-9+/]{40,}",
    re.M,
)  # the long run must not be hex alone: a commit SHA is no key
_NAME_LIKE = re.compile(r"[A-Z][A-Z_]*")
_PREFIX = re.compile(r"^(?:[A-Za-z]{2,6}[_-]|AKIA|ASIA|AIza|sk-ant-\w+-)")


# What a text must hold for a plugin's patterns to match: a literal each of its patterns
# starts with or contains (case-folded where the pattern ignores case), looked for with
# `in`, or a short pattern that starts with a literal (which `re` looks for as fast as
# `in`). A plugin runs only on a text its gate opens for, so a clean 4 KB answer costs tens
# of microseconds instead of three hundred.
Gate = Callable[[str, bytes], bool]  # (text, folded(text)) -> whether to run the plugin
# Characters that match an ASCII letter when a pattern ignores case: the Kelvin sign (k)
# and the long s (s), as `re` folds them
_FOLDS_TO_ASCII = (("\u212a".encode(), b"k"), ("\u017f".encode(), b"s"))


def folded(text: str) -> bytes:
    """The text as the case-insensitive gates read it: UTF-8 in lower case (every folded
    literal is ASCII, and lowering bytes is five times faster than `str.casefold`)."""
    lowered = text.encode("utf-8", "surrogatepass").lower()
    if not text.isascii():
        for character, letter in _FOLDS_TO_ASCII:
            lowered = lowered.replace(character, letter)
    return lowered


def _has(*literals: str) -> Gate:
    if len(literals) == 1:
        (literal,) = literals
        return lambda text, _: literal in text
    return lambda text, _: any(literal in text for literal in literals)


def _has_folded(*literals: str) -> Gate:
    encoded = tuple(literal.encode() for literal in literals)
    return lambda _, lowered: any(literal in lowered for literal in encoded)


def _search(pattern: str) -> Gate:
    """A pattern that starts with a literal (or `re` tries it at every character)."""
    compiled = re.compile(pattern)
    return lambda text, _: compiled.search(text) is not None


def _any(*gates: Gate) -> Gate:
    return lambda text, lowered: any(gate(text, lowered) for gate in gates)


_GATES: dict[type[RegexBasedDetector], Gate] = {
    ArtifactoryDetector: _any(_has("AKC"), _search(r"AP[\dA-F]")),  # \d: any digit, as read
    AWSKeyDetector: _any(_search("A(?:3T|BIA|CCA|KIA|SIA)"), _has_folded("aws")),
    AzureStorageKeyDetector: _has("AccountKey="),
    BasicAuthDetector: _has("://"),
    DiscordBotTokenDetector: _search(r"\.[a-zA-Z\d_-]{6}\."),
    GitHubTokenDetector: _search(r"gh[pousr]_"),
    GitLabTokenDetector: _any(_has("GR1348941"), _search(r"gl[a-z]{2,6}-")),
    JwtTokenDetector: _has("eyJ"),
    MailchimpDetector: _search(r"-us[0-9]"),
    NpmDetector: _has(":_authToken="),
    OpenAIDetector: _has("T3BlbkFJ"),
    PrivateKeyDetector: _has("BEGIN ", "PuTTY-User-Key-File-2"),
    PypiTokenDetector: _has("pypi-AgE"),
    SendGridDetector: _has("SG."),
    SlackDetector: _has_folded("xox", "hooks.slack.com"),
    SquareOAuthDetector: _has("sq0csp-"),
    StripeDetector: _has("k_live_"),
    TelegramBotTokenDetector: _search(r":[0-9A-Za-z_-]{35}"),
    TwilioKeyDetector: _any(_search(r"AC[a-z0-9]{32}"), _search(r"SK[a-z0-9]{32}")),
    AnthropicKeyDetector: _has("sk-ant-"),
    GoogleApiKeyDetector: _has("AIza"),
    GitHubFineGrainedDetector: _has("github_pat_"),
    SlackAppTokenDetector: _has("xapp-", "xoxe"),
    OpenAIProjectKeyDetector: _has("T3BlbkFJ"),
    StripeWebhookSecretDetector: _has("whsec_"),
    UrlPasswordDetector: _has("://:"),
}


@cache
def _plugins() -> tuple[RegexBasedDetector, ...]:
    return tuple(plugin() for plugin in PLUGINS)


def credentials(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each credential in `text`, after detect-secrets' default
    filters (the plugins' patterns stop at line ends, as its line-by-line scan does)."""
    lowered = folded(text)
    for plugin in _plugins():
        if not _GATES[type(plugin)](text, lowered):
            continue
        password = isinstance(plugin, BasicAuthDetector | UrlPasswordDetector)
        for secret in set(plugin.analyze_string(text)):
            for found in re.finditer(re.escape(secret), text):
                if password and not _in_url(text, found):
                    continue  # the same word elsewhere ("postgres" the image) is no password
                token = _TOKEN.match(text, found.start())
                if _filtered(secret, token, url_password=password) or _example(
                    plugin, text, found, token
                ):
                    continue
                yield found.start(), found.end(), str(plugin.secret_type)


def _in_url(text: str, found: re.Match[str]) -> bool:
    """Whether a password plugin's value stands where a URL's password does: after a
    colon, before an @."""
    return text[found.start() - 1 : found.start()] == ":" and text.startswith("@", found.end())


def _example(
    plugin: RegexBasedDetector, text: str, found: re.Match[str], token: re.Match[str] | None
) -> bool:
    """A public example, a default or an id, not a credential: a value ending in EXAMPLE
    or EXAMPLEKEY (AWS's documentation keys), jwt.io's sample token, a URL password that is its user
    name on this machine or a container's service (`postgres:postgres@db`, RabbitMQ's
    `guest:guest@localhost`; on any other host it is a weak password, and counts), a
    private key's header with no key after it (a header named in prose), a Twilio Account
    SID with no auth token near it (`AC…`, an id that every API URL carries)."""
    whole = token.group() if token is not None else found.group()
    if _EXAMPLE.search(whole) or _JWT_IO_SAMPLE in whole:
        return True
    if isinstance(plugin, BasicAuthDetector):  # a default pair, on a local host only
        user = _USER.search(text, max(0, found.start() - MAX_USER), found.start())
        local = _LOCAL_HOST.match(text, found.end()) is not None
        return local and user is not None and user.group(1) == found.group()
    if isinstance(plugin, TwilioKeyDetector):  # an Account SID is an id, in every API URL,
        # unless its auth token is near; API keys (SK…) always count
        near = text[max(0, found.start() - TOKEN_WITHIN) : found.end() + TOKEN_WITHIN]
        after = re.compile(rf"{re.escape(found.group())}[\"']?\s*[:,]\s*{_HEX32}")
        return whole.startswith("AC") and not (_TWILIO_TOKEN.search(near) or after.search(near))
    if isinstance(plugin, PrivateKeyDetector):
        return _KEY_MATERIAL.search(text, found.end(), found.end() + KEY_WITHIN) is None
    return False


def _filtered(secret: str, token: re.Match[str] | None, *, url_password: bool) -> bool:
    """detect-secrets' default filters of a value, and placeholders (a plugin may yield
    only part of what it matched, "ghp" of "ghp_…": the token there is what is judged)."""
    whole = token.group() if token is not None and len(token.group()) > len(secret) else secret
    return (
        len(set(_PREFIX.sub("", whole))) <= 3
        or (url_password and _NAME_LIKE.fullmatch(secret) is not None)
        or heuristic.is_sequential_string(secret)
        or heuristic.is_potential_uuid(secret)
        or heuristic.is_templated_secret(secret)
        or heuristic.is_prefixed_with_dollar_sign(secret)
        or heuristic.is_not_alphanumeric_string(secret)
    )
