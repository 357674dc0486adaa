"""``nanobot-desktop status``."""

from __future__ import annotations

import argparse
import sys
from importlib import metadata

from desktop import __version__
from desktop.cli.common import EXIT_OK, EXIT_USAGE, load
from desktop.core.config.loader import config_origin
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.factory import resolve_choice
from desktop.core.providers.matching import ProviderNotFound


def run_status(args: argparse.Namespace) -> int:  # noqa: C901  # one printed fact per branch
    """Print where things are, which provider/key would be used and whether commands run in
    the sandbox. Never prints a key."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    origin = config_origin(config)
    store = SecretStore()
    usable, backend = store.backend_status()
    defaults = config.agents.defaults
    try:
        litellm_version = metadata.version("litellm")
    except metadata.PackageNotFoundError:
        litellm_version = "not installed"
    rows = [
        ("version", f"nanobot-desktop {__version__} (litellm {litellm_version})"),
        (
            "config",
            f"{origin.path}" + ("" if origin.existed else " (not created yet; defaults in use)"),
        ),
        ("workspace", str(config.workspace_path)),
        ("model", defaults.model),
        ("timezone", defaults.effective_timezone),
        ("keyring", backend if usable else f"unavailable: {backend}"),
    ]
    try:
        choice, key = resolve_choice(config, store)
    except ProviderNotFound as exc:
        rows.append(("provider", f"none: {exc}"))
    else:
        rows.append(("provider", f"{choice.spec.display_name} ({choice.reason})"))
        rows.append(("routed model", choice.model))
        if choice.api_base:
            rows.append(("api base", choice.api_base))
        if choice.spec.oauth:
            cli = choice.spec.name.replace("_", "-")
            rows.append(
                (
                    "sign-in",
                    key.detail
                    if key.found
                    else f"not signed in: run 'nanobot-desktop provider login {cli}'",
                )
            )
        elif key.found:
            rows.append(("key", f"available from {key.detail}"))
        elif choice.spec.needs_key:
            rows.append(("key", f"missing: run 'nanobot-desktop keys set {choice.section}'"))
        else:
            rows.append(("key", "not needed"))
    from desktop.core.config.provider_registry import find_by_name
    from desktop.core.providers.factory import oauth_key
    from desktop.core.providers.oauth.accounts import OAUTH_PROVIDERS

    for name in OAUTH_PROVIDERS:  # sign-ins other than the chosen provider's, when there are
        spec = find_by_name(name)
        signed = oauth_key(name, store) if usable else None
        if spec is not None and signed is not None and signed.found:
            rows.append((spec.display_name, signed.detail))
    from desktop.cli.sandbox_note import sandbox_report
    from desktop.core.security.sandbox import sandbox_status

    line, warning = sandbox_report(config, sandbox_status())
    rows.append(("sandbox", line))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    if warning is not None:
        print(f"warning: {warning}", file=sys.stderr)
    return EXIT_OK
