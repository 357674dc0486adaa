"""The registry knows both OAuth providers; their model names route to them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.loader import load_config
from desktop.core.config.provider_registry import canonical_name, find_by_name
from desktop.core.providers.matching import choose_provider
from desktop.core.providers.oauth.endpoints import codex_endpoints, copilot_endpoints
from desktop.core.providers.oauth.responses import StreamState, apply_event
from tests.conftest import write_config


def _config(tmp_path: Path, **defaults: Any) -> Any:
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), **defaults}},
        "providers": {
            "openaiCodex": {"apiBase": "http://127.0.0.1:9/codex"},
            "githubCopilot": {"extraHeaders": {"X-Test": "1"}},
        },
    }
    return load_config(write_config(tmp_path / "config.json", data))


@pytest.mark.parametrize(
    ("model", "section", "routed"),
    [
        ("openai-codex/gpt-5.1-codex", "openai_codex", "gpt-5.1-codex"),
        ("openai_codex/gpt-5", "openai_codex", "gpt-5"),
        ("github-copilot/gpt-4.1", "github_copilot", "openai/gpt-4.1"),
        ("github_copilot/claude-sonnet-4", "github_copilot", "openai/claude-sonnet-4"),
    ],
)
def test_prefixed_models_route_to_the_oauth_provider_even_beside_an_openai_key(
    tmp_path: Path, model: str, section: str, routed: str
) -> None:
    config = _config(tmp_path, model=model)
    keys = {"openai"}  # an OpenAI key exists; nobody is signed in
    choice = choose_provider(config, has_key=lambda name: name in keys)
    assert (choice.section, choice.model, choice.reason) == (section, routed, "model prefix")


def test_signed_in_copilot_is_found_by_keyword_and_config_sections_apply(tmp_path: Path) -> None:
    config = _config(tmp_path, model="copilot-gpt-4.1")
    choice = choose_provider(config, has_key=lambda name: name == "github_copilot")
    assert choice.section == "github_copilot" and choice.reason == "model keyword"
    assert choice.extra_headers == {"X-Test": "1"}
    codex = choose_provider(_config(tmp_path, model="openai-codex/gpt-5"), has_key=lambda n: False)
    assert codex.api_base == "http://127.0.0.1:9/codex"


def test_plain_openai_models_still_go_to_openai(tmp_path: Path) -> None:
    config = _config(tmp_path, model="gpt-4o-mini")
    choice = choose_provider(config, has_key=lambda name: name in ("openai", "openai_codex"))
    assert choice.section == "openai" and choice.model == "openai/gpt-4o-mini"


def test_forced_provider(tmp_path: Path) -> None:
    config = _config(tmp_path, model="gpt-4.1", provider="github_copilot")
    choice = choose_provider(config, has_key=lambda name: False)
    assert (choice.section, choice.model) == ("github_copilot", "openai/gpt-4.1")


def test_spellings() -> None:
    for name in ("openai-codex", "openai_codex", "OpenAI-Codex"):
        assert canonical_name(name) == "openai_codex"
    assert canonical_name("github-copilot") == "github_copilot"
    spec = find_by_name("github-copilot")
    assert spec is not None and spec.oauth and spec.needs_key


def test_every_url_is_overridable() -> None:
    env = {
        "NANOBOT_DESKTOP_CODEX_AUTH_URL": "http://a/",
        "NANOBOT_DESKTOP_CODEX_API_URL": "http://b",
        "NANOBOT_DESKTOP_CODEX_CALLBACK_PORT": "0",
        "NANOBOT_DESKTOP_GITHUB_URL": "http://c",
        "NANOBOT_DESKTOP_GITHUB_API_URL": "http://d",
        "NANOBOT_DESKTOP_COPILOT_API_URL": "http://e",
    }
    codex = codex_endpoints("http://config", env)
    assert (codex.token_url, codex.responses_url, codex.callback_port) == (
        "http://a/oauth/token",
        "http://b/responses",
        0,
    )
    assert codex_endpoints("http://config/", {}).responses_url == "http://config/responses"
    default = codex_endpoints(None, {})
    assert default.authorize_url == "https://auth.openai.com/oauth/authorize"
    assert default.responses_url == "https://chatgpt.com/backend-api/codex/responses"
    assert default.callback_port == 1455
    copilot = copilot_endpoints(None, env)
    assert copilot.device_code_url == "http://c/login/device/code"
    assert copilot.copilot_token_url == "http://d/copilot_internal/v2/token"
    assert copilot.api_base == "http://e"
    assert copilot_endpoints(None, {}).access_token_url == (
        "https://github.com/login/oauth/access_token"
    )


def test_a_failed_response_event_is_an_error_the_person_can_read() -> None:
    from desktop.core.providers.base import LLMError

    state = StreamState()
    with pytest.raises(LLMError) as caught:
        apply_event(
            state,
            {
                "type": "response.failed",
                "response": {"error": {"code": "usage_limit_reached", "message": "Try at 5pm"}},
            },
        )
    assert caught.value.kind == "quota" and "Try at 5pm" in caught.value.message


def test_long_tokens_are_split_over_several_entries(memory_keyring: Any) -> None:
    """A value longer than Windows' credential store takes (a real ChatGPT access token is)
    is kept in parts of at most 1,000 characters; shorter values shrink back to one entry."""
    from desktop.core.config.secrets import SecretStore
    from desktop.core.providers.oauth.tokens import OAuthTokens, TokenVault

    store = SecretStore("split-test", timeout=5)
    vault = TokenVault(store)
    long = OAuthTokens(
        "openai_codex", access="a" * 3000, refresh="r" * 80, account="Ann Smith", expires_at=9e9
    )
    vault.save(long)
    entries = {user: value for (service, user), value in memory_keyring.store.items()}
    assert set(entries) == {"openai_codex", *(f"openai_codex#{i}" for i in range(1, 5))}
    assert all(len(value) <= 1000 for value in entries.values())
    assert vault.load("openai_codex") == long
    short = OAuthTokens("openai_codex", access="b" * 50, account="Ann Smith")
    vault.save(short)
    assert {user for (_s, user) in memory_keyring.store} == {"openai_codex"}
    assert vault.load("openai_codex") == short
    vault.save(long)
    assert vault.delete("openai_codex")
    assert memory_keyring.store == {}
    # A missing part reads as signed out, not as garbage.
    vault.save(long)
    del memory_keyring.store[("split-test", "openai_codex#2")]
    assert vault.load("openai_codex") is None
