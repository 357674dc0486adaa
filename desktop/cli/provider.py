"""``nanobot-desktop provider login|logout|status``: sign in to OAuth providers."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

# nanobot's spellings (openai-codex, xai-grok, github-copilot), the registry's, and short ones.
ALIASES = {
    "codex": "openai_codex",
    "chatgpt": "openai_codex",
    "openai-codex": "openai_codex",
    "grok": "xai_grok",
    "xai": "xai_grok",
    "xai-grok": "xai_grok",
    "copilot": "github_copilot",
    "github": "github_copilot",
    "github-copilot": "github_copilot",
}
EXIT_INTERRUPTED = 130


def add_provider_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Add ``provider`` and its actions to the top-level sub-parsers."""
    provider = commands.add_parser(
        "provider",
        parents=[common],
        help="sign in to ChatGPT (Codex), xAI Grok or GitHub Copilot (OAuth, no API key)",
    )
    actions = provider.add_subparsers(dest="provider_command", metavar="ACTION", required=True)
    login = actions.add_parser(
        "login",
        parents=[common],
        help="sign in (openai-codex, xai-grok: browser; github-copilot: code)",
    )
    login.add_argument("name", help="openai-codex, xai-grok or github-copilot")
    login.add_argument(
        "--no-browser",
        action="store_true",
        help="only print the address to open (do not start a browser)",
    )
    logout = actions.add_parser("logout", parents=[common], help="forget a sign-in")
    logout.add_argument("name", help="openai-codex, xai-grok or github-copilot")
    status = actions.add_parser("status", parents=[common], help="who is signed in")
    status.add_argument("name", nargs="?", help="one provider (default: all three)")


def _oauth_name(name: str) -> str | None:
    from desktop.core.providers.oauth.accounts import oauth_spec

    spec = oauth_spec(ALIASES.get(name.strip().lower(), name))
    return spec.name if spec else None


def _unknown(name: str) -> int:
    return fail(
        f"{name!r} is not a provider you sign in to; use openai-codex (ChatGPT), xai-grok or "
        "github-copilot. Providers with API keys use 'nanobot-desktop keys set NAME'."
    )


def _can_open_browser() -> bool:
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def run_provider(args: argparse.Namespace) -> int:
    """Dispatch the ``provider`` actions."""
    from desktop.core.config.provider_registry import find_by_name
    from desktop.core.config.secrets import KeyringUnavailable, SecretStore
    from desktop.core.providers.oauth.accounts import OAUTH_PROVIDERS, describe, signed_in

    config = load(args)
    if config is None:
        return EXIT_USAGE
    store = SecretStore()
    action = args.provider_command
    if action == "status":
        names = list(OAUTH_PROVIDERS)
        if args.name:
            chosen = _oauth_name(args.name)
            if chosen is None:
                return _unknown(args.name)
            names = [chosen]
        for name in names:
            spec = find_by_name(name)
            assert spec is not None
            try:
                text = describe(signed_in(name, store))
            except KeyringUnavailable as exc:
                text = f"unknown: {exc}"
            print(f"{name.replace('_', '-')}  {spec.display_name}: {text}")
        return EXIT_OK
    found = _oauth_name(args.name)
    if found is None:
        return _unknown(args.name)
    name = found
    spec = find_by_name(name)
    assert spec is not None
    if action == "logout":
        from desktop.core.providers.oauth.accounts import sign_out

        try:
            existed = asyncio.run(sign_out(name, store))
        except KeyringUnavailable as exc:
            return fail(str(exc), EXIT_FAILED)
        print(
            f"Signed out of {spec.display_name}."
            if existed
            else f"Nobody was signed in to {spec.display_name}."
        )
        return EXIT_OK
    return _login(name, spec.display_name, config, store, browser=not args.no_browser)


def _login(name: str, display: str, config: Any, store: Any, *, browser: bool) -> int:
    from desktop.core.config.secrets import KeyringUnavailable
    from desktop.core.providers.oauth.accounts import sign_in
    from desktop.core.providers.oauth.flow import LoginError, LoginPrompt

    usable, backend = store.backend_status()
    if not usable:
        return fail(
            f"No usable OS keyring on this system ({backend}); the sign-in would have nowhere "
            "to be kept. Nothing was done.",
            EXIT_FAILED,
        )

    def show(prompt: LoginPrompt) -> None:
        if prompt.kind == "device":
            print(f"To sign in to {display}, open {prompt.url}")
            print(f"and enter the code: {prompt.user_code}")
            minutes = max(1, round(prompt.expires_in / 60))
            print(f"Waiting for you to enter it (the code works for {minutes} minutes)…")
        else:
            print(f"To sign in to {display}, open this address in your browser:")
            print(prompt.url)
            print("Waiting for the browser to come back (Ctrl-C to stop)…")
        sys.stdout.flush()
        if browser and _can_open_browser():
            import webbrowser

            try:
                webbrowser.open(prompt.url)
            except Exception:  # noqa: BLE001 - no browser: the address is printed above
                pass

    try:
        tokens = asyncio.run(sign_in(name, store, config, on_prompt=show))
    except KeyboardInterrupt:
        print("Sign-in stopped; nothing was stored.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except LoginError as exc:
        return fail(f"{exc} Nothing was stored.", EXIT_FAILED)
    except KeyringUnavailable as exc:
        return fail(f"Signed in, but the sign-in could not be kept: {exc}", EXIT_FAILED)
    who = tokens.account or "your account"
    print(f"Signed in to {display} as {who}. The sign-in is kept in the OS keyring ({backend}).")
    prefix = name.replace("_", "-")
    print(f"Use it with a model like '{prefix}/{_example(name)}' (agents.defaults.model).")
    return EXIT_OK


def _example(name: str) -> str:
    return "gpt-5.1-codex" if name == "openai_codex" else "gpt-4.1"
