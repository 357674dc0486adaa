"""Sign in, sign out, who is signed in, and the chat provider of a signed-in OAuth provider."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop.core.config.provider_registry import ProviderSpec, find_by_name
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMProvider
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.oauth import codex, copilot, grok
from desktop.core.providers.oauth.endpoints import (
    codex_endpoints,
    copilot_endpoints,
    grok_endpoints,
)
from desktop.core.providers.oauth.flow import PromptCallback
from desktop.core.providers.oauth.session import OAuthSession
from desktop.core.providers.oauth.tokens import OAuthTokens, TokenVault
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

OAUTH_PROVIDERS = ("openai_codex", "xai_grok", "github_copilot")


def oauth_spec(name: str) -> ProviderSpec | None:
    """The spec of an OAuth provider in any spelling (``openai-codex``), else ``None``."""
    spec = find_by_name(name.strip())
    return spec if spec is not None and spec.oauth else None


def _api_base(config: Config | None, name: str) -> str | None:
    section = config.provider_config(name) if config is not None else None
    return section.api_base if section else None


def session_for(
    name: str,
    store: SecretStore,
    config: Config | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    lock_dir: Path | None = None,
) -> OAuthSession:
    """The token session of OAuth provider ``name`` (registry name)."""
    spec = oauth_spec(name)
    assert spec is not None, f"{name} is not an OAuth provider"
    vault = TokenVault(store)
    base = _api_base(config, spec.name)
    if spec.name == codex.PROVIDER:
        refresher = codex.make_refresher(codex_endpoints(base, environ))
    elif spec.name == grok.PROVIDER:
        refresher = grok.make_refresher(grok_endpoints(base, environ))
    else:
        refresher = copilot.make_refresher(copilot_endpoints(base, environ))
    return OAuthSession(spec.name, spec.display_name, vault, refresher, lock_dir=lock_dir)


async def sign_in(
    name: str,
    store: SecretStore,
    config: Config | None = None,
    *,
    on_prompt: PromptCallback | None = None,
    environ: Mapping[str, str] | None = None,
) -> OAuthTokens:
    """Run the provider's sign-in and store the tokens in the keyring.

    ChatGPT (Codex) and xAI Grok: the browser flow (``on_prompt`` gets the page to open).
    GitHub Copilot: the device flow (``on_prompt`` gets the page and the code). Cancel the
    coroutine to stop.

    Raises:
        LoginError: The sign-in did not complete (nothing was stored).
        KeyringUnavailable: Signed in, but the keyring could not store the tokens.
    """
    spec = oauth_spec(name)
    assert spec is not None, f"{name} is not an OAuth provider"
    base = _api_base(config, spec.name)
    if spec.name == codex.PROVIDER:
        tokens = await codex.login(codex_endpoints(base, environ), on_prompt)
    elif spec.name == grok.PROVIDER:
        tokens = await grok.login(grok_endpoints(base, environ), on_prompt)
    else:
        tokens = await copilot.login(copilot_endpoints(base, environ), on_prompt)
    await TokenVault(store).asave(tokens)
    return tokens


async def sign_out(name: str, store: SecretStore) -> bool:
    """Forget the stored tokens; whether there were any."""
    spec = oauth_spec(name)
    assert spec is not None, f"{name} is not an OAuth provider"
    return await TokenVault(store).adelete(spec.name)


def signed_in(name: str, store: SecretStore) -> OAuthTokens | None:
    """The stored tokens (blocking keyring call), or ``None``.

    Raises:
        KeyringUnavailable: The keyring failed.
    """
    spec = oauth_spec(name)
    assert spec is not None, f"{name} is not an OAuth provider"
    return TokenVault(store).load(spec.name)


async def asigned_in(name: str, store: SecretStore) -> OAuthTokens | None:
    """Async :func:`signed_in`."""
    spec = oauth_spec(name)
    assert spec is not None, f"{name} is not an OAuth provider"
    return await TokenVault(store).aload(spec.name)


def describe(tokens: OAuthTokens | None) -> str:
    """``signed in as ann@example.com`` / ``not signed in``, for status lines."""
    if tokens is None:
        return Phrase(QT_TR_NOOP("not signed in"))
    who = tokens.account or Phrase(QT_TR_NOOP("an unnamed account"))
    if tokens.expires_at is not None and tokens.expiring():
        return Phrase(
            QT_TR_NOOP("signed in as {account} (access expired; renewed on the next request)"),
            account=who,
        )
    return Phrase(QT_TR_NOOP("signed in as {account}"), account=who)


def build_oauth_provider(
    choice: ProviderChoice,
    config: Config,
    store: SecretStore,
    *,
    environ: Mapping[str, str] | None = None,
    lock_dir: Path | None = None,
    **options: Any,
) -> LLMProvider:
    """The chat provider for ``choice`` (an OAuth provider). Tokens are read on each call.

    Args:
        choice: The routing.
        config: For the API base and the request settings.
        store: Where the tokens are.
        environ: Environment for URL overrides.
        lock_dir: Folder of the refresh lock (tests).
        **options: ``retry_delays`` and other provider options.
    """
    defaults = config.agents.defaults
    session = session_for(choice.section, store, config, environ=environ, lock_dir=lock_dir)
    timeouts: dict[str, Any] = {
        "request_timeout": options.pop("request_timeout", defaults.request_timeout_s),
        "stream_idle_timeout": options.pop("stream_idle_timeout", defaults.stream_idle_timeout_s),
    }
    base = _api_base(config, choice.section)
    if choice.section == codex.PROVIDER:
        from desktop.core.providers.oauth.codex_provider import CodexProvider

        endpoints = codex_endpoints(base, environ)
        return CodexProvider(
            _with_base(choice, endpoints.api_base),
            session,
            endpoints,
            **timeouts,
            **_only(options, "retry_delays"),
        )
    if choice.section == grok.PROVIDER:
        from desktop.core.providers.oauth.grok_provider import GrokProvider

        endpoints_g = grok_endpoints(base, environ)
        return GrokProvider(
            _with_base(choice, endpoints_g.api_base),
            session,
            endpoints_g,
            max_tokens=options.pop("max_tokens", defaults.max_tokens),
            temperature=options.pop("temperature", defaults.temperature),
            **timeouts,
            **_only(options, "retry_delays"),
        )
    from desktop.core.providers.oauth.copilot_provider import CopilotProvider

    endpoints_c = copilot_endpoints(base, environ)
    routed = _with_base(choice, endpoints_c.api_base or None)
    return CopilotProvider(
        routed,
        session,
        endpoints_c,
        max_tokens=options.pop("max_tokens", defaults.max_tokens),
        temperature=options.pop("temperature", defaults.temperature),
        **timeouts,
        **_only(options, "retry_delays"),
    )


def _with_base(choice: ProviderChoice, api_base: str | None) -> ProviderChoice:
    import dataclasses

    return dataclasses.replace(choice, api_base=api_base)


def _only(options: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: options[name] for name in names if name in options}


def age_text(tokens: OAuthTokens) -> str:
    """``since 2026-01-02`` (when the sign-in happened), or ``""``."""
    if not tokens.signed_in_at:
        return ""
    return "since " + time.strftime("%Y-%m-%d", time.localtime(tokens.signed_in_at))
