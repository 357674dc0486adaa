"""Which provider serves a model, and under what name LiteLLM knows it.

Order (first hit wins): the forced ``agents.defaults.provider``; an explicit ``name/`` prefix on
the model; keyword match in registry order among providers that have a key; the first gateway
with a key; ``custom`` when it has an apiBase. A prefix naming an OAuth provider
(``openai-codex/…``, ``github-copilot/…``) or a cloud platform with credentials of its own
(``azure/…``, ``bedrock/…``) always chooses it, keyed or not. A provider section whose key or
apiBase reveals a gateway (``sk-or-…`` keys, ``openrouter`` in the URL) is treated as that
gateway. Transcription-only providers (AssemblyAI) are never chosen for chat.

The API base is the section's (with the suffix the spec drops, e.g. the ``/v1`` nanobot writes
for Anthropic-style servers) or the spec's default; :mod:`desktop.core.providers.routes` adds
the arguments a route needs beyond model, key and base (Azure's API version, Bedrock's region).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop.core.config.provider_registry import (
    PROVIDERS,
    ProviderSpec,
    find_by_model_prefix,
    find_by_name,
)
from desktop.core.config.schema import Config, ProviderConfig
from desktop.core.providers.routes import route_options
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

# What the window shows when no provider can be chosen (the error's message is a phrase,
# translated there).
UNKNOWN_PROVIDER = QT_TR_NOOP(
    "unknown provider {name} in agents.defaults.provider (known: {known})"
)
TRANSCRIBES_ONLY = QT_TR_NOOP(
    "{provider} only transcribes voice messages; choose a chat provider in agents.defaults.provider"
)
NO_PROVIDER = QT_TR_NOOP(
    "no provider for model {model}: add a key (nanobot-desktop keys set PROVIDER) or set "
    "providers.custom.apiBase to an OpenAI-compatible server"
)


class ProviderNotFound(LookupError):
    """No provider could be chosen for a model (bad forced name, nothing configured).

    Its one argument is a :class:`~desktop.core.utils.i18n.Phrase` (English, translated where
    the window shows it).
    """

    def __init__(self, template: str, **fields: str) -> None:
        super().__init__(Phrase(template, **fields))


@dataclass(frozen=True)
class ProviderChoice:
    """The provider picked for a model.

    Attributes:
        spec: The (possibly gateway-upgraded) provider spec.
        section: The config section the credentials come from (``providers.<section>``).
        model: The model name as LiteLLM wants it.
        api_base: Endpoint, or ``None`` for LiteLLM's default.
        extra_headers: Headers from the config section.
        params: Per-model parameter overrides from the registry.
        reason: Why this provider was chosen (for ``status``).
        options: Further LiteLLM arguments of the route (``api_version``,
            ``aws_region_name``, ``extra_body``…), from the spec and the config section.
    """

    spec: ProviderSpec
    section: str
    model: str
    api_base: str | None
    extra_headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    options: dict[str, Any] = field(default_factory=dict)


def detect_gateway(section: ProviderConfig | None, key: str | None) -> ProviderSpec | None:
    """A gateway recognised by the key prefix or a keyword in the API base, if any."""
    base = ((section.api_base if section else None) or "").lower()
    for spec in PROVIDERS:
        if not spec.is_gateway:
            continue
        if key and spec.key_prefix and key.startswith(spec.key_prefix):
            return spec
        if base and spec.base_keyword and spec.base_keyword in base:
            return spec
    return None


def litellm_model_name(spec: ProviderSpec, model: str) -> str:
    """Spell ``model`` the way LiteLLM routes it to ``spec``."""
    lowered = model.lower()
    if not any(lowered.startswith(p) for p in spec.skip_prefixes):
        for own in spec.dropped_prefixes:
            if lowered.startswith(own):
                model = model[len(own) :]
                break
    if spec.strip_model_prefix and "/" in model:
        model = model.split("/", 1)[1]
    if not spec.litellm_prefix or any(model.lower().startswith(p) for p in spec.skip_prefixes):
        return model
    return f"{spec.litellm_prefix}/{model}"


def model_params(spec: ProviderSpec, model: str) -> dict[str, Any]:
    """Per-model overrides (e.g. reasoning models that only accept temperature 1)."""
    params: dict[str, Any] = {}
    bare = model.lower().rsplit("/", 1)[-1]
    for keyword, overrides in spec.model_overrides:
        if bare.startswith(keyword):
            params.update(overrides)
    return params


def api_base_for(spec: ProviderSpec, section: ProviderConfig | None) -> str | None:
    """The endpoint for ``spec``: the section's (without the suffix the spec drops), else the
    spec's default, else ``None`` (LiteLLM's own default)."""
    base = ((section.api_base if section else None) or "").strip()
    trimmed = base.rstrip("/")
    if base and spec.drop_base_suffix and trimmed.endswith(spec.drop_base_suffix):
        base = trimmed[: -len(spec.drop_base_suffix)]
    if base and spec.add_base_suffix and not trimmed.endswith(spec.add_base_suffix):
        base = trimmed + spec.add_base_suffix
    return base or spec.default_api_base or None


def _configured(section: ProviderConfig | None) -> bool:
    """Whether a section names anything (an endpoint, a region, a profile)."""
    if section is None:
        return False
    extras = (getattr(section, "region", None), getattr(section, "profile", None))
    return bool(section.api_base) or any(extras)


def _usable(
    spec: ProviderSpec, section: ProviderConfig | None, has_key: Callable[[str], bool]
) -> bool:
    if spec.transcription_only:
        return False
    if has_key(spec.name):
        return True
    if spec.direct and not spec.needs_key:
        return _configured(section)
    if not spec.needs_key:
        return bool(section and section.api_base) or (spec.is_local and bool(spec.default_api_base))
    return False


def choose_provider(  # noqa: C901  # nanobot 0.3.5's matching order, step by step (parity)
    config: Config,
    model: str | None = None,
    *,
    has_key: Callable[[str], bool],
    key_for: Callable[[str], str | None] = lambda _name: None,
) -> ProviderChoice:
    """Pick the provider for ``model`` (default: the configured model).

    Args:
        config: The loaded config.
        model: Model name; ``agents.defaults.model`` when ``None``.
        has_key: Whether a key is available for a registry name (keyring, config or env).
        key_for: The key itself, used only to recognise gateway key prefixes.

    Raises:
        ProviderNotFound: Forced provider unknown, or nothing usable is configured.
    """
    model = model or config.agents.defaults.model
    lowered = model.lower()
    forced = config.agents.defaults.provider
    chosen: ProviderSpec | None = None
    reason = ""
    if forced and forced != "auto":
        chosen = find_by_name(forced)
        if chosen is None:
            known = ", ".join(spec.name for spec in PROVIDERS if spec.chats)
            raise ProviderNotFound(UNKNOWN_PROVIDER, name=repr(forced), known=known)
        if chosen.transcription_only:
            raise ProviderNotFound(TRANSCRIBES_ONLY, provider=chosen.display_name)
        reason = "forced by agents.defaults.provider"
    if chosen is None and "/" in lowered:
        spec = find_by_model_prefix(lowered.split("/", 1)[0])
        # An OAuth provider named by the prefix is chosen even when signed out: falling through
        # would send ``openai-codex/gpt-5`` to OpenAI's API; building it says "sign in" instead.
        # Azure and Bedrock likewise: their credentials need not be an API key.
        if (
            spec
            and spec.chats
            and (
                spec.oauth
                or spec.direct
                or _usable(spec, config.provider_config(spec.name), has_key)
            )
        ):
            chosen, reason = spec, "model prefix"
    if chosen is None:
        for spec in PROVIDERS:
            if any(k in lowered for k in spec.keywords) and _usable(
                spec, config.provider_config(spec.name), has_key
            ):
                chosen, reason = spec, "model keyword"
                break
    if chosen is None:
        for spec in PROVIDERS:
            if spec.is_gateway and has_key(spec.name):
                chosen, reason = spec, "first gateway with a key"
                break
    if chosen is None:
        for spec in PROVIDERS:
            section = config.provider_config(spec.name)
            if not spec.needs_key and not spec.direct and section and section.api_base:
                chosen, reason = spec, "configured apiBase"
                break
    if chosen is None:
        for spec in PROVIDERS:
            if spec.chats and spec.keywords and any(k in lowered for k in spec.keywords):
                chosen, reason = spec, "model keyword (no key yet)"
                break
    if chosen is None:
        raise ProviderNotFound(NO_PROVIDER, model=repr(model))
    section_name = chosen.name
    section = config.provider_config(section_name)
    routed = chosen
    if not chosen.is_gateway and not chosen.oauth:
        gateway = detect_gateway(section, key_for(section_name))
        if gateway is not None:
            routed, reason = (
                gateway,
                f"{reason}; {section_name} section points at {gateway.display_name}",
            )
    api_base = api_base_for(routed, section)
    headers = dict(routed.default_headers)
    headers.update((section.extra_headers or {}) if section else {})
    return ProviderChoice(
        spec=routed,
        section=section_name,
        model=litellm_model_name(routed, model),
        api_base=api_base,
        extra_headers=headers,
        params=model_params(routed, model),
        reason=reason,
        options=route_options(routed, section),
    )
