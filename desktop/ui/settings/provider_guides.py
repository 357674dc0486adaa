"""What each provider page leads with: how to get a key, with a link to the provider's key page.

The provider panel (:mod:`desktop.ui.settings.provider_panel`) shows the key (or the sign-in)
with this paragraph first, then the model test and list, and keeps the endpoint (API base,
extra headers, a section's own fields) in a collapsed "Advanced" section, except for the
providers that cannot work without an address (local servers, Custom, Azure).
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.config.provider_spec import ProviderSpec


@dataclass(frozen=True)
class ProviderGuide:
    """How to get what a provider needs.

    Attributes:
        how_to: One paragraph.
        link: The provider's key page (empty: none).
        link_text: The link's words.
    """

    how_to: str
    link: str = ""
    link_text: str = ""


def _keys_page(site: str, where: str) -> str:
    return (
        f"Sign in at {site}, open {where}, create a key and paste it here. It is kept in the "
        "OS keyring; the provider usually shows it only once."
    )


GUIDES: dict[str, ProviderGuide] = {
    "openai": ProviderGuide(
        _keys_page("platform.openai.com", "API keys")
        + " Calls are billed to the organisation's credit, not to a ChatGPT plan.",
        "https://platform.openai.com/api-keys",
        "Open OpenAI's API keys page",
    ),
    "anthropic": ProviderGuide(
        _keys_page("console.anthropic.com", "Settings → API keys")
        + " Add credit under Billing first.",
        "https://console.anthropic.com/settings/keys",
        "Open Anthropic's API keys page",
    ),
    "openrouter": ProviderGuide(
        _keys_page("openrouter.ai", "Keys"),
        "https://openrouter.ai/keys",
        "Open OpenRouter's keys page",
    ),
    "deepseek": ProviderGuide(
        _keys_page("platform.deepseek.com", "API keys"),
        "https://platform.deepseek.com/api_keys",
        "Open DeepSeek's API keys page",
    ),
    "gemini": ProviderGuide(
        _keys_page("Google AI Studio", "Get API key") + " A free tier is available.",
        "https://aistudio.google.com/app/apikey",
        "Open Google AI Studio's keys page",
    ),
    "groq": ProviderGuide(
        _keys_page("console.groq.com", "API Keys"),
        "https://console.groq.com/keys",
        "Open Groq's API keys page",
    ),
    "mistral": ProviderGuide(
        _keys_page("console.mistral.ai", "API Keys"),
        "https://console.mistral.ai/api-keys",
        "Open Mistral's API keys page",
    ),
    "moonshot": ProviderGuide(
        _keys_page("platform.moonshot.ai", "API Keys"),
        "https://platform.moonshot.ai/console/api-keys",
        "Open Moonshot's API keys page",
    ),
    "dashscope": ProviderGuide(
        _keys_page("Alibaba Cloud Model Studio", "API Key"),
        "https://bailian.console.aliyun.com/?apiKey=1",
        "Open Model Studio's API key page",
    ),
    "zhipu": ProviderGuide(
        _keys_page("open.bigmodel.cn", "API keys"),
        "https://open.bigmodel.cn/usercenter/apikeys",
        "Open Zhipu's API keys page",
    ),
    "huggingface": ProviderGuide(
        _keys_page("huggingface.co", "Settings → Access Tokens")
        + " The token needs the “Make calls to Inference Providers” permission.",
        "https://huggingface.co/settings/tokens",
        "Open Hugging Face's access tokens page",
    ),
    "nvidia": ProviderGuide(
        _keys_page("build.nvidia.com", "a model's “Get API Key”"),
        "https://build.nvidia.com/",
        "Open NVIDIA's API catalog",
    ),
    "siliconflow": ProviderGuide(
        _keys_page("cloud.siliconflow.cn", "API Keys"),
        "https://cloud.siliconflow.cn/account/ak",
        "Open SiliconFlow's API keys page",
    ),
    "minimax": ProviderGuide(
        _keys_page("platform.minimax.io", "API Keys"),
        "https://platform.minimax.io/user-center/basic-information/interface-key",
        "Open MiniMax's API keys page",
    ),
}
GUIDES["minimax_anthropic"] = GUIDES["minimax"]


def guide_for(spec: ProviderSpec) -> ProviderGuide:
    """The guide of ``spec``: its own for the common providers, else a generic one that fits
    its kind (signed in to, a local server, a key)."""
    found = GUIDES.get(spec.name)
    if found is not None:
        return found
    if spec.oauth:
        return ProviderGuide(
            f"Sign in with your {spec.display_name} account below: a browser window opens and "
            "the sign-in is kept in the OS keyring. No API key is needed."
        )
    if spec.is_local:
        return ProviderGuide(
            f"Start {spec.display_name} on this machine (or one on your network) and put its "
            "address in API base if it is not the default shown there. Usually no key is "
            "needed; paste one if the server asks for it."
        )
    if spec.name == "custom":
        return ProviderGuide(
            "Any server that speaks the OpenAI API: put its address in API base and, if it "
            "asks for one, its key here."
        )
    return ProviderGuide(
        f"Sign in on {spec.display_name}'s website, open its API keys page (often under "
        "your account or the console's settings), create a key and paste it here. It is kept "
        "in the OS keyring."
    )


def endpoint_is_essential(spec: ProviderSpec) -> bool:
    """Whether the API base goes with the essentials: providers with no address of their own
    (local servers, Custom, Azure's resource endpoint)."""
    return spec.is_local or spec.name in ("custom", "azure_openai")
