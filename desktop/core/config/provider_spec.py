"""What the registry knows about one provider (:class:`ProviderSpec`); the data is in
:mod:`desktop.core.config.provider_registry`."""

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
        model_prefixes: Other spellings of this provider as a model prefix
            (``opencode-go/…``); they are dropped before the model is sent.
        name_in_model_ids: The provider's own model ids start with its name
            (``nvidia/llama-…``): that prefix chooses it but is sent as it is.
        is_gateway: Serves models of many vendors (OpenRouter, AiHubMix, ...).
        is_local: A server on the user's machine or network; no key needed.
        key_prefix: API keys starting with this identify the provider (``sk-or-``).
        base_keyword: An API base containing this identifies the provider.
        default_api_base: Used when the config gives none.
        drop_base_suffix: Removed from the end of a configured API base before it is used
            (nanobot writes ``…/v1`` where LiteLLM adds ``/v1/messages`` itself).
        add_base_suffix: Added to a configured API base that does not end with it.
        default_headers: Headers sent unless the config's ``extraHeaders`` set them.
        litellm_options: Fixed LiteLLM arguments (Azure's ``api_version``).
        model_overrides: ``(model keyword, {param: value})`` pairs applied to matching models.
        supports_prompt_caching: Accepts ``cache_control`` blocks.
        supports_model_listing: Has an OpenAI-style ``GET /models``.
        needs_key: A request without a key is pointless.
        direct: Named by a model prefix it is chosen without a key: its credentials may come
            from its own config fields or the environment (Azure, AWS Bedrock).
        oauth: Signed in to with an OAuth flow (``provider login``) instead of an API key; the
            tokens live in the keyring entry of ``name`` (see :mod:`desktop.core.providers.oauth`).
        transcription_only: Only turns voice into text; never chosen for chat.
        alias_for: This section is an older name of another provider's (Settings shows it
            under its own name so a key stored there stays reachable).
    """

    name: str
    display_name: str
    keywords: tuple[str, ...] = ()
    env_key: str = ""
    litellm_prefix: str = ""
    skip_prefixes: tuple[str, ...] = ()
    strip_model_prefix: bool = False
    model_prefixes: tuple[str, ...] = ()
    name_in_model_ids: bool = False
    is_gateway: bool = False
    is_local: bool = False
    key_prefix: str = ""
    base_keyword: str = ""
    default_api_base: str = ""
    drop_base_suffix: str = ""
    add_base_suffix: str = ""
    default_headers: tuple[tuple[str, str], ...] = ()
    litellm_options: tuple[tuple[str, Any], ...] = ()
    model_overrides: tuple[tuple[str, dict[str, Any]], ...] = field(default=())
    supports_prompt_caching: bool = False
    supports_model_listing: bool = True
    needs_key: bool = True
    direct: bool = False
    oauth: bool = False
    transcription_only: bool = False
    alias_for: str = ""

    @property
    def own_prefixes(self) -> tuple[str, ...]:
        """Model prefixes (``name/``) that name this provider, lower case."""
        names = {self.name, self.name.replace("_", "-"), *self.model_prefixes}
        return tuple(sorted(f"{n.lower()}/" for n in names))

    @property
    def dropped_prefixes(self) -> tuple[str, ...]:
        """The :attr:`own_prefixes` removed from a model before it is sent."""
        return () if self.name_in_model_ids else self.own_prefixes

    @property
    def chats(self) -> bool:
        """Whether this provider answers chat requests (not transcription only)."""
        return not self.transcription_only
