"""Model → provider routing, table-driven."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.config.provider_registry import PROVIDERS, find_by_name
from desktop.core.config.schema import Config
from desktop.core.providers.matching import ProviderNotFound, choose_provider, litellm_model_name
from tests.typed import present

REQUIRED = {
    "anthropic",
    "openai",
    "openrouter",
    "deepseek",
    "gemini",
    "groq",
    "moonshot",
    "minimax",
    "zhipu",
    "dashscope",
    "siliconflow",
    "volcengine",
    "aihubmix",
    "mistral",
    "vllm",
    "ollama",
    "lm_studio",
    "custom",
}


def _config(model: str, provider: str = "auto", **sections: dict[str, Any]) -> Config:
    return Config.model_validate(
        {"agents": {"defaults": {"model": model, "provider": provider}}, "providers": sections}
    )


CASES = [
    # (model, forced provider, providers with a key, config sections, expected spec, expected litellm model)
    (
        "anthropic/claude-opus-4-5",
        "auto",
        {"anthropic"},
        {},
        "anthropic",
        "anthropic/claude-opus-4-5",
    ),
    ("claude-sonnet-4", "auto", {"anthropic"}, {}, "anthropic", "anthropic/claude-sonnet-4"),
    ("gpt-4o-mini", "auto", {"openai"}, {}, "openai", "openai/gpt-4o-mini"),
    ("deepseek-chat", "auto", {"deepseek"}, {}, "deepseek", "deepseek/deepseek-chat"),
    ("deepseek/deepseek-chat", "auto", {"deepseek"}, {}, "deepseek", "deepseek/deepseek-chat"),
    ("gemini-2.5-pro", "auto", {"gemini"}, {}, "gemini", "openai/gemini-2.5-pro"),
    ("qwen-max", "auto", {"dashscope"}, {}, "dashscope", "dashscope/qwen-max"),
    ("glm-4.6", "auto", {"zhipu"}, {}, "zhipu", "zai/glm-4.6"),
    ("kimi-k2", "auto", {"moonshot"}, {}, "moonshot", "moonshot/kimi-k2"),
    ("mistral-large-latest", "auto", {"mistral"}, {}, "mistral", "mistral/mistral-large-latest"),
    ("groq/llama-3.3-70b", "auto", {"groq"}, {}, "groq", "groq/llama-3.3-70b"),
    # Explicit prefix wins over keyword (claude in the name, but openrouter prefix).
    (
        "openrouter/anthropic/claude-3.5-sonnet",
        "auto",
        {"openrouter", "anthropic"},
        {},
        "openrouter",
        "openrouter/anthropic/claude-3.5-sonnet",
    ),
    # Keyword without a key falls through to the first gateway with a key.
    ("claude-opus-4-5", "auto", {"openrouter"}, {}, "openrouter", "openrouter/claude-opus-4-5"),
    ("anthropic/claude-opus-4-5", "auto", {"aihubmix"}, {}, "aihubmix", "openai/claude-opus-4-5"),
    # Forced provider.
    (
        "any-name",
        "custom",
        set(),
        {"custom": {"apiBase": "http://127.0.0.1:9/v1"}},
        "custom",
        "openai/any-name",
    ),
    ("llama3", "ollama", set(), {}, "ollama", "openai/llama3"),
    ("ollama/llama3", "auto", set(), {}, "ollama", "openai/llama3"),
    (
        "vllm/qwen",
        "auto",
        set(),
        {"vllm": {"apiBase": "http://gpu:8000/v1"}},
        "vllm",
        "hosted_vllm/qwen",
    ),
    ("local-model", "lm_studio", set(), {}, "lm_studio", "lm_studio/local-model"),
    # Gateway detected from the key prefix or apiBase of another section.
    (
        "gpt-4o",
        "auto",
        {"openai"},
        {"openai": {"apiBase": "https://openrouter.ai/api/v1"}},
        "openrouter",
        "openrouter/gpt-4o",
    ),
    # Nothing with a key, but custom has an apiBase.
    (
        "some-model",
        "auto",
        set(),
        {"custom": {"apiBase": "http://localhost:8080/v1"}},
        "custom",
        "openai/some-model",
    ),
    # Keyword with no key anywhere: the matching provider is still named (so the error can say which key).
    ("claude-opus-4-5", "auto", set(), {}, "anthropic", "anthropic/claude-opus-4-5"),
    # nanobot 0.3.5's other providers. Azure and Bedrock: chosen by their prefix without a key
    # (the deployment / the AWS credentials); Bedrock's model ids by keyword once configured.
    ("azure/my-deployment", "auto", set(), {}, "azure_openai", "azure/my-deployment"),
    (
        "bedrock/amazon.nova-pro-v1:0",
        "auto",
        set(),
        {},
        "bedrock",
        "bedrock/converse/amazon.nova-pro-v1:0",
    ),
    (
        "anthropic.claude-3-5-sonnet",
        "auto",
        {"anthropic"},
        {"bedrock": {"region": "us-east-1"}},
        "bedrock",
        "bedrock/converse/anthropic.claude-3-5-sonnet",
    ),
    # More specific sections first: the Coding Plans before their plain providers.
    (
        "kimi-for-coding",
        "auto",
        {"moonshot", "kimi_coding"},
        {},
        "kimi_coding",
        "anthropic/kimi-for-coding",
    ),
    (
        "opencode-go/kimi-k2",
        "auto",
        {"opencode", "opencode_go"},
        {},
        "opencode_go",
        "openai/kimi-k2",
    ),
    ("opencode/qwen3-coder", "auto", {"opencode"}, {}, "opencode", "openai/qwen3-coder"),
    # NVIDIA's model ids start with "nvidia/": the prefix chooses it and is kept.
    (
        "nvidia/llama-3.3-nemotron-super-49b-v1",
        "auto",
        {"nvidia"},
        {},
        "nvidia",
        "openai/nvidia/llama-3.3-nemotron-super-49b-v1",
    ),
    ("gemini-2.5-flash", "auto", {"gemini"}, {}, "gemini", "openai/gemini-2.5-flash"),
    ("xai-grok/grok-4.6", "auto", {"openai"}, {}, "xai_grok", "grok-4.6"),
    ("step-3", "auto", {"stepfun"}, {}, "stepfun", "openai/step-3"),
]


@pytest.mark.parametrize(("model", "forced", "keys", "sections", "spec", "routed"), CASES)
def test_routing(
    model: str, forced: str, keys: set[str], sections: dict[str, Any], spec: str, routed: str
) -> None:
    """Each row: the chosen provider and the model name LiteLLM receives."""
    choice = choose_provider(_config(model, forced, **sections), has_key=lambda n: n in keys)
    assert choice.spec.name == spec
    assert choice.model == routed
    assert choice.reason


def test_key_prefix_detects_openrouter() -> None:
    """An sk-or- key stored for openai routes through OpenRouter."""
    choice = choose_provider(
        _config("gpt-4o"),
        has_key=lambda n: n == "openai",
        key_for=lambda n: "sk-or-v1-abc" if n == "openai" else None,
    )
    assert choice.spec.name == "openrouter" and choice.section == "openai"
    assert choice.api_base == "https://openrouter.ai/api/v1"


def test_unknown_forced_provider_is_a_clear_error() -> None:
    """A typo in agents.defaults.provider lists the valid names."""
    with pytest.raises(ProviderNotFound, match=r"unknown provider 'opnai'.*openai"):
        choose_provider(_config("gpt-4o", "opnai"), has_key=lambda n: True)


def test_nothing_configured() -> None:
    """No key, no apiBase, no keyword: say how to fix it."""
    with pytest.raises(ProviderNotFound, match="keys set"):
        choose_provider(_config("mystery-model"), has_key=lambda n: False)


def test_model_overrides_and_headers() -> None:
    """Per-model overrides and extra headers come with the choice."""
    config = _config("gpt-5-mini", openai={"extraHeaders": {"X-Team": "a"}})
    choice = choose_provider(config, has_key=lambda n: n == "openai")
    assert choice.params == {"temperature": 1.0}
    assert choice.extra_headers == {"X-Team": "a"}


def test_registry_covers_required_providers() -> None:
    """Every provider the product promises is in the registry, with sane data."""
    names = {spec.name for spec in PROVIDERS}
    assert names >= REQUIRED
    assert len(names) == len(PROVIDERS)
    for spec in PROVIDERS:
        assert spec.display_name
        assert spec.needs_key or spec.is_local or spec.direct or spec.name == "custom"
        assert find_by_name(spec.name.replace("_", "-")) is spec
    assert present(find_by_name("openrouter")).key_prefix == "sk-or-"
    assert present(find_by_name("anthropic")).supports_prompt_caching


def test_litellm_name_strips_gateway_vendor_prefix() -> None:
    """Gateways that take bare names drop the vendor part."""
    assert litellm_model_name(find_by_name("aihubmix"), "openai/gpt-4o") == "openai/gpt-4o"  # type: ignore[arg-type]
    assert litellm_model_name(find_by_name("aihubmix"), "anthropic/claude-x") == "openai/claude-x"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("claude-3-5-haiku-20241022", "anthropic"),  # retired: not in LiteLLM's table
        ("claude-future-9", "anthropic"),
        ("gpt-future-9", "openai"),
        ("anthropic/claude-sonnet-4", "anthropic"),
    ],
)
def test_models_litellm_does_not_list_still_route_to_their_provider(
    model: str, provider: str
) -> None:
    """LiteLLM's own routing (its real ``get_llm_provider``) finds the provider for names its
    model table does not know, because we always name the provider."""
    from desktop.core.providers.litellm_provider import import_litellm

    choice = choose_provider(_config(model, "auto"), has_key=lambda n: n == provider)
    _name, routed_provider, *_ = import_litellm().get_llm_provider(choice.model)
    assert choice.spec.name == provider and routed_provider == provider
