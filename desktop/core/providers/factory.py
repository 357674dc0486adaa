"""Build the provider for a config: choose it, find its key, configure timeouts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.config.provider_registry import find_by_name
from desktop.core.config.schema import Config
from desktop.core.config.secrets import ResolvedKey, SecretStore
from desktop.core.providers.base import ErrorKind, LLMError, LLMProvider, said
from desktop.core.providers.litellm_provider import LiteLLMProvider
from desktop.core.providers.matching import ProviderChoice, choose_provider
from desktop.core.providers.openai_provider import OpenAIProvider, speaks_openai
from desktop.core.providers.presets import ModelTarget, preset_target, target_config
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.threads import run_daemon

# What the window shows for a missing key (the error's message is a phrase, translated there).
NO_KEY = QT_TR_NOOP("No API key for {provider}. Store one with '{command}'.")
NO_KEY_OR_ENV = QT_TR_NOOP("No API key for {provider}. Store one with '{command}' or set {env}.")
NOT_SIGNED_IN = QT_TR_NOOP(
    "Not signed in to {provider}. Sign in under Settings → Providers, or run '{command}'."
)


class MissingKeyError(LookupError):
    """The chosen provider needs a key and none was found. The message says how to add one.

    Its one argument is a :class:`~desktop.core.utils.i18n.Phrase` (English, translated where
    the window shows it).
    """

    def __init__(self, template: str, **fields: str) -> None:
        super().__init__(Phrase(template, **fields))


class NotSignedInError(MissingKeyError):
    """The chosen provider is an OAuth one and nobody is signed in. The message says how."""


def oauth_key(name: str, store: SecretStore) -> ResolvedKey:
    """Whether someone is signed in to OAuth provider ``name``, as a :class:`ResolvedKey`
    (blocking keyring call; never raises for a missing keyring)."""
    from desktop.core.config.secrets import KeyringUnavailable
    from desktop.core.providers.oauth.accounts import describe
    from desktop.core.providers.oauth.tokens import TokenVault

    try:
        tokens = TokenVault(store).load(name)
    except KeyringUnavailable as exc:
        unreadable = Phrase(QT_TR_NOOP("cannot read the keyring: {error}"), error=said(exc))
        return ResolvedKey(name, source="none", detail=unreadable)
    if tokens is None:
        return ResolvedKey(name, source="none", detail=Phrase(QT_TR_NOOP("not signed in")))
    return ResolvedKey(
        name,
        source="oauth",
        detail=Phrase(
            QT_TR_NOOP("{account} (OS keyring {entry})"),
            account=describe(tokens),
            entry=f"{store.service}/{name}",
        ),
        signed_in=True,
    )


def with_active_preset(config: Config) -> Config:
    """``config``, or a copy whose default model is its active model preset
    (``agents.defaults.modelPreset``, when it names one in ``modelPresets``)."""
    active = preset_target(config, config.agents.defaults.model_preset)
    return config if active is None else target_config(config, active)


@dataclass(frozen=True)
class BuiltProvider:
    """A ready provider with the routing and key facts behind it (for ``status``)."""

    provider: LLMProvider
    choice: ProviderChoice
    key: ResolvedKey


def resolve_choice(
    config: Config,
    store: SecretStore,
    *,
    model: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[ProviderChoice, ResolvedKey]:
    """Choose the provider for ``model`` and resolve its key (blocking: keyring calls)."""
    if model is None:
        config = with_active_preset(config)
    cache: dict[str, ResolvedKey] = {}

    def resolved(name: str) -> ResolvedKey:
        if name not in cache:
            spec = find_by_name(name)
            if spec is not None and spec.oauth:
                cache[name] = oauth_key(name, store)
            else:
                cache[name] = store.resolve(name, config, environ)
        return cache[name]

    choice = choose_provider(
        config,
        model,
        has_key=lambda name: resolved(name).found,
        key_for=lambda name: resolved(name).value,
    )
    return choice, resolved(choice.section)


def build_provider(
    config: Config,
    store: SecretStore,
    *,
    model: str | None = None,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> BuiltProvider:
    """Choose, key and configure the provider for ``model`` (default: the configured model).

    Args:
        config: Loaded config.
        store: Where keys live.
        model: Model name; the configured default when ``None`` (the active model preset,
            with its settings, when ``agents.defaults.modelPreset`` names one).
        environ: Environment for the env-var fallback.
        **options: Extra :class:`LiteLLMProvider` arguments (e.g. ``retry_delays``).

    Routes that speak OpenAI's protocol get an :class:`OpenAIProvider` (the ``openai`` SDK,
    no LiteLLM); the others a :class:`LiteLLMProvider`.

    Raises:
        ProviderNotFound: No provider fits.
        MissingKeyError: The provider needs a key and none is available
            (:class:`NotSignedInError` for an OAuth provider nobody signed in to).
    """
    if model is None:
        config = with_active_preset(config)
    choice, key = resolve_choice(config, store, model=model, environ=environ)
    if choice.spec.oauth:
        if not key.found:
            fields = {
                "provider": choice.spec.display_name,
                "command": f"nanobot-desktop provider login {choice.spec.name.replace('_', '-')}",
            }
            raise NotSignedInError(NOT_SIGNED_IN, **fields)
        from desktop.core.providers.oauth.accounts import build_oauth_provider

        oauth = build_oauth_provider(choice, config, store, environ=environ, **options)
        return BuiltProvider(oauth, choice, key)
    if choice.spec.needs_key and not key.found:
        env = choice.spec.env_key
        fields = {
            "provider": choice.spec.display_name,
            "command": f"nanobot-desktop keys set {choice.section}",
            "env": env,
        }
        template = NO_KEY_OR_ENV if env else NO_KEY
        raise MissingKeyError(template, **fields)
    defaults = config.agents.defaults
    # OpenAI-wire routes go through the openai SDK (LiteLLM is never imported for them).
    kind = OpenAIProvider if speaks_openai(choice) else LiteLLMProvider
    provider = kind(
        choice,
        api_key=key.value,
        max_tokens=defaults.max_tokens,
        temperature=defaults.temperature,
        reasoning_effort=defaults.reasoning_effort,
        request_timeout=defaults.request_timeout_s,
        stream_idle_timeout=defaults.stream_idle_timeout_s,
        **options,
    )
    return BuiltProvider(provider, choice, key)


async def abuild_provider(
    config: Config,
    store: SecretStore,
    *,
    model: str | None = None,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> BuiltProvider:
    """:func:`build_provider` in a daemon thread (keyring calls must not block the loop, and a
    hung keyring must not hold up the exit)."""
    return await run_daemon(
        lambda: build_provider(config, store, model=model, environ=environ, **options),
        "build-provider",
    )


async def build_target(
    config: Config, secrets: SecretStore | None, target: ModelTarget, **options: Any
) -> LLMProvider:
    """The provider of ``target``, built like the default one (keyring reads off the loop).

    Raises:
        LLMError: It cannot be built: no key (kind ``auth``), or no provider fits (``not_found``).
    """
    try:
        built = await abuild_provider(
            target_config(config, target), secrets or SecretStore(), model=target.model, **options
        )
    except LookupError as exc:
        kind: ErrorKind = "auth" if isinstance(exc, MissingKeyError) else "not_found"
        reason = said(exc)
        message = Phrase(
            QT_TR_NOOP("{model} cannot be used: {reason}"), model=target.label, reason=reason
        )
        raise LLMError(message, kind=kind, details=str(exc)) from None
    return built.provider
