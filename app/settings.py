"""Every setting of Vouch, read once from the environment and `.env`, then frozen.

This is the only module that reads the environment. A bad value raises SettingsError,
whose message names the setting and what is allowed (never the value: it may be a secret).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    DirectoryPath,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.errors import invalid_fields

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
FileKind = Literal["image", "pdf", "text"]
_USER_ID = re.compile(r"[UW][A-Z0-9]{2,}")


class SettingsError(Exception):
    """A setting is missing or has a value that is not allowed."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    response_format: Literal["mrkdwn", "markdown"] = "mrkdwn"
    log_level: LogLevel = "INFO"

    anthropic_api_key: SecretStr | None = None
    anthropic_base_url: str = "https://api.anthropic.com"
    anthropic_model: str = Field("claude-sonnet-5-5", min_length=1)
    anthropic_max_tokens: int = Field(8192, ge=1024, le=64_000)
    anthropic_thinking: Literal["light", "adaptive", "off"] = "light"
    anthropic_timeout: float = Field(60.0, gt=0, le=600)
    anthropic_max_retries: int = Field(2, ge=0, le=10)
    # Where Claude is bought: Anthropic's API, Amazon Bedrock or Google Vertex AI. Bedrock
    # takes its region and credentials from AWS's own environment (AWS_REGION, AWS_PROFILE,
    # AWS_ACCESS_KEY_ID, ...), Vertex its credentials from Google's application default
    # credentials; the names below are the SDK's own, for what it must be told.
    anthropic_provider: Literal["anthropic", "bedrock", "vertex"] = "anthropic"
    anthropic_bedrock_base_url: str | None = None  # None: bedrock-runtime.{region}.amazonaws.com
    cloud_ml_region: str | None = None  # Vertex's region (required for vertex)
    anthropic_vertex_project_id: str | None = None  # the Google Cloud project (required for vertex)
    anthropic_vertex_base_url: str | None = None  # None: the region's aiplatform endpoint
    max_attempts: int = Field(3, ge=1, le=5)
    message_deadline: float = Field(120.0, gt=0, le=900)
    tool_calls: int = Field(4, ge=0, le=20)  # per attempt; 0: no tools
    tool_timeout: float = Field(10.0, gt=0, le=60)
    tool_result_chars: int = Field(24_000, ge=1000, le=200_000)
    check_receipt: bool = True  # a verified answer says what was checked
    show_steps: bool = True  # streamed answers show the loop's steps as task cards
    channels_file: Path | None = None  # per-channel settings (YAML): app/channels.py
    escalation_group: str | None = Field(None, pattern=r"^S[A-Z0-9]{2,}$")  # a user group id
    files_max_count: int = Field(5, ge=0, le=20)  # files read per message; 0: none
    files_max_bytes: int = Field(10_000_000, ge=1000, le=32_000_000)
    files_types: Annotated[frozenset[FileKind], NoDecode] = frozenset({"image", "pdf", "text"})
    judge_enabled: bool = True
    judge_model: str = Field("claude-haiku-5-5", min_length=1)
    judge_max_tokens: int = Field(4096, ge=1024, le=32_000)
    judge_thread_tokens: int = Field(4000, ge=0, le=100_000)
    judge_fallback: Literal["busy", "deliver"] = "busy"

    slack_bot_token: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    slack_timeout: int = Field(30, ge=1, le=120)
    host: str = "0.0.0.0"
    port: int = Field(3000, ge=1, le=65535)
    http_keepalive_timeout: float = Field(75.0, gt=0, le=3600)
    http_read_timeout: float = Field(10.0, gt=0, le=300)
    http_max_connections: int = Field(1000, ge=1, le=100_000)
    follow_ups: bool = True
    slack_search: bool = False  # Real-time Search as a tool, where the workspace allows it
    admin_users: Annotated[frozenset[str], NoDecode] = frozenset()  # see the App Home's metrics
    thread_max_messages: int = Field(50, ge=1, le=1000)
    thread_max_chars: int = Field(30_000, ge=1_000, le=200_000)
    thread_log_threads: int = Field(2_000, ge=0, le=100_000)
    queue_path: Path = Path("data/queue.sqlite3")
    workers: int = Field(100, ge=1, le=1000)
    queue_lease: float = Field(15.0, ge=1, le=600)
    dedupe_ttl: float = Field(900.0, ge=60, le=86_400)
    shutdown_grace: float = Field(20.0, ge=0, le=600)
    redis_url: SecretStr | None = None  # may hold a password
    # Budgets per period (0: no limit), counted in the store (app/work/budget.py)
    budget_period: Literal["hour", "day", "week"] = "day"
    budget_user_messages: int = Field(0, ge=0, le=1_000_000)
    budget_user_tokens: int = Field(0, ge=0, le=10_000_000_000)
    budget_channel_messages: int = Field(0, ge=0, le=1_000_000)
    budget_channel_tokens: int = Field(0, ge=0, le=10_000_000_000)

    langfuse_public_key: str | None = None
    langfuse_secret_key: SecretStr | None = None
    langfuse_base_url: str = "https://cloud.langfuse.com"
    langfuse_environment: str = Field("production", pattern=r"^[a-z0-9_-]{1,40}$")
    langfuse_timeout: int = Field(5, ge=1, le=60)
    langfuse_flush_timeout: float = Field(5.0, gt=0, le=60)
    telemetry_salt: SecretStr | None = None

    knowledge_dir: DirectoryPath | None = None
    knowledge_index: Path = Path("data/knowledge.sqlite3")
    knowledge_base_url: str | None = Field(None, pattern=r"^https?://[^\s]+$")
    knowledge_top_k: int = Field(5, ge=1, le=20)
    knowledge_min_relevance: float = Field(0.35, ge=0, le=1)
    knowledge_max_file_bytes: int = Field(1_000_000, ge=1_000, le=50_000_000)

    @field_validator(
        "anthropic_api_key",
        "anthropic_bedrock_base_url",
        "cloud_ml_region",
        "anthropic_vertex_project_id",
        "anthropic_vertex_base_url",
        "slack_bot_token",
        "slack_app_token",
        "slack_signing_secret",
        "langfuse_public_key",
        "langfuse_secret_key",
        "telemetry_salt",
        "knowledge_dir",
        "knowledge_base_url",
        "redis_url",
        "escalation_group",
        "channels_file",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @property
    def needs_api_key(self) -> bool:
        """Whether the model is asked without its key: ANTHROPIC_API_KEY is unset on
        Anthropic's API (Bedrock and Vertex AI authenticate with their clouds' own)."""
        return self.anthropic_provider == "anthropic" and self.anthropic_api_key is None

    @model_validator(mode="after")
    def _vertex_has_a_place(self) -> Settings:
        """Vertex serves Claude per project and region; the SDK has no default region, and
        builds the request's path before it reads the credentials' project: a missing one
        would fail every message, so it stops start-up instead."""
        if self.anthropic_provider == "vertex":
            for name in ("cloud_ml_region", "anthropic_vertex_project_id"):
                if getattr(self, name) is None:
                    raise ValueError(
                        f"{name.upper()} is required when ANTHROPIC_PROVIDER is vertex"
                    )
        return self

    @field_validator("knowledge_base_url")
    @classmethod
    def _a_folder_url(cls, value: str | None) -> str | None:
        """Paths are joined onto it: without a final "/" its last segment would be lost."""
        return value if value is None or value.endswith("/") else value + "/"

    @field_validator("redis_url")
    @classmethod
    def _a_redis_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(
            ("redis://", "rediss://", "unix://")
        ):
            raise ValueError("must be a redis://, rediss:// or unix:// URL")
        return value

    @field_validator("langfuse_environment")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        if value.startswith("langfuse"):
            raise ValueError("must not start with 'langfuse' (reserved by Langfuse)")
        return value

    @field_validator("files_types", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        """FILES_TYPES is written as a comma list: `image,pdf,text` (empty: none)."""
        if isinstance(value, str):
            return frozenset(kind.strip().lower() for kind in value.split(",") if kind.strip())
        return value

    @field_validator("admin_users", mode="before")
    @classmethod
    def _user_ids(cls, value: Any) -> Any:
        """ADMIN_USERS is a comma list of Slack user ids (U… or W…), not names: a name
        would never match the user an event names, and the admin would see nothing."""
        if isinstance(value, str):
            value = frozenset(user.strip() for user in value.split(",") if user.strip())
        if any(not _USER_ID.fullmatch(str(user)) for user in value):
            raise ValueError("must be a comma list of Slack user ids such as U012AB3CD")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


def load_settings(**overrides: Any) -> Settings:
    """Read the settings; `overrides` (field names) win over the environment."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise SettingsError(_describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    problems = [
        f"{name.upper()}: {message}" if name else message for name, message in invalid_fields(exc)
    ]
    return "Invalid settings: " + "; ".join(problems)
