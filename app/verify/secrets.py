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
service-account keys, Stripe's webhook signing secrets, an AWS secret access key as the
CLI's credentials file writes it (unquoted), and a password in a URL with no user name
(`redis://:password@host`). Two filters are added to detect-secrets' own: a value with at
most three distinct characters after its prefix (`AKIA` and sixteen `X`, `ghp_xxxx…`),
and a password in a URL written like a name (capitals and underscores:
`postgres://USER:PASSWORD@…`), is a placeholder, not a credential.

What a finding carries is the kind of credential (a plugin's name for it), never the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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

from app.verify.patterns import PatternSet


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
# a secret access key as the AWS CLI's credentials file and environment write it, unquoted
# (`aws_secret_access_key = …`, `AWS_SECRET_ACCESS_KEY=…`), and as its JSON gives it
# (`"SecretAccessKey": "…"`): detect-secrets' pattern needs quotes and "aws" before the
# name. On one line; a value of one case only (`REPLACEWITHYOURKEY…`) is no key's (40
# random base64 characters hold both cases all but always).
AwsSecretKeyDetector = _plugin(
    "AwsSecretKeyDetector",
    "AWS Access Key",
    r"(?i:aws[_-]secret[_-]access[_-]key|secretaccesskey|aws secret access key(?: \[[^\]\n]*\])?)"
    r"[\\\"']*(?:[ \t]*(?:[=:>]|&gt;)[ \t]*|[ \t]+)[\\\"']*"
    r"([0-9a-zA-Z/+]{40})"
    r"(?![0-9a-zA-Z/+])",
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
    AwsSecretKeyDetector,
    UrlPasswordDetector,
)
_TOKEN = re.compile(r"[A-Za-z0-9_+/=.%-]{1,512}")  # bounded: one match per occurrence
# Values published as the same on every install, so they open nothing: the signature of
# jwt.io's sample token (its payload is John Doe's), in every tutorial; the Azure storage
# emulator's (Azurite's) fixed key for its account devstoreaccount1, in Microsoft's docs.
_PUBLISHED = (
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
)
# The password the official container images' docs write in their examples (postgres',
# mysql's and mongo's compose files): a placeholder on a local host, as a user's own name
# is. Not "password" or "changeme" there: weak, but real on a host named like "prod-db-01"
# (the word "password" passes on this machine alone: _PASSWORD_WORDS).
_PLACEHOLDER_PASSWORDS = frozenset({"example"})
# The word "password" itself, in the languages Vouch reads: the template's placeholder
# (`postgres://usuario:contraseña@localhost`), on this machine only (a container's
# service, "prod-db-01", may be a real host, where "password" is a weak password).
_PASSWORD_WORDS = frozenset(
    "password passwort contraseña contrasena senha motdepasse mot_de_passe wachtwoord "
    "hasło haslo heslo пароль lösenord losenord passord adgangskode parola şifre sifre "
    "パスワード 密码 비밀번호".split()
)
_THIS_MACHINE = re.compile(  # and no later "@" or escape that would make it another host
    r"@(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?![\w.%+@-])(?![^\s/?#;]*@)"
)
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

_PREFIX = re.compile(r"^(?:[A-Za-z]{2,6}[_-]|AKIA|ASIA|AIza|sk-ant-\w+-)")


# What a text must hold for a plugin's patterns to match: a literal each of its patterns
# starts with or contains, or a short pattern that starts with one. A plugin runs only on
# a text its gate opens for. The gates are found in one pass: RE2's set of them is an
# automaton over the text's bytes (about 5 µs for a clean 4 KB answer, where ~30 searches
# with `in` took ~100 µs). Only literals and short runs: a run of 32 counted characters
# makes a text built of them three times slower to read.
_GATE_PATTERNS: dict[type[RegexBasedDetector], tuple[str, ...]] = {
    ArtifactoryDetector: ("AKC", r"AP[\p{Nd}A-F]"),  # \d in the plugin: any digit
    AWSKeyDetector: ("A3T", "ABIA", "ACCA", "AKIA", "ASIA", "(?i)aws"),
    AzureStorageKeyDetector: ("AccountKey=",),
    BasicAuthDetector: ("://",),
    GitHubTokenDetector: ("gh[pousr]_",),
    GitLabTokenDetector: ("GR1348941", "gl[a-z]{2,6}-"),
    JwtTokenDetector: ("eyJ",),
    MailchimpDetector: ("-us[0-9]",),
    NpmDetector: (":_authToken=",),
    OpenAIDetector: ("T3BlbkFJ",),
    PrivateKeyDetector: ("BEGIN ", "PuTTY-User-Key-File-2"),
    PypiTokenDetector: ("pypi-AgE",),
    SendGridDetector: (r"SG\.",),
    SlackDetector: ("(?i)xox", r"(?i)hooks\.slack\.com"),
    SquareOAuthDetector: ("sq0csp-",),
    StripeDetector: ("k_live_",),
    AnthropicKeyDetector: ("sk-ant-",),
    GoogleApiKeyDetector: ("AIza",),
    GitHubFineGrainedDetector: ("github_pat_",),
    SlackAppTokenDetector: ("xapp-", "xoxe"),
    OpenAIProjectKeyDetector: ("T3BlbkFJ",),
    StripeWebhookSecretDetector: ("whsec_",),
    AwsSecretKeyDetector: (
        "(?i)aws[_-]secret[_-]access[_-]key",
        "(?i)secretaccesskey",
        "(?i)aws secret access key",
    ),
    UrlPasswordDetector: ("://:",),
    # the plugins' runs of 6, 32 and 35 characters, cut short: a superset, a smaller automaton
    DiscordBotTokenDetector: (r"\.[a-zA-Z\p{Nd}_-]{6}\.",),
    TelegramBotTokenDetector: (":[0-9A-Za-z_-]{8}",),
    TwilioKeyDetector: ("AC[a-z0-9]{4}", "SK[a-z0-9]{4}"),
}


_GATES = PatternSet(_GATE_PATTERNS)


def gated(text: str) -> set[type[RegexBasedDetector]]:
    """The plugins whose gates open for `text`: those that may find something in it."""
    return _GATES.found(text)


@cache
def _plugins() -> tuple[RegexBasedDetector, ...]:
    return tuple(plugin() for plugin in PLUGINS)


def credentials(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each credential in `text`, after detect-secrets' default
    filters (the plugins' patterns stop at line ends, as its line-by-line scan does)."""
    opened = gated(text)
    for plugin in _plugins():
        if type(plugin) not in opened:
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
    or EXAMPLEKEY (AWS's documentation keys), a value published as the same everywhere
    (jwt.io's sample, Azurite's key), a URL password that is its user name or the images'
    placeholder on this machine or a container's service (`postgres:postgres@db`,
    RabbitMQ's `guest:guest@localhost`, `root:example@mongo`; on any other host it is a
    weak password, and counts), a
    private key's header with no key after it (a header named in prose), a Twilio Account
    SID with no auth token near it (`AC…`, an id that every API URL carries), an AWS
    secret key of one case only (`REPLACEWITHYOURKEY…`)."""
    whole = token.group() if token is not None else found.group()
    if _EXAMPLE.search(whole) or any(value in whole for value in _PUBLISHED):
        return True
    if isinstance(plugin, AwsSecretKeyDetector) and (whole.isupper() or whole.islower()):
        return True  # one case only: a placeholder (a key's 40 characters hold both)
    if isinstance(plugin, BasicAuthDetector):  # a default pair, on a local host only
        user = _USER.search(text, max(0, found.start() - MAX_USER), found.start())
        local = _LOCAL_HOST.match(text, found.end()) is not None
        default = found.group() in _PLACEHOLDER_PASSWORDS or (
            found.group().casefold() in _PASSWORD_WORDS
            and _THIS_MACHINE.match(text, found.end()) is not None
        )
        return local and user is not None and (default or user.group(1) == found.group())
    if isinstance(plugin, TwilioKeyDetector):  # an Account SID is an id, in every API URL,
        # unless its auth token is near; API keys (SK…) always count
        near = text[max(0, found.start() - TOKEN_WITHIN) : found.end() + TOKEN_WITHIN]
        after = re.compile(rf"{re.escape(found.group())}[\"']?\s*[:,]\s*{_HEX32}")
        return whole.startswith("AC") and not (_TWILIO_TOKEN.search(near) or after.search(near))
    if isinstance(plugin, PrivateKeyDetector):
        return _KEY_MATERIAL.search(text, found.end(), found.end() + KEY_WITHIN) is None
    return False


def _name_like(value: str) -> bool:
    """Written like a name: capitals and underscores, in any script ("PASSWORD", "HASŁO")."""
    letters = value.replace("_", "")
    return value[:1].isalpha() and all(letter.isupper() for letter in letters)


def _filtered(secret: str, token: re.Match[str] | None, *, url_password: bool) -> bool:
    """detect-secrets' default filters of a value, and placeholders (a plugin may yield
    only part of what it matched, "ghp" of "ghp_…": the token there is what is judged)."""
    whole = token.group() if token is not None and len(token.group()) > len(secret) else secret
    return (
        len(set(_PREFIX.sub("", whole))) <= 3
        or (url_password and _name_like(secret))
        or heuristic.is_sequential_string(secret)
        or heuristic.is_potential_uuid(secret)
        or heuristic.is_templated_secret(secret)
        or heuristic.is_prefixed_with_dollar_sign(secret)
        or heuristic.is_not_alphanumeric_string(secret)
    )
