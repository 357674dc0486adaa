"""Pydantic v2 schema of nanobot's ``config.json``.

camelCase on disk, snake_case accepted on load. Every model keeps keys it does not know
(``extra="allow"``) so a config written by a newer nanobot survives a load/save round trip.

Compatibility rules learned from nanobot-ai 0.3.5: it rejects unknown *top-level* keys, and
drops unknown nested ones whenever it saves the file. Settings that only nanobot Desktop uses
are still declared here, inside existing sections (e.g. ``agents.defaults.requestTimeoutS``),
but they are stored in ``desktop.json`` (:mod:`desktop.core.config.product` lists them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, PrivateAttr, field_validator
from pydantic.alias_generators import to_camel

from desktop.core.config.base import Base, ChannelBase
from desktop.core.config.channels.dingtalk import DingTalkConfig
from desktop.core.config.channels.discord import DiscordConfig
from desktop.core.config.channels.email import EmailConfig
from desktop.core.config.channels.feishu import FeishuConfig
from desktop.core.config.channels.matrix import MatrixConfig
from desktop.core.config.channels.mattermost import MattermostConfig
from desktop.core.config.channels.mochat import MochatConfig
from desktop.core.config.channels.msteams import MSTeamsConfig
from desktop.core.config.channels.napcat import NapcatConfig
from desktop.core.config.channels.qq import QQConfig
from desktop.core.config.channels.signal import SignalConfig
from desktop.core.config.channels.slack import SlackConfig
from desktop.core.config.channels.telegram import TelegramConfig
from desktop.core.config.channels.websocket import WebSocketConfig
from desktop.core.config.channels.wecom import WecomConfig
from desktop.core.config.channels.weixin import WeixinConfig
from desktop.core.config.channels.whatsapp import WhatsAppConfig
from desktop.core.config.provider_schema import (
    BedrockProviderConfig,
    FallbackCandidate,
    InlineFallbackConfig,
    ModelPresetConfig,
    ProviderConfig,
    ProvidersConfig,
    TranscriptionConfig,
)
from desktop.core.config.timezone import is_valid_timezone, system_timezone
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

__all__ = [
    "Base",
    "BedrockProviderConfig",
    "ChannelBase",
    "Config",
    "FallbackCandidate",
    "InlineFallbackConfig",
    "ModelPresetConfig",
    "ProviderConfig",
    "ProvidersConfig",
    "TranscriptionConfig",
]


class DreamConfig(Base):
    """Dream: periodic distillation of history into long-term memory."""

    enabled: bool = Field(default=True, title="Run Dream periodically")
    interval_h: int = Field(
        default=2,
        ge=1,
        title="Run every",
        description="Hours between two Dream runs.",
        json_schema_extra={"maximum": 24 * 30, "unit": "h"},
    )
    max_batch_size: int = Field(
        default=20,
        ge=1,
        title="History entries per run",
        description="How many history entries one Dream run distils.",
        json_schema_extra={"maximum": 1000, "unit": "entries"},
    )
    max_iterations: int = Field(
        default=10,
        ge=1,
        title="Edit iterations per run",
        description="Model calls Dream may make to edit the memory files in one run.",
        json_schema_extra={"maximum": 200},
    )
    token_budget: int = Field(
        default=60_000,
        ge=1_000,
        title="Token budget per run",
        description="Tokens (prompt and answer) one run may spend editing; it stops cleanly there.",
        json_schema_extra={"maximum": 10_000_000, "step": 1000, "unit": "tokens"},
    )
    model_override: str | None = None


class AgentDefaults(Base):
    """Defaults for every agent run."""

    workspace: str = Field(
        default="~/.nanobot/workspace",
        title="Workspace",
        description="Where sessions, memory, skills and reminders live.",
    )
    model: str = "anthropic/claude-opus-4-5"
    provider: str = "auto"
    max_tokens: int = Field(
        default=8192,
        ge=1,
        title="Max tokens per answer",
        description="The longest answer the model may write in one call.",
        json_schema_extra={"maximum": 1_000_000, "step": 256, "unit": "tokens"},
    )
    context_window_tokens: int = Field(
        default=65_536,
        ge=1_024,
        title="Context window",
        description=(
            "How much of the conversation the model sees; older turns are archived into "
            "memory when it fills."
        ),
        json_schema_extra={"maximum": 10_000_000, "step": 1024, "unit": "tokens"},
    )
    temperature: float = Field(
        default=0.1,
        ge=0.0,
        le=2.0,
        title="Temperature",
        description="Higher is more varied, lower more predictable.",
        json_schema_extra={"step": 0.05, "decimals": 2},
    )
    max_tool_iterations: int = Field(
        default=200,
        ge=1,
        title="Max tool iterations",
        description="Tool calls one turn may make before it stops.",
        json_schema_extra={"maximum": 100_000},
    )
    max_tool_result_chars: int = Field(default=16_000, ge=100)
    max_concurrent_subagents: int = Field(default=4, ge=1)
    reasoning_effort: str | None = None
    model_preset: str | None = None  # a name in modelPresets: it stands in for the fields above
    fallback_models: list[FallbackCandidate] = Field(default_factory=list)
    timezone: str | None = Field(
        default=None,
        title="Timezone",
        description="An IANA name such as Europe/Berlin; empty means the system's.",
    )
    unified_session: bool = Field(
        default=False,
        title="One conversation for every chat network",
        description="Messages from Telegram, Slack, e-mail … all continue one session.",
    )
    idle_compact_after_minutes: int = Field(
        default=15,
        ge=0,
        # nanobot 0.3.5 reads the older name too and writes this one
        validation_alias=AliasChoices(
            "idleCompactAfterMinutes",
            "idle_compact_after_minutes",
            "sessionTtlMinutes",
            "session_ttl_minutes",
        ),
        title="Compact idle chats after",
        description="A chat idle this long is summarised, so its next turn costs less (0: never).",
        json_schema_extra={"maximum": 60 * 24 * 30, "unit": "min"},
    )
    idle_compact_check_interval_seconds: int = Field(default=60, ge=0)
    request_timeout_s: float = Field(default=120.0, gt=0)
    stream_idle_timeout_s: float = Field(default=60.0, gt=0)
    dream: DreamConfig = Field(default_factory=DreamConfig)

    @field_validator("timezone")
    @classmethod
    def _check_timezone(cls, value: str | None) -> str | None:
        if value and not is_valid_timezone(value):
            hint = QT_TR_NOOP("unknown timezone {name} (use an IANA name like 'Europe/Berlin')")
            raise ValueError(Phrase(hint, name=repr(value)))
        return value or None

    @property
    def effective_timezone(self) -> str:
        """The configured timezone, or the system zone when unset."""
        return self.timezone or system_timezone()


class AgentsConfig(Base):
    """The ``agents`` section."""

    defaults: AgentDefaults = Field(default_factory=AgentDefaults)


class ChannelsConfig(Base):
    """The ``channels`` section: global flags plus one section per channel."""

    send_progress: bool = True
    send_tool_hints: bool = False
    max_inbound_kb: int = Field(
        default=256,
        ge=1,
        title="Longest message read",
        description=(
            "A message longer than this (in UTF-8) is answered with a note to send it as a "
            "file, and never reaches the model or the chat's history."
        ),
        json_schema_extra={"maximum": 100 * 1024, "unit": "KB"},
    )
    telegram: TelegramConfig = Field(default_factory=TelegramConfig)
    discord: DiscordConfig = Field(default_factory=DiscordConfig)
    slack: SlackConfig = Field(default_factory=SlackConfig)
    feishu: FeishuConfig = Field(default_factory=FeishuConfig)
    dingtalk: DingTalkConfig = Field(default_factory=DingTalkConfig)
    email: EmailConfig = Field(default_factory=EmailConfig)
    matrix: MatrixConfig = Field(default_factory=MatrixConfig)
    qq: QQConfig = Field(default_factory=QQConfig)
    whatsapp: WhatsAppConfig = Field(default_factory=WhatsAppConfig)
    mochat: MochatConfig = Field(default_factory=MochatConfig)
    websocket: WebSocketConfig = Field(default_factory=WebSocketConfig)
    signal: SignalConfig = Field(default_factory=SignalConfig)
    napcat: NapcatConfig = Field(default_factory=NapcatConfig)
    mattermost: MattermostConfig = Field(default_factory=MattermostConfig)
    msteams: MSTeamsConfig = Field(default_factory=MSTeamsConfig)
    wecom: WecomConfig = Field(default_factory=WecomConfig)
    weixin: WeixinConfig = Field(default_factory=WeixinConfig)


class HeartbeatConfig(Base):
    """Periodic HEARTBEAT.md check."""

    enabled: bool = Field(default=True, title="Check HEARTBEAT.md periodically")
    interval_s: int = Field(
        default=1800,
        ge=60,
        title="Check every",
        description="Seconds between two looks at HEARTBEAT.md.",
        json_schema_extra={"maximum": 7 * 86_400, "step": 60, "unit": "s"},
    )


class GatewayConfig(Base):
    """The headless gateway."""

    host: str = "127.0.0.1"
    port: int = 18790
    heartbeat: HeartbeatConfig = Field(default_factory=HeartbeatConfig)


class ApiConfig(Base):
    """``nanobot-desktop serve``: the OpenAI-compatible API (nanobot 0.3.5's ``api`` section).

    ``apiKey`` is the bearer token clients send. nanobot Desktop keeps it in the OS keyring
    (``serve token`` makes one); a value or ``${VAR}`` reference in the file works too.
    """

    host: str = "127.0.0.1"
    port: int = Field(default=8900, ge=0, le=65535)
    timeout: float = Field(default=120.0, gt=0)
    api_key: str = Field(default="", repr=False)


class WebSearchConfig(Base):
    """Web search: keyless DuckDuckGo by default, Brave when a key is set."""

    provider: str = Field(default="duckduckgo", title="Provider")
    api_key: str = ""
    max_results: int = Field(default=5, ge=1, le=20, title="Results per search")


class WebToolsConfig(Base):
    """Web tools."""

    proxy: str | None = None
    search: WebSearchConfig = Field(default_factory=WebSearchConfig)


class ExecToolConfig(Base):
    """The shell ``exec`` tool.

    ``sandbox``, ``sandboxRoBinds`` and ``sandboxRwBinds`` are nanobot's keys. nanobot reads
    ``""`` as "no sandbox"; nanobot Desktop reads it as "sandbox when bubblewrap works, warn
    otherwise". ``"bwrap"`` (or any other backend name) requires a sandbox: commands are
    refused without one. ``"none"`` turns it off (nanobot itself does not know that value).
    ``sandboxNetwork`` is Desktop's own: ``false`` cuts sandboxed commands off the network.
    """

    timeout: int = Field(
        default=60,
        ge=1,
        le=600,
        title="Exec timeout",
        description="Seconds a command may run before it is stopped.",
        json_schema_extra={"unit": "s"},
    )
    path_append: str = ""
    sandbox: str = ""
    sandbox_ro_binds: list[str] = Field(default_factory=list)
    sandbox_rw_binds: list[str] = Field(default_factory=list)
    sandbox_network: bool = Field(default=True, title="Let sandboxed commands use the network")
    allowed_env_keys: list[str] = Field(default_factory=list)
    allow_patterns: list[str] = Field(
        default_factory=list,
        title="Allow patterns",
        description="Regular expressions (one per line); a command must match one when set.",
    )
    deny_patterns: list[str] = Field(
        default_factory=list,
        title="Deny patterns",
        description="Regular expressions (one per line); a matching command is refused.",
    )


class MCPServerConfig(Base):
    """One MCP server, in the Claude-Desktop-compatible shape."""

    type: Literal["stdio", "sse", "streamableHttp"] | None = None
    auth: Literal["oauth"] | None = None  # OAuth sign-in (HTTP/SSE); tokens in the keyring
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    tool_timeout: int = Field(default=30, ge=1)
    enabled_tools: list[str] = Field(default_factory=lambda: ["*"])


class MyToolConfig(Base):
    """The ``my`` tool (nanobot 0.3.5's ``tools.my``): the agent's look at its own settings."""

    enable: bool = Field(default=True, title="Let the agent check its own settings")
    allow_set: bool = Field(
        default=False,
        title="Let the agent change its own settings",
        description="Each change still asks for approval (unless the approval mode is autonomous).",
    )


class ImageGenerationToolConfig(Base):
    """Image generation (nanobot 0.3.5's ``tools.imageGeneration``), through LiteLLM."""

    enabled: bool = False
    provider: str = "openrouter"
    model: str = "openai/gpt-5.4-image-2"
    default_aspect_ratio: str = "1:1"
    default_image_size: str = "1K"
    max_images_per_turn: int = Field(default=4, ge=1, le=8)
    save_dir: str = "generated"


class ToolsConfig(Base):
    """The ``tools`` section."""

    web: WebToolsConfig = Field(default_factory=WebToolsConfig)
    exec: ExecToolConfig = Field(default_factory=ExecToolConfig)
    my: MyToolConfig = Field(default_factory=MyToolConfig)
    image_generation: ImageGenerationToolConfig = Field(default_factory=ImageGenerationToolConfig)
    max_session_messages_per_minute: int = Field(default=6, ge=1)
    restrict_to_workspace: bool = Field(
        default=False, title="Restrict file and command tools to the workspace"
    )
    mcp_servers: dict[str, MCPServerConfig] = Field(default_factory=dict)


class Config(Base):
    """Root of ``config.json``."""

    agents: AgentsConfig = Field(default_factory=AgentsConfig)
    channels: ChannelsConfig = Field(default_factory=ChannelsConfig)
    providers: ProvidersConfig = Field(default_factory=ProvidersConfig)
    gateway: GatewayConfig = Field(default_factory=GatewayConfig)
    api: ApiConfig = Field(default_factory=ApiConfig)
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    transcription: TranscriptionConfig = Field(default_factory=TranscriptionConfig)
    model_presets: dict[str, ModelPresetConfig] = Field(default_factory=dict)

    _origin: Any = PrivateAttr(default=None)

    @property
    def workspace_path(self) -> Path:
        """The workspace folder with ``~`` expanded."""
        return Path(self.agents.defaults.workspace).expanduser()

    def provider_config(self, name: str) -> ProviderConfig | None:
        """Return the section of provider ``name`` (registry name, snake_case), if any."""
        section = getattr(self.providers, name, None)
        if isinstance(section, ProviderConfig):
            return section
        extra = (self.providers.model_extra or {}).get(to_camel(name)) or (
            self.providers.model_extra or {}
        ).get(name)
        if isinstance(extra, dict):
            return ProviderConfig.model_validate(extra)
        return None
