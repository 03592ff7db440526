"""SECRET: a credential in an answer fails it, wherever it sits and whoever pasted it; what
only looks like one passes; the retry's feedback names the line, never the value."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

import pytest
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.slack import SlackDetector
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.verify import feedback, secrets, verify
from app.verify.secrets import PLUGINS, credentials, gated
from tests.examples import examples

# Made up for these tests, in each vendor's format (none was ever issued).
AWS_SECRET = "9tQ2vLx8Kp3mZr7Yw1Bn5Hc0Df6Gj4Sa2Ue8Ri0T"
CREDENTIALS = {
    "slack bot": "xoxb-2741098345-5829104736021-q8Tn3LwZx0PeRv7KcYbM2sHd",
    "slack app": "xapp-1-A05R2K9L3MN-6011234567890-9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "slack webhook": "https://hooks.slack.com/services/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",
    "anthropic": "sk-ant-api03-Zq3xV8nR2tLw5yKp9mBc4dHf7jGs1aEu6oIi0QlTrWvXyZbNcMdFgHjKl-AbCdEfGh",
    "openai project": "sk-proj-Rk2m9QxT4vLp8nWz1bY6cHs3dJf7gKa5eUo0iPlMnBvCxZ9"
    "T3BlbkFJ2wQe4rTy6uIo8pAs0dFgHjKlZx",
    "aws key id": "AKIA4J2QW7NX5RZB8TLY",
    # the credentials file's line, unquoted (detect-secrets' own pattern needs quotes)
    "aws secret key": "aws_secret_access_key = 9tQ2vLx8Kp3mZr7Yw1Bn5Hc0Df6Gj4Sa2Ue8Ri0T",
    "aws secret key, json": '"SecretAccessKey": "9tQ2vLx8Kp3mZr7Yw1Bn5Hc0Df6Gj4Sa2Ue8Ri0T"',
    "aws secret key, flag": "--aws-secret-access-key 9tQ2vLx8Kp3mZr7Yw1Bn5Hc0Df6Gj4Sa2Ue8Ri0T",
    # "password" on a container's service is a weak password on what may be a real host
    "weak on a service": "postgres://app:password@prod-db-01:5432/app",
    # "localhost" that is not the host: a later "@", an escaped dot
    "not this machine": "https://admin:password@localhost@db.prod.example.com/app",
    "escaped dot": "postgres://app:password@localhost%2eevil.com/app",
    # a name in capitals is all capitals: one among uncased letters is none
    "one capital": "postgres://app:Xשלוםעולם@db.internal:5432/app",
    "aws secret key, escaped json": '{\\"SecretAccessKey\\": \\"' + AWS_SECRET + '\\"}',
    "aws secret key, xml": f"<SecretAccessKey>{AWS_SECRET}</SecretAccessKey>",
    "aws secret key, prompt": f"AWS Secret Access Key [None]: {AWS_SECRET}",
    "github classic": "ghp_7fK2mQ9xLp4vT1nB8cZ6wR3sY0dH5jGaUeXi",
    "github fine-grained": "github_pat_11ABCD2EF0"
    + "kQ3mX7pL2vT9nB4cZ8wR1sY6dH0jGaUe5XiOoPlMnBvCxZq3W8eR6tY1uI4oP7aS2dF5gH9jK",
    "google": "AIzaSyD3kL9mQ2xV7pT4nB8cZ1wR6sY0dH5jGaU",
    "stripe live": "sk_live_51HqT2kLmN3pQ9rS4tU7vW8xY",
    "stripe webhook": "whsec_mf0V0U0FZ8LearFJ4kSjFyVFcMcrAoo2",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6ImFkbWluIn0"
    ".q9Xv4nT2LmP8kRz6wB1cY7sD3fH5jGaUeOiQlKtNbMv",
    "postgres": "postgres://billing:Tr0ub4dor-Xq9@db.internal:5432/billing",
    "redis": "redis://:Ut2zaNvSC6UrVvupjoCcTOfrbhfxB2Ew@redis-prod.internal:6379/0",
    "private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1x2y3z\n"
    "-----END RSA PRIVATE KEY-----",
}

LOOK_ALIKES = {
    "commit": "Revert 9fceb02d0ae598e95dc970b74767f19372d61af8 and redeploy.",
    "uuid": "The request id is `3f2b8c1e-7d4a-4e9b-a1c3-5d6e7f8a9b0c`.",
    "base64": '```\necho "eyJkZXBsb3kiOiJiaWxsaW5nIn0=" | base64 -d\n```',
    "digest": "Pin `billing@sha256:4b1d2c3e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0"
    "a1b2c`.",
    "env var": 'Read it with `os.environ["SLACK_BOT_TOKEN"]` and never hard-code it.',
    "template": "Set `DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app`.",
    "placeholder": "Use `AKIAXXXXXXXXXXXXXXXX` in the example and your own key locally.",
    "redacted": "The log shows `xoxb-****`: the token was redacted, as it should be.",
    "slack ids": "Ask in <#C024BE91L> or ping <@U0G9QF9C6>.",
    "no password": "Connect with `postgres://app@db.internal:5432/app` and IAM auth.",
    # public examples, defaults and ids
    "aws docs": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws docs secret": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws secret from the environment": "AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}",
    "aws secret placeholder": "aws_secret_access_key = REPLACEWITHYOURAWSSECRETACCESSKEYVALUE12",
    "aws secret name on its own line": "aws_secret_access_key =\nthen paste the key below",
    # the word "password" in the template's own language, on this machine; a name in
    # capitals of any script
    "template in spanish": "DATABASE_URL=postgres://usuario:contraseña@localhost:5432/app",
    "template in russian": "postgres://app:пароль@127.0.0.1:5432/app",
    "template with a query": "http://admin:password@localhost?notify=ops@example.com",
    "name in polish capitals": "postgres://UŻYTKOWNIK:HASŁO@HOST:5432/NAZWA_BAZY",
    "jwt.io": "Try `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6Ikpv"
    "aG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c` on jwt.io.",
    "default": "In CI: `DATABASE_URL: postgres://postgres:postgres@localhost:5432/postgres`.",
    "header": "A PEM private key starts with `-----BEGIN RSA PRIVATE KEY-----`.",
    "account sid": "POST to `/2010-04-01/Accounts/AC3e2293ba22c81f874856aaac232ad0a1/Messages`.",
    # found by a blind review (each failed before its fix): a default pair's host ends at a
    # quote, a comma, a bracket or a sentence's period; AWS's example id inside a SigV4
    # credential; an Account SID beside a checksum or a DSN key, not its token
    "default quoted": "`create_engine('postgresql://postgres:postgres@localhost')`",
    "default in prose": "Use postgres://postgres:postgres@localhost, then migrate.",
    "default at the end": "Connect with amqp://guest:guest@localhost.",
    "default on the host": "From a container: postgres://postgres:postgres@host.docker.internal:5432",
    "aws docs sigv4": "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request",
    "aws docs end": "The docs use the placeholder key id AKIAIOSFODNN7EXAMPLE.",
    "sid and checksum": "TWILIO_ACCOUNT_SID=AC3e2293ba22c81f874856aaac232ad0a1, and check the "
    "CLI's archive: `9f86d081884c7d659a2feaa0c55ad015  twilio-cli-5.16.0.tar.gz`.",
}


@pytest.mark.parametrize("name", CREDENTIALS)
def test_a_credential_fails_the_answer_in_prose_and_in_code(name: str) -> None:
    secret = CREDENTIALS[name]
    for answer in (f"Your token {secret} is being rejected.", f"```\nexport KEY={secret}\n```"):
        verdict = verify(answer, question="why is my token rejected?")
        assert "SECRET" in verdict.codes and not verdict.passed, name


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_what_only_looks_like_a_credential_passes(name: str) -> None:
    assert list(credentials(LOOK_ALIKES[name])) == [], name


def test_a_pasted_credential_is_not_repeated_back_even_in_the_persons_own_thread() -> None:
    secret = CREDENTIALS["slack bot"]
    verdict = verify(
        f"Use `{secret}` in the Authorization header.",
        question=f"my token is {secret}, why does auth.test fail?",
        thread=(f"earlier: SLACK_BOT_TOKEN={secret}",),
    )
    assert "SECRET" in verdict.codes


def test_the_finding_is_where_the_credential_is_and_says_its_kind_not_its_value() -> None:
    secret = CREDENTIALS["github classic"]
    text = f"Line one.\nexport GITHUB_TOKEN={secret}\nLine three."
    [(start, end, kind)] = list(credentials(text))
    assert text[start:end].startswith("ghp") and kind == "GitHub Token"
    verdict = verify(text, question="how do I set my token?")
    [issue] = [i for i in verdict.issues if i.code == "SECRET"]
    assert secret not in issue.message and "GitHub Token" in issue.message
    told = feedback(verdict)
    assert "SECRET (line 2)" in told and secret not in told and "ghp_" not in told


def test_what_makes_an_example_a_credential_again() -> None:
    """The filters of public examples stop where the credential starts: a default
    password for another user, key material after the header, an auth token after the
    Account SID."""
    for text in (
        "DATABASE_URL: postgres://billing:postgres@db.internal:5432/billing",
        "-----BEGIN RSA PRIVATE KEY-----\n"
        "MIIEowIBAAKCAQEA1x2y3zQ8vN3rT0bLk2mW9pZs4Yd6HkQ3mX7pL2vT9nB4cZ8wR1sY6dH0jGa\n",
        "-u AC3e2293ba22c81f874856aaac232ad0a1:e02e65701d124f8a80f2398cff9df5ed",
    ):
        assert "SECRET" in verify(text, question="?").codes, text


def test_a_url_password_written_like_a_name_is_a_placeholder() -> None:
    assert list(credentials("postgres://USER:PASSWORD@localhost:5432/dev")) == []
    assert list(credentials("postgres://app:DB_PASSWORD_HERE@db:5432/app")) == []
    assert list(credentials("postgres://app:Tr0ub4dor@db:5432/app")) != []
    assert list(credentials("AKIAIOSFODNNABCDEFGH is the key id")) != []  # capitals: still a key


@pytest.mark.parametrize("plugin", PLUGINS, ids=lambda plugin: plugin.__name__)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_plugins_gate_finds_whatever_its_patterns_match(
    plugin: type[RegexBasedDetector], data: st.DataObject
) -> None:
    """A plugin runs only on text its gate finds something in: a string any of its
    patterns matches (in prose around it) must open the gate, or a credential is missed."""
    pattern = data.draw(st.sampled_from(cast("Sequence[re.Pattern[str]]", plugin().denylist)))
    found = data.draw(st.from_regex(pattern, fullmatch=True))
    text = f"see {found} here"
    if pattern.search(text):
        assert plugin in gated(text)


@pytest.mark.parametrize(
    "text",
    [
        "TWILIO_ACCOUNT_SID=AC3e2293ba22c81f874856aaac232ad0a1\n"
        "TWILIO_AUTH_TOKEN=e02e65701d124f8a80f2398cff9df5ed",
        'Client("AC3e2293ba22c81f874856aaac232ad0a1", "e02e65701d124f8a80f2398cff9df5ed")',
        "postgres://admin:admin@prod-db.internal:5432/app",
        "amqp://svc_rabbit:svc_rabbit@mq.prod.internal",
        "ghp_16C7e42F292c6912E7710c838347AeEXAMPLE178B4a8",  # EXAMPLE inside is no example
    ],
)
def test_a_default_is_public_only_where_it_is_harmless(text: str) -> None:
    """An Account SID with its auth token anywhere near, and a password equal to its user
    on a real host, are credentials: only an SID alone, or a default pair on this machine
    or a container's service, are not."""
    assert list(credentials(text)) != []


