"""The config sections about models: ``providers``, ``modelPresets``, fallbacks, ``transcription``.

Names and shapes are nanobot 0.3.5's (camelCase on disk): one ``providers.<name>`` section per
provider of its registry (``azureOpenai``, ``xiaomiMimo``…), ``providers.bedrock.region`` /
``profile``, ``extraBody`` / ``extraQuery``; ``modelPresets`` at the top level (named sets of
model and generation settings); ``agents.defaults.modelPreset`` and ``fallbackModels`` (preset
names or inline ``{model, provider, …}`` entries); the top-level ``transcription`` section.
Every section keeps keys it does not know.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from desktop.core.config.base import Base


class ProviderConfig(Base):
    """Credentials and endpoint of one LLM provider.

    ``api_key`` is read for compatibility (and migrated into the keyring); nanobot Desktop never
    writes a key here. ``extra_query`` carries Azure's ``api-version``; ``extra_body`` is added
    to each request of an OpenAI-compatible provider.
    """

    api_key: str | None = None
    api_base: str | None = None
    extra_headers: dict[str, str] | None = None
    extra_body: dict[str, Any] | None = None
    extra_query: dict[str, str] | None = None


class BedrockProviderConfig(ProviderConfig):
    """AWS Bedrock: where (region) and as whom (a shared-config profile) to call it."""

    region: str | None = Field(
        default=None,
        title="Region",
        description="The AWS region, e.g. us-east-1 (else AWS_REGION or the profile's).",
        json_schema_extra={"placeholder": "e.g. us-east-1"},
    )
    profile: str | None = Field(
        default=None,
        title="Profile",
        description="A profile of ~/.aws/config whose credentials sign the requests.",
        json_schema_extra={"placeholder": "a profile of ~/.aws/config"},
    )


def _provider() -> ProviderConfig:
    return ProviderConfig()


class ProvidersConfig(Base):
    """One section per provider in nanobot 0.3.5's registry; other names are kept as extras."""

    custom: ProviderConfig = Field(default_factory=_provider)
    azure_openai: ProviderConfig = Field(default_factory=_provider)  # model = deployment name
    bedrock: BedrockProviderConfig = Field(default_factory=BedrockProviderConfig)
    anthropic: ProviderConfig = Field(default_factory=_provider)
    openai: ProviderConfig = Field(default_factory=_provider)
    openrouter: ProviderConfig = Field(default_factory=_provider)
    orcarouter: ProviderConfig = Field(default_factory=_provider)
    assemblyai: ProviderConfig = Field(default_factory=_provider)  # voice transcription only
    huggingface: ProviderConfig = Field(default_factory=_provider)
    skywork: ProviderConfig = Field(default_factory=_provider)
    deepseek: ProviderConfig = Field(default_factory=_provider)
    groq: ProviderConfig = Field(default_factory=_provider)
    zhipu: ProviderConfig = Field(default_factory=_provider)
    dashscope: ProviderConfig = Field(default_factory=_provider)
    modelscope: ProviderConfig = Field(default_factory=_provider)
    vllm: ProviderConfig = Field(default_factory=_provider)
    ollama: ProviderConfig = Field(default_factory=_provider)
    lm_studio: ProviderConfig = Field(default_factory=_provider)
    atomic_chat: ProviderConfig = Field(default_factory=_provider)
    ovms: ProviderConfig = Field(default_factory=_provider)
    gemini: ProviderConfig = Field(default_factory=_provider)
    moonshot: ProviderConfig = Field(default_factory=_provider)
    kimi_coding: ProviderConfig = Field(default_factory=_provider)
    minimax: ProviderConfig = Field(default_factory=_provider)
    minimax_anthropic: ProviderConfig = Field(default_factory=_provider)
    mistral: ProviderConfig = Field(default_factory=_provider)
    stepfun: ProviderConfig = Field(default_factory=_provider)
    xiaomi_mimo: ProviderConfig = Field(default_factory=_provider)
    longcat: ProviderConfig = Field(default_factory=_provider)
    ant_ling: ProviderConfig = Field(default_factory=_provider)
    aihubmix: ProviderConfig = Field(default_factory=_provider)
    siliconflow: ProviderConfig = Field(default_factory=_provider)
    edenai: ProviderConfig = Field(default_factory=_provider)
    novita: ProviderConfig = Field(default_factory=_provider)
    volcengine: ProviderConfig = Field(default_factory=_provider)
    volcengine_coding_plan: ProviderConfig = Field(default_factory=_provider)
    byteplus: ProviderConfig = Field(default_factory=_provider)
    byteplus_coding_plan: ProviderConfig = Field(default_factory=_provider)
    openai_codex: ProviderConfig = Field(default_factory=_provider)  # OAuth: no apiKey
    xai_grok: ProviderConfig = Field(default_factory=_provider)  # OAuth: no apiKey
    github_copilot: ProviderConfig = Field(default_factory=_provider)  # OAuth: no apiKey
    qianfan: ProviderConfig = Field(default_factory=_provider)
    nvidia: ProviderConfig = Field(default_factory=_provider)
    opencode: ProviderConfig = Field(default_factory=_provider)
    opencode_zen: ProviderConfig = Field(default_factory=_provider)
    opencode_go: ProviderConfig = Field(default_factory=_provider)


class ModelPresetConfig(Base):
    """A named model with its generation settings (``modelPresets.<name>``), as nanobot keeps
    them. A chat can be switched to one (its session remembers the name)."""

    model: str = ""
    provider: str = "auto"
    max_tokens: int = Field(default=8192, ge=1)
    context_window_tokens: int = Field(default=200_000, ge=1_024)
    temperature: float = Field(default=0.1, ge=0.0, le=2.0)
    reasoning_effort: str | None = None


class InlineFallbackConfig(Base):
    """One ``fallbackModels`` entry written out in place (unset settings: the primary's)."""

    model: str = ""
    provider: str = "auto"
    max_tokens: int | None = Field(default=None, ge=1)
    context_window_tokens: int | None = Field(default=None, ge=1_024)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    reasoning_effort: str | None = None


FallbackCandidate = str | InlineFallbackConfig
"""A ``fallbackModels`` entry: the name of a model preset, or a model written out in place."""


class TranscriptionConfig(Base):
    """Voice messages to text (the top-level ``transcription`` section)."""

    enabled: bool = True
    provider: str | None = None  # groq, openai, openrouter, assemblyai, … (default: groq)
    model: str | None = None
    language: str | None = Field(default=None, pattern=r"^[a-z]{2,3}$")
    max_duration_sec: int = Field(default=120, ge=1, le=600)
    max_upload_mb: int = Field(default=25, ge=1, le=100)
