"""The provider registry: data, not if-chains.

Each :class:`ProviderSpec` says how to reach one provider through LiteLLM: which model prefix
LiteLLM wants, how to recognise the provider from a model name, an API key or an API base,
where its key usually lives in the environment, and per-model parameter overrides. Order
matters: keyword matching walks the registry from top to bottom.
"""

from __future__ import annotations

from typing import Any

from pydantic.alias_generators import to_snake

from desktop.core.config.provider_spec import ProviderSpec
from desktop.core.utils.i18n import QT_TR_NOOP

__all__ = [
    "PROVIDERS",
    "ProviderSpec",
    "canonical_name",
    "find_by_model_prefix",
    "find_by_name",
    "provider_names",
]


_V1 = "/v1"  # nanobot's API bases for Anthropic-style servers end here; LiteLLM adds /v1/…


def _compatible(
    name: str,
    display_name: str,
    default_api_base: str,
    *keywords: str,
    env_key: str = "",
    **extra: Any,
) -> ProviderSpec:
    """A provider reached through its OpenAI-compatible chat API (LiteLLM's ``openai`` route)."""
    return ProviderSpec(
        name=name,
        display_name=display_name,
        keywords=keywords,
        env_key=env_key,
        litellm_prefix="openai",
        default_api_base=default_api_base,
        **extra,
    )


