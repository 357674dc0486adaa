"""Where the OAuth providers live, with every base URL overridable.

The API endpoint comes from the config's ``providers.<name>.apiBase`` when set; every URL can
also be replaced with an environment variable (tests point them at a local server; a GitHub
Enterprise or a proxy can use them too). Environment variables win over the config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

CODEX_AUTH_ENV = "NANOBOT_DESKTOP_CODEX_AUTH_URL"
CODEX_API_ENV = "NANOBOT_DESKTOP_CODEX_API_URL"
CODEX_PORT_ENV = "NANOBOT_DESKTOP_CODEX_CALLBACK_PORT"
GITHUB_ENV = "NANOBOT_DESKTOP_GITHUB_URL"
GITHUB_API_ENV = "NANOBOT_DESKTOP_GITHUB_API_URL"
COPILOT_API_ENV = "NANOBOT_DESKTOP_COPILOT_API_URL"
GROK_AUTH_ENV = "NANOBOT_DESKTOP_GROK_AUTH_URL"
GROK_API_ENV = "NANOBOT_DESKTOP_GROK_API_URL"

CODEX_AUTH_BASE = "https://auth.openai.com"
CODEX_API_BASE = "https://chatgpt.com/backend-api/codex"
# The redirect registered for the Codex CLI's client id is http://localhost:1455/auth/callback;
# the authorization server accepts no other port.
CODEX_CALLBACK_PORT = 1455
GITHUB_BASE = "https://github.com"
GITHUB_API_BASE = "https://api.github.com"
COPILOT_API_BASE = "https://api.githubcopilot.com"
GROK_AUTH_BASE = "https://auth.x.ai"  # the OpenID issuer
GROK_API_BASE = "https://cli-chat-proxy.grok.com/v1"


def _pick(env: Mapping[str, str], name: str, *fallbacks: str | None) -> str:
    value = (env.get(name) or "").strip()
    if value:
        return value.rstrip("/")
    for fallback in fallbacks:
        if fallback and fallback.strip():
            return fallback.strip().rstrip("/")
    return ""


@dataclass(frozen=True)
class CodexEndpoints:
    """ChatGPT sign-in (auth.openai.com) and the Codex Responses API."""

    auth_base: str = CODEX_AUTH_BASE
    api_base: str = CODEX_API_BASE
    callback_port: int = CODEX_CALLBACK_PORT

    @property
    def authorize_url(self) -> str:
        """The browser page that asks the person to sign in."""
        return f"{self.auth_base}/oauth/authorize"

    @property
    def token_url(self) -> str:
        """Code exchange and refresh."""
        return f"{self.auth_base}/oauth/token"

    @property
    def responses_url(self) -> str:
        """``POST`` here with a Responses-API body (streamed)."""
        return f"{self.api_base}/responses"


@dataclass(frozen=True)
class CopilotEndpoints:
    """GitHub's device flow, the GitHub API (user, Copilot token) and the Copilot chat API.

    ``api_base`` is ``""`` when neither the config nor the environment names one: the Copilot
    token then says where the chat API is (``endpoints.api``), else :data:`COPILOT_API_BASE`.
    """

    github_base: str = GITHUB_BASE
    github_api: str = GITHUB_API_BASE
    api_base: str = ""

    @property
    def device_code_url(self) -> str:
        """Start of the device flow."""
        return f"{self.github_base}/login/device/code"

    @property
    def access_token_url(self) -> str:
        """Polled until the person has entered the code."""
        return f"{self.github_base}/login/oauth/access_token"

    @property
    def user_url(self) -> str:
        """Who signed in."""
        return f"{self.github_api}/user"

    @property
    def copilot_token_url(self) -> str:
        """Exchanges the GitHub token for a short-lived Copilot token."""
        return f"{self.github_api}/copilot_internal/v2/token"


@dataclass(frozen=True)
class GrokEndpoints:
    """xAI's sign-in (an OpenID issuer; its discovery document names the other endpoints)
    and the Grok subscription's Responses API."""

    auth_base: str = GROK_AUTH_BASE
    api_base: str = GROK_API_BASE

    @property
    def discovery_url(self) -> str:
        """The issuer's OpenID configuration."""
        return f"{self.auth_base}/.well-known/openid-configuration"

    @property
    def refresh_url(self) -> str:
        """Where refresh tokens are exchanged (the issuer's token endpoint)."""
        return f"{self.auth_base}/oauth2/token"

    @property
    def responses_url(self) -> str:
        """``POST`` here with a Responses-API body (streamed)."""
        return f"{self.api_base}/responses"


def codex_endpoints(
    api_base: str | None = None, environ: Mapping[str, str] | None = None
) -> CodexEndpoints:
    """The Codex endpoints: ``api_base`` from the config, environment overrides on top."""
    env = os.environ if environ is None else environ
    port_text = (env.get(CODEX_PORT_ENV) or "").strip()
    try:
        port = int(port_text) if port_text else CODEX_CALLBACK_PORT
    except ValueError:
        port = CODEX_CALLBACK_PORT
    return CodexEndpoints(
        auth_base=_pick(env, CODEX_AUTH_ENV, CODEX_AUTH_BASE),
        api_base=_pick(env, CODEX_API_ENV, api_base, CODEX_API_BASE),
        callback_port=port,
    )


def copilot_endpoints(
    api_base: str | None = None, environ: Mapping[str, str] | None = None
) -> CopilotEndpoints:
    """The GitHub / Copilot endpoints: ``api_base`` from the config, env overrides on top."""
    env = os.environ if environ is None else environ
    return CopilotEndpoints(
        github_base=_pick(env, GITHUB_ENV, GITHUB_BASE),
        github_api=_pick(env, GITHUB_API_ENV, GITHUB_API_BASE),
        api_base=_pick(env, COPILOT_API_ENV, api_base),
    )


def grok_endpoints(
    api_base: str | None = None, environ: Mapping[str, str] | None = None
) -> GrokEndpoints:
    """The xAI endpoints: ``api_base`` from the config, environment overrides on top."""
    env = os.environ if environ is None else environ
    return GrokEndpoints(
        auth_base=_pick(env, GROK_AUTH_ENV, GROK_AUTH_BASE),
        api_base=_pick(env, GROK_API_ENV, api_base, GROK_API_BASE),
    )
