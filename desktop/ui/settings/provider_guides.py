"""What each provider page leads with: how to get a key, with a link to the provider's key page.

The provider panel (:mod:`desktop.ui.settings.provider_panel`) shows the key (or the sign-in)
with this paragraph first, then the model test and list, and keeps the endpoint (API base,
extra headers, a section's own fields) in a collapsed "Advanced" section, except for the
providers that cannot work without an address (local servers, Custom, Azure).
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.config.provider_spec import ProviderSpec
from desktop.ui.i18n import QT_TR_NOOP, tr


@dataclass(frozen=True)
class ProviderGuide:
    """How to get what a provider needs (in the window's language).

    Attributes:
        how_to: One paragraph.
        link: The provider's key page (empty: none).
        link_text: The link's words.
    """

    how_to: str
    link: str = ""
    link_text: str = ""


@dataclass(frozen=True)
class KeysPage:
    """Where a provider hands out keys (its texts marked, translated by :func:`guide_for`).

    Attributes:
        site: The site to sign in at (a name or address, as the provider writes it).
        where: The place on that site (its own words, which stay as they are).
        link: The key page's address.
        link_text: The link's words.
        extra: A sentence after the steps (empty: none).
    """

    site: str
    where: str
    link: str
    link_text: str
    extra: str = ""


KEYS_STEPS = QT_TR_NOOP(
    "Sign in at {site}, open {where}, create a key and paste it here. It is kept in the "
    "OS keyring; the provider usually shows it only once."
)

GUIDES: dict[str, KeysPage] = {
    "openai": KeysPage(
        "platform.openai.com",
        "API keys",
        "https://platform.openai.com/api-keys",
        QT_TR_NOOP("Open OpenAI's API keys page"),
        QT_TR_NOOP("Calls are billed to the organisation's credit, not to a ChatGPT plan."),
    ),
    "anthropic": KeysPage(
        "console.anthropic.com",
        "Settings → API keys",
        "https://console.anthropic.com/settings/keys",
        QT_TR_NOOP("Open Anthropic's API keys page"),
        QT_TR_NOOP("Add credit under Billing first."),
    ),
    "openrouter": KeysPage(
        "openrouter.ai",
        "Keys",
        "https://openrouter.ai/keys",
        QT_TR_NOOP("Open OpenRouter's keys page"),
    ),
    "deepseek": KeysPage(
        "platform.deepseek.com",
        "API keys",
        "https://platform.deepseek.com/api_keys",
        QT_TR_NOOP("Open DeepSeek's API keys page"),
    ),
    "gemini": KeysPage(
        "Google AI Studio",
        "Get API key",
        "https://aistudio.google.com/app/apikey",
        QT_TR_NOOP("Open Google AI Studio's keys page"),
        QT_TR_NOOP("A free tier is available."),
    ),
    "groq": KeysPage(
        "console.groq.com",
        "API Keys",
        "https://console.groq.com/keys",
        QT_TR_NOOP("Open Groq's API keys page"),
    ),
    "mistral": KeysPage(
        "console.mistral.ai",
        "API Keys",
        "https://console.mistral.ai/api-keys",
        QT_TR_NOOP("Open Mistral's API keys page"),
    ),
    "moonshot": KeysPage(
        "platform.moonshot.ai",
        "API Keys",
        "https://platform.moonshot.ai/console/api-keys",
        QT_TR_NOOP("Open Moonshot's API keys page"),
    ),
    "dashscope": KeysPage(
        "Alibaba Cloud Model Studio",
        "API Key",
        "https://bailian.console.aliyun.com/?apiKey=1",
        QT_TR_NOOP("Open Model Studio's API key page"),
    ),
    "zhipu": KeysPage(
        "open.bigmodel.cn",
        "API keys",
        "https://open.bigmodel.cn/usercenter/apikeys",
        QT_TR_NOOP("Open Zhipu's API keys page"),
    ),
    "huggingface": KeysPage(
        "huggingface.co",
        "Settings → Access Tokens",
        "https://huggingface.co/settings/tokens",
        QT_TR_NOOP("Open Hugging Face's access tokens page"),
        QT_TR_NOOP("The token needs the “Make calls to Inference Providers” permission."),
    ),
    "nvidia": KeysPage(
        "build.nvidia.com",
        "a model's “Get API Key”",
        "https://build.nvidia.com/",
        QT_TR_NOOP("Open NVIDIA's API catalog"),
    ),
    "siliconflow": KeysPage(
        "cloud.siliconflow.cn",
        "API Keys",
        "https://cloud.siliconflow.cn/account/ak",
        QT_TR_NOOP("Open SiliconFlow's API keys page"),
    ),
    "minimax": KeysPage(
        "platform.minimax.io",
        "API Keys",
        "https://platform.minimax.io/user-center/basic-information/interface-key",
        QT_TR_NOOP("Open MiniMax's API keys page"),
    ),
}
GUIDES["minimax_anthropic"] = GUIDES["minimax"]


def join_sentences(sentences: list[str]) -> str:
    """``sentences`` as one paragraph: a space after a sentence that ends in Latin
    punctuation, none after a full-width one (Chinese, Japanese)."""
    text = ""
    for sentence in sentences:
        if text and not text.endswith(("。", "！", "？", "）", "：")):
            text += " "
        text += sentence
    return text


def guide_for(spec: ProviderSpec) -> ProviderGuide:
    """The guide of ``spec`` in the window's language: its own for the common providers, else
    a generic one that fits its kind (signed in to, a local server, a key)."""
    name = tr(spec.display_name)
    found = GUIDES.get(spec.name)
    if found is not None:
        how_to = tr(KEYS_STEPS).format(site=found.site, where=found.where)
        if found.extra:
            how_to = join_sentences([how_to, tr(found.extra)])
        return ProviderGuide(how_to, found.link, tr(found.link_text))
    if spec.oauth:
        return ProviderGuide(
            tr(
                "Sign in with your {provider} account below: a browser window opens and "
                "the sign-in is kept in the OS keyring. No API key is needed."
            ).format(provider=name)
        )
    if spec.is_local:
        return ProviderGuide(
            tr(
                "Start {provider} on this machine (or one on your network) and put its "
                "address in API base if it is not the default shown there. Usually no key is "
                "needed; paste one if the server asks for it."
            ).format(provider=name)
        )
    if spec.name == "custom":
        return ProviderGuide(
            tr(
                "Any server that speaks the OpenAI API: put its address in API base and, if it "
                "asks for one, its key here."
            )
        )
    return ProviderGuide(
        tr(
            "Sign in on {provider}'s website, open its API keys page (often under "
            "your account or the console's settings), create a key and paste it here. It is "
            "kept in the OS keyring."
        ).format(provider=name)
    )


def endpoint_is_essential(spec: ProviderSpec) -> bool:
    """Whether the API base goes with the essentials: providers with no address of their own
    (local servers, Custom, Azure's resource endpoint)."""
    return spec.is_local or spec.name in ("custom", "azure_openai")