PROVIDERS: tuple[ProviderSpec, ...] = (
    # Custom first: with provider "custom" (or as last resort) any OpenAI-compatible apiBase.
    ProviderSpec(
        name="custom",
        display_name=QT_TR_NOOP("Custom (OpenAI-compatible)"),
        litellm_prefix="openai",
        strip_model_prefix=False,
        skip_prefixes=("openai/",),
        needs_key=False,
    ),
    # Cloud platforms with credentials of their own shape: chosen by a model prefix without a
    # key (the deployment, region or profile in their config section says where).
    ProviderSpec(
        name="azure_openai",
        display_name="Azure OpenAI",
        keywords=("azure", "azure-openai"),
        env_key="AZURE_OPENAI_API_KEY",
        litellm_prefix="azure",  # the model is the deployment name
        skip_prefixes=("azure/",),
        model_prefixes=("azure",),
        litellm_options=(("api_version", "2024-10-21"),),
        supports_model_listing=False,
        direct=True,
    ),
    ProviderSpec(
        name="bedrock",
        display_name="AWS Bedrock",
        keywords=(
            "bedrock",
            "anthropic.claude",
            "amazon.nova",
            "meta.",
            "mistral.",
            "cohere.",
            "qwen.",
            "deepseek.",
            "openai.gpt-oss",
            "ai21.",
            "moonshot.",
            "writer.",
            "zai.",
        ),
        # An Amazon Bedrock API key (a bearer token); without one the AWS credentials of the
        # environment or of the section's ``profile`` sign each request (SigV4).
        env_key="AWS_BEARER_TOKEN_BEDROCK",
        litellm_prefix="bedrock/converse",  # the Converse API, as nanobot uses
        skip_prefixes=("bedrock/converse/", "bedrock/invoke/"),
        supports_model_listing=False,
        needs_key=False,
        direct=True,
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
    _compatible(
        "orcarouter",
        "OrcaRouter",
        "https://api.orcarouter.ai/v1",
        "orcarouter",
        env_key="ORCAROUTER_API_KEY",
        is_gateway=True,
        key_prefix="sk-orca-",
        base_keyword="orcarouter",
    ),
    _compatible(  # models are "vendor/model" and sent so
        "edenai",
        "Eden AI",
        "https://api.edenai.run/v3",
        "edenai",
        env_key="EDENAI_API_KEY",
        is_gateway=True,
        base_keyword="edenai",
    ),
    _compatible(
        "opencode_go",  # before OpenCode Zen: its API base contains Zen's
        "OpenCode Go",
        "https://opencode.ai/zen/go/v1",
        "opencode-go",
        "opencode_go",
        env_key="OPENCODE_API_KEY",
        is_gateway=True,
        base_keyword="opencode.ai/zen/go",
    ),
    _compatible(
        "opencode",
        "OpenCode Zen",
        "https://opencode.ai/zen/v1",
        "opencode",
        "opencode-zen",
        "opencode_zen",
        env_key="OPENCODE_API_KEY",
        model_prefixes=("opencode-zen", "opencode_zen"),
        is_gateway=True,
        base_keyword="opencode.ai/zen",
    ),
    _compatible(  # nanobot's earlier name of the section above
        "opencode_zen",
        QT_TR_NOOP("OpenCode Zen (old)"),
        "https://opencode.ai/zen/v1",
        "opencode_zen",
        env_key="OPENCODE_API_KEY",
        model_prefixes=("opencode",),
        alias_for="opencode",
    ),
    _compatible(
        "huggingface",
        "Hugging Face",
        "https://router.huggingface.co/v1",
        "huggingface",
        "hugging-face",
        env_key="HF_TOKEN",
        is_gateway=True,
        key_prefix="hf_",
        base_keyword="huggingface",
    ),
    _compatible(
        "skywork",
        "Skywork",
        "https://api.apifree.ai/agent/v1",
        "skywork",
        "skyclaw",
        "apifree",
        env_key="SKYWORK_API_KEY",
        is_gateway=True,
        base_keyword="apifree.ai",
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
        display_name=QT_TR_NOOP("SiliconFlow"),
        keywords=("siliconflow",),
        env_key="SILICONFLOW_API_KEY",
        litellm_prefix="openai",
        is_gateway=True,
        base_keyword="siliconflow",
        default_api_base="https://api.siliconflow.cn/v1",
    ),
    _compatible(
        "novita",
        "Novita AI",
        "https://api.novita.ai/openai",
        "novita",
        env_key="NOVITA_API_KEY",
        is_gateway=True,
        base_keyword="novita",
    ),
    _compatible(  # the Coding Plan first: "volcengine" would match its model names too
        "volcengine_coding_plan",
        QT_TR_NOOP("VolcEngine Coding Plan"),
        "https://ark.cn-beijing.volces.com/api/coding/v3",
        "volcengine-plan",
        env_key="VOLCENGINE_API_KEY",
        strip_model_prefix=True,
        is_gateway=True,
        base_keyword="volces.com/api/coding",
    ),
    ProviderSpec(
        name="volcengine",
        display_name=QT_TR_NOOP("VolcEngine"),
        keywords=("volcengine", "doubao"),
        env_key="VOLCENGINE_API_KEY",
        litellm_prefix="volcengine",
        skip_prefixes=("volcengine/",),
        is_gateway=True,
        base_keyword="volces",
        default_api_base="https://ark.cn-beijing.volces.com/api/v3",
    ),
    _compatible(
        "byteplus_coding_plan",
        "BytePlus Coding Plan",
        "https://ark.ap-southeast.bytepluses.com/api/coding/v3",
        "byteplus-plan",
        env_key="BYTEPLUS_API_KEY",
        strip_model_prefix=True,
        is_gateway=True,
        base_keyword="bytepluses.com/api/coding",
    ),
    _compatible(
        "byteplus",
        "BytePlus",
        "https://ark.ap-southeast.bytepluses.com/api/v3",
        "byteplus",
        env_key="BYTEPLUS_API_KEY",
        strip_model_prefix=True,
        is_gateway=True,
        base_keyword="bytepluses",
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
        name="xai_grok",
        display_name=QT_TR_NOOP("xAI Grok (subscription)"),
        keywords=("xai-grok", "xai_grok"),
        strip_model_prefix=True,  # our own client: bare model names (grok-4.6)
        default_api_base="https://cli-chat-proxy.grok.com/v1",
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
        drop_base_suffix=_V1,
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
    # Google's OpenAI-compatible endpoint, as nanobot uses: LiteLLM's native Gemini route
    # drops the server's finish reason from streamed chunks, so a cut answer would look whole.
    _compatible(
        "gemini",
        "Google Gemini",
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "gemini",
        "gemma",
        env_key="GEMINI_API_KEY",
        key_prefix="AIza",
    ),
    ProviderSpec(
        name="zhipu",
        display_name=QT_TR_NOOP("Zhipu AI (GLM)"),
        keywords=("zhipu", "glm", "zai"),
        env_key="ZHIPUAI_API_KEY",
        litellm_prefix="zai",
        skip_prefixes=("zai/", "zhipu/"),
        base_keyword="bigmodel",
    ),
    ProviderSpec(
        name="dashscope",
        display_name=QT_TR_NOOP("DashScope (Qwen)"),
        keywords=("qwen", "dashscope"),
        env_key="DASHSCOPE_API_KEY",
        litellm_prefix="dashscope",
        skip_prefixes=("dashscope/",),
        base_keyword="dashscope",
    ),
    _compatible(
        "modelscope",
        QT_TR_NOOP("ModelScope"),
        "https://api-inference.modelscope.cn/v1",
        "modelscope",
        env_key="MODELSCOPE_API_KEY",
        is_gateway=True,
        base_keyword="modelscope",
    ),
    # Kimi's Coding Plan speaks Anthropic's Messages API; before Moonshot, whose "kimi"
    # keyword would match its model names too.
    ProviderSpec(
        name="kimi_coding",
        display_name="Kimi Coding Plan",
        keywords=("kimi-coding", "kimi_coding", "kimi-for-coding"),
        env_key="KIMI_CODING_API_KEY",
        litellm_prefix="anthropic",
        default_api_base="https://api.kimi.com/coding",
        drop_base_suffix=_V1,
        default_headers=(("User-Agent", "claude-code/0.1.0"),),  # the plan requires it
        supports_model_listing=False,
    ),
    ProviderSpec(
        name="moonshot",
        display_name=QT_TR_NOOP("Moonshot (Kimi)"),
        keywords=("moonshot", "kimi"),
        env_key="MOONSHOT_API_KEY",
        litellm_prefix="moonshot",
        skip_prefixes=("moonshot/",),
        base_keyword="moonshot",
        default_api_base="https://api.moonshot.ai/v1",
        model_overrides=(("kimi-k2.5", {"temperature": 1.0}),),
    ),
    ProviderSpec(  # MiniMax's Anthropic-compatible endpoint (thinking mode)
        name="minimax_anthropic",
        display_name=QT_TR_NOOP("MiniMax (Anthropic API)"),
        keywords=("minimax_anthropic", "minimax-anthropic"),
        env_key="MINIMAX_API_KEY",
        litellm_prefix="anthropic",
        default_api_base="https://api.minimax.io/anthropic",
        drop_base_suffix=_V1,
        supports_model_listing=False,
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
        name="mistral",
        display_name="Mistral",
        keywords=("mistral", "codestral", "magistral", "ministral", "devstral"),
        env_key="MISTRAL_API_KEY",
        litellm_prefix="mistral",
        skip_prefixes=("mistral/",),
        base_keyword="mistral.ai",
    ),
    _compatible(
        "stepfun",
        QT_TR_NOOP("StepFun"),
        "https://api.stepfun.com/v1",
        "stepfun",
        "step",
        env_key="STEPFUN_API_KEY",
    ),
    _compatible(
        "xiaomi_mimo",
        QT_TR_NOOP("Xiaomi MiMo"),
        "https://api.xiaomimimo.com/v1",
        "xiaomi_mimo",
        "mimo",
        env_key="XIAOMIMIMO_API_KEY",
    ),
    _compatible(
        "longcat",
        "LongCat",
        "https://api.longcat.chat/openai/v1",
        "longcat",
        env_key="LONGCAT_API_KEY",
    ),
    _compatible(
        "ant_ling",
        QT_TR_NOOP("Ant Ling"),
        "https://api.ant-ling.com/v1",
        "ant_ling",
        "ant-ling",
        "ling-",
        "ring-",
        env_key="ANT_LING_API_KEY",
        base_keyword="ant-ling.com",
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
    # Ollama's OpenAI-compatible API, as nanobot uses it (LiteLLM's native Ollama route asks
    # the server about the model with a blocking request after every answer).
    _compatible(
        "ollama",
        "Ollama",
        "http://localhost:11434/v1",
        "ollama",
        is_local=True,
        needs_key=False,
        base_keyword="11434",
        add_base_suffix=_V1,  # an older base of ours, http://localhost:11434
    ),
    ProviderSpec(
        name="lm_studio",
        display_name="LM Studio",
        keywords=("lm_studio", "lmstudio", "lm-studio"),
        litellm_prefix="lm_studio",
        skip_prefixes=("lm_studio/",),
        is_local=True,
        needs_key=False,
        base_keyword="1234",
        default_api_base="http://localhost:1234/v1",
    ),
    _compatible(
        "atomic_chat",
        "Atomic Chat",
        "http://localhost:1337/v1",
        "atomic-chat",
        "atomic_chat",
        "atomicchat",
        is_local=True,
        needs_key=False,
        base_keyword="1337",
    ),
    _compatible(
        "ovms",
        "OpenVINO Model Server",
        "http://localhost:8000/v3",
        "openvino",
        "ovms",
        is_local=True,
        needs_key=False,
    ),
    # More vendors.
    _compatible(
        "nvidia",
        "NVIDIA NIM",
        "https://integrate.api.nvidia.com/v1",
        "nvidia",
        "nemotron",
        "nvapi",
        env_key="NVIDIA_NIM_API_KEY",
        name_in_model_ids=True,  # nvidia/llama-3.3-nemotron-…
        key_prefix="nvapi-",
        base_keyword="nvidia.com",
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
    _compatible(
        "qianfan",
        QT_TR_NOOP("Baidu Qianfan"),
        "https://qianfan.baidubce.com/v2",
        "qianfan",
        "ernie",
        env_key="QIANFAN_API_KEY",
    ),
    # Voice transcription only: its key is kept here, it never answers a chat.
    ProviderSpec(
        name="assemblyai",
        display_name=QT_TR_NOOP("AssemblyAI (voice)"),
        keywords=("assemblyai",),
        env_key="ASSEMBLYAI_API_KEY",
        default_api_base="https://api.assemblyai.com/v2",
        supports_model_listing=False,
        transcription_only=True,
    ),
)

_BY_NAME = {spec.name: spec for spec in PROVIDERS}
_BY_PREFIX: dict[str, ProviderSpec] = {}
for _spec in PROVIDERS:  # the first spec naming a prefix keeps it (opencode before its alias)
    for _prefix in _spec.own_prefixes:
        _BY_PREFIX.setdefault(_prefix[:-1], _spec)


def find_by_name(name: str) -> ProviderSpec | None:
    """Look a spec up by registry name (``-`` and ``_`` are interchangeable, and nanobot's
    camelCase section names such as ``azureOpenai`` are understood)."""
    found = _BY_NAME.get(name.replace("-", "_").lower())
    if found is None and name[:1].islower():
        found = _BY_NAME.get(to_snake(name.replace("-", "_")))
    return found


def find_by_model_prefix(prefix: str) -> ProviderSpec | None:
    """The spec a model prefix names (``azure`` in ``azure/my-deployment``), if any."""
    return _BY_PREFIX.get(prefix.lower()) or find_by_name(prefix)


def canonical_name(name: str) -> str | None:
    """The registry name for ``name`` in any accepted spelling (``openai-codex``,
    ``openai_codex``, ``OpenAI-Codex``), or ``None`` when unknown."""
    spec = find_by_name(name.strip())
    return spec.name if spec else None


def provider_names() -> list[str]:
    """Registry names in registry order."""
    return [spec.name for spec in PROVIDERS]
