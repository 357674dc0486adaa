"""The provider registry: data, not if-chains.

Each :class:`ProviderSpec` says how to reach one provider through LiteLLM: which model prefix
LiteLLM wants, how to recognise the provider from a model name, an API key or an API base,
where its key usually lives in the environment, and per-model parameter overrides. Order
matters: keyword matching walks the registry from top to bottom.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ProviderSpec:
    """How to talk to one provider.

    Attributes:
        name: Registry name; also the ``providers.<name>`` config section (snake_case).
        display_name: Name shown to people.
        keywords: Lower-case fragments of model names served by this provider.
        env_key: The provider's standard environment variable for its key.
        litellm_prefix: Prefix LiteLLM needs (``"deepseek"`` → ``deepseek/deepseek-chat``).
        skip_prefixes: Model prefixes that already route correctly; no prefix is added.
        strip_model_prefix: Drop any ``vendor/`` part of the model before adding our prefix
            (gateways that take bare model names).
        is_gateway: Serves models of many vendors (OpenRouter, AiHubMix, ...).
        is_local: A server on the user's machine or network; no key needed.
        key_prefix: API keys starting with this identify the provider (``sk-or-``).
        base_keyword: An API base containing this identifies the provider.
        default_api_base: Used when the config gives none.
        model_overrides: ``(model keyword, {param: value})`` pairs applied to matching models.
        supports_prompt_caching: Accepts ``cache_control`` blocks.
        supports_model_listing: Has an OpenAI-style ``GET /models``.
        needs_key: A request without a key is pointless.
        oauth: Signed in to with an OAuth flow (``provider login``) instead of an API key; the
            tokens live in the keyring entry of ``name`` (see :mod:`desktop.core.providers.oauth`).
    """

    name: str
    display_name: str
    keywords: tuple[str, ...] = ()
    env_key: str = ""
    litellm_prefix: str = ""
    skip_prefixes: tuple[str, ...] = ()
    strip_model_prefix: bool = False
    is_gateway: bool = False
    is_local: bool = False
    key_prefix: str = ""
    base_keyword: str = ""
    default_api_base: str = ""
    model_overrides: tuple[tuple[str, dict[str, Any]], ...] = field(default=())
    supports_prompt_caching: bool = False
    supports_model_listing: bool = True
    needs_key: bool = True
    oauth: bool = False


PROVIDERS: tuple[ProviderSpec, ...] = (
    # Custom first: with provider "custom" (or as last resort) any OpenAI-compatible apiBase.
    ProviderSpec(
        name="custom",
        display_name="Custom (OpenAI-compatible)",
        litellm_prefix="openai",
        strip_model_prefix=False,
        skip_prefixes=("openai/",),
        needs_key=False,
    ),
    # Gateways: detected by key prefix or API base; they route any vendor's models.
    ProviderSpec(
        name="openrouter",
        display_name="OpenRouter",
        keywords=("openrouter",),
        env_key="OPENROUTER_API_KEY",
        litellm_prefix="openrouter",
        skip_prefixes=("openrouter/",),
        is_gateway=True,
        key_prefix="sk-or-",
        base_keyword="openrouter",
        default_api_base="https://openrouter.ai/api/v1",
        supports_prompt_caching=True,
    ),
    ProviderSpec(
        name="aihubmix",
        display_name="AiHubMix",
        keywords=("aihubmix",),
        env_key="AIHUBMIX_API_KEY",
        litellm_prefix="openai",
        strip_model_prefix=True,
        is_gateway=True,
        base_keyword="aihubmix",
        default_api_base="https://aihubmix.com/v1",
    ),
    ProviderSpec(
        name="siliconflow",
        display_name="SiliconFlow",
        keywords=("siliconflow",),
        env_key="SILICONFLOW_API_KEY",
        litellm_prefix="openai",
        is_gateway=True,
        base_keyword="siliconflow",
        default_api_base="https://api.siliconflow.cn/v1",
    ),
    ProviderSpec(
        name="volcengine",
        display_name="VolcEngine",
        keywords=("volcengine", "doubao"),
        env_key="VOLCENGINE_API_KEY",
        litellm_prefix="volcengine",
        skip_prefixes=("volcengine/",),
        is_gateway=True,
        base_keyword="volces",
        default_api_base="https://ark.cn-beijing.volces.com/api/v3",
    ),
    # Signed in with OAuth (no API key): before OpenAI, whose keywords match their model names.
    ProviderSpec(
        name="openai_codex",
        display_name="ChatGPT (Codex)",
        keywords=("openai-codex", "openai_codex"),
        strip_model_prefix=True,  # our own client: bare model names (gpt-5.1-codex)
        default_api_base="https://chatgpt.com/backend-api/codex",
        supports_model_listing=False,
        oauth=True,
    ),
    ProviderSpec(
        name="github_copilot",
        display_name="GitHub Copilot",
        keywords=("github-copilot", "github_copilot", "copilot"),
        litellm_prefix="openai",  # an OpenAI-compatible chat API, token passed per call
        strip_model_prefix=True,
        supports_model_listing=False,
        oauth=True,
    ),
    # Vendors: matched by keywords in the model name.
    ProviderSpec(
        name="anthropic",
        display_name="Anthropic",
        keywords=("anthropic", "claude"),
        env_key="ANTHROPIC_API_KEY",
        # Always routed explicitly: a model LiteLLM's table does not list (a retired or
        # brand-new name) must still go to Anthropic, not fail with "provider not provided".
        litellm_prefix="anthropic",
        skip_prefixes=("anthropic/",),
        key_prefix="sk-ant-",
        supports_prompt_caching=True,
    ),
    ProviderSpec(
        name="openai",
        display_name="OpenAI",
        keywords=("openai", "gpt", "o1", "o3", "o4"),
        env_key="OPENAI_API_KEY",
        litellm_prefix="openai",  # explicit, as for Anthropic
        skip_prefixes=("openai/",),
        model_overrides=(
            ("gpt-5", {"temperature": 1.0}),
            ("o1", {"temperature": 1.0}),
            ("o3", {"temperature": 1.0}),
            ("o4", {"temperature": 1.0}),
        ),
    ),
    ProviderSpec(
        name="deepseek",
        display_name="DeepSeek",
        keywords=("deepseek",),
        env_key="DEEPSEEK_API_KEY",
        litellm_prefix="deepseek",
        skip_prefixes=("deepseek/",),
        base_keyword="deepseek",
    ),
    ProviderSpec(
        name="gemini",
        display_name="Google Gemini",
        keywords=("gemini",),
        env_key="GEMINI_API_KEY",
        litellm_prefix="gemini",
        skip_prefixes=("gemini/",),
        key_prefix="AIza",
        supports_model_listing=False,
    ),
    ProviderSpec(
        name="groq",
        display_name="Groq",
        keywords=("groq",),
        env_key="GROQ_API_KEY",
        litellm_prefix="groq",
        skip_prefixes=("groq/",),
        key_prefix="gsk_",
        base_keyword="groq",
    ),
    ProviderSpec(
        name="moonshot",
        display_name="Moonshot (Kimi)",
        keywords=("moonshot", "kimi"),
        env_key="MOONSHOT_API_KEY",
        litellm_prefix="moonshot",
        skip_prefixes=("moonshot/",),
        base_keyword="moonshot",
        default_api_base="https://api.moonshot.ai/v1",
        model_overrides=(("kimi-k2.5", {"temperature": 1.0}),),
    ),
    ProviderSpec(
        name="minimax",
        display_name="MiniMax",
        keywords=("minimax",),
        env_key="MINIMAX_API_KEY",
        litellm_prefix="openai",
        base_keyword="minimax",
        default_api_base="https://api.minimax.io/v1",
    ),
    ProviderSpec(
        name="zhipu",
        display_name="Zhipu AI (GLM)",
        keywords=("zhipu", "glm", "zai"),
        env_key="ZHIPUAI_API_KEY",
        litellm_prefix="zai",
        skip_prefixes=("zai/", "zhipu/"),
        base_keyword="bigmodel",
    ),
    ProviderSpec(
        name="dashscope",
        display_name="DashScope (Qwen)",
        keywords=("qwen", "dashscope"),
        env_key="DASHSCOPE_API_KEY",
        litellm_prefix="dashscope",
        skip_prefixes=("dashscope/",),
        base_keyword="dashscope",
    ),
    ProviderSpec(
        name="mistral",
        display_name="Mistral",
        keywords=("mistral", "codestral", "magistral"),
        env_key="MISTRAL_API_KEY",
        litellm_prefix="mistral",
        skip_prefixes=("mistral/",),
        base_keyword="mistral.ai",
    ),
    # Local servers: no key, a default apiBase on this machine.
    ProviderSpec(
        name="vllm",
        display_name="vLLM",
        keywords=("vllm",),
        litellm_prefix="hosted_vllm",
        skip_prefixes=("hosted_vllm/",),
        is_local=True,
        needs_key=False,
        default_api_base="http://localhost:8000/v1",
    ),
    ProviderSpec(
        name="ollama",
        display_name="Ollama",
        keywords=("ollama",),
        litellm_prefix="ollama_chat",
        skip_prefixes=("ollama/", "ollama_chat/"),
        is_local=True,
        needs_key=False,
        base_keyword="11434",
        default_api_base="http://localhost:11434",
        supports_model_listing=False,
    ),
    ProviderSpec(
        name="lm_studio",
        display_name="LM Studio",
        keywords=("lm_studio", "lmstudio"),
        litellm_prefix="lm_studio",
        skip_prefixes=("lm_studio/",),
        is_local=True,
        needs_key=False,
        base_keyword="1234",
        default_api_base="http://localhost:1234/v1",
    ),
)

_BY_NAME = {spec.name: spec for spec in PROVIDERS}


def find_by_name(name: str) -> ProviderSpec | None:
    """Look a spec up by registry name (``-`` and ``_`` are interchangeable)."""
    return _BY_NAME.get(name.replace("-", "_").lower())


def canonical_name(name: str) -> str | None:
    """The registry name for ``name`` in any accepted spelling (``openai-codex``,
    ``openai_codex``, ``OpenAI-Codex``), or ``None`` when unknown."""
    spec = find_by_name(name.strip())
    return spec.name if spec else None


def provider_names() -> list[str]:
    """Registry names in registry order."""
    return [spec.name for spec in PROVIDERS]