def test_public_defaults_pass() -> None:
    for text in (
        "your account SID is AC3e2293ba22c81f874856aaac232ad0a1, see the console",
        "postgres://postgres:postgres@localhost:5432/dev",
        "postgres://postgres:postgres@db:5432/app",
        "amqp://guest:guest@127.0.0.1:5672",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "mysql://root:example@db:3306/app",
        "DATABASE_URL=postgres://app:example@localhost/app",
        'conn = BlobServiceClient.from_connection_string("DefaultEndpointsProtocol=http;'
        "AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6"
        'IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://azurite:10000/")',
    ):
        assert list(credentials(text)) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "mysql://root:example@db.prod.internal:3306/app",  # a placeholder on a real host
        "postgres://app:Example2024@db:5432/app",  # not the placeholder itself
        "postgres://admin:password@prod-db-01:5432/app",  # weak, and real on that host
        "postgres://app:changeme@db:5432/app",
        "AccountName=prodstore;AccountKey=Q2x8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UV"
        "ErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",  # another account's key
    ],
)
def test_a_published_default_counts_again_beside_anything_real(text: str) -> None:
    assert list(credentials(text)) != []


def test_every_plugin_has_a_gate_and_the_set_folds_case_as_re_does() -> None:
    """No plugin is left without a gate (it would never run); the set's case-insensitive
    gates open for what `re` folds to the same letters (the Kelvin sign, the long s), and a
    lone surrogate in the text neither fails the pass nor hides what follows it."""
    assert set(secrets._GATE_PATTERNS) == set(PLUGINS)
    assert SlackDetector in gated("hoo\u212as.slack.com/services/T0/B0/x")
    assert AWSKeyDetector in gated("aw\u017f_secret_access_key")
    assert SlackDetector in gated("\ud800 XOXB-")
    assert gated("a plain answer with no credential in it.") == set()
