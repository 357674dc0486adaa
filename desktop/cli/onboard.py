"""``nanobot-desktop onboard``: the headless first run (config and workspace), as nanobot's.

Follows ``nanobot onboard`` (nanobot-ai 0.3.5) where it applies:

- No config yet: the defaults are written (``--workspace`` is saved into it).
- A config exists: nothing is overwritten without asking. The question is nanobot's
  ("Overwrite?", default No): *yes* resets it to the defaults (we keep the old file beside it as
  ``config.json.bak``), *no* refreshes it — existing values kept, fields that are new since it
  was written added. ``--refresh`` answers *no* and ``--force`` answers *yes* without asking;
  with no terminal to ask on, the answer is *no*.
- The workspace is created and the templates synced (which creates the memory repository).

nanobot's ``--wizard`` is a full-screen menu; here ``--provider``, ``--model`` and ``--api-base``
set what its Quick Start asks for, and the provider's key goes to the OS keyring, as
everywhere in this app (prompted without echo on a terminal, or read from standard input with
``--key-stdin``), never into the file.
"""

from __future__ import annotations

import argparse
import getpass
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.cli.common import EXIT_FAILED, EXIT_OK, fail

if TYPE_CHECKING:
    from desktop.core.config.provider_spec import ProviderSpec
    from desktop.core.config.schema import Config


def add_onboard_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``onboard`` on the top-level sub-command parser."""
    onboard = commands.add_parser(
        "onboard",
        parents=[common],
        help="first run without the window: write the config and set up the workspace",
        description="Create the config (nanobot's defaults) and the workspace with its "
        "templates. An existing config is never overwritten without asking.",
    )
    answer = onboard.add_mutually_exclusive_group()
    answer.add_argument(
        "--force",
        action="store_true",
        help="overwrite an existing config with the defaults without asking (a copy is kept)",
    )
    answer.add_argument(
        "--refresh",
        action="store_true",
        help="keep an existing config's values and add new fields, without asking",
    )
    onboard.add_argument("--provider", help="provider to use, e.g. openai, anthropic, custom")
    onboard.add_argument("--model", help="default model, e.g. gpt-4o-mini")
    onboard.add_argument("--api-base", metavar="URL", help="the provider's API base URL")
    onboard.add_argument(
        "--key-stdin",
        action="store_true",
        help="read the provider's API key from standard input (stored in the OS keyring)",
    )


def _ask_overwrite(path: Path) -> bool:
    """nanobot's question for an existing config; No unless a person answers yes."""
    print(f"Config already exists at {path}")
    print("  y = overwrite with defaults (existing values will be lost; a copy is kept)")
    print("  N = refresh config, keeping existing values and adding new fields")
    if not sys.stdin.isatty():
        print("Overwrite? [y/N]: N (no terminal to ask on; use --force to overwrite)")
        return False
    try:
        answer = input("Overwrite? [y/N]: ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _read_key(display: str, from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().strip()
    if not sys.stdin.isatty():
        return ""
    try:
        return getpass.getpass(f"API key for {display} (input hidden, Enter to skip): ").strip()
    except EOFError:
        return ""


def _config_for(args: argparse.Namespace, path: Path) -> tuple[Config, bool] | int:
    """The config to save and whether it replaces an existing one with the defaults (new
    defaults, a reset, or the refreshed existing config); an exit code on failure."""
    from desktop.core.config.errors import ConfigError
    from desktop.core.config.loader import load_config
    from desktop.core.config.schema import Config

    if not path.exists():
        return Config(), False
    overwrite = args.force or (not args.refresh and _ask_overwrite(path))
    if overwrite:
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
        print(f"(the previous config is kept as {backup})")
        return Config(), True
    try:
        return load_config(path), False
    except ConfigError as exc:
        return fail(
            f"cannot refresh the config: {exc}\nThe file was not changed; fix it, or run "
            "'nanobot-desktop onboard --force' to start from the defaults."
        )


def run_onboard(args: argparse.Namespace) -> int:
    """Write the config, create the workspace, sync its templates, store the key."""
    from desktop.core.config.errors import ConfigError
    from desktop.core.config.loader import save_config
    from desktop.core.config.paths import default_config_path

    explicit = bool(getattr(args, "config", None))
    path = Path(args.config).expanduser() if explicit else default_config_path()
    spec = _provider_of(args)
    if isinstance(spec, int):
        return spec
    existed = path.exists()
    chosen = _config_for(args, path)
    if isinstance(chosen, int):
        return chosen
    config, reset = chosen
    refused = _apply_flags(config, args, spec)
    if refused is not None:
        return refused
    try:
        save_config(config, path)
    except (ConfigError, OSError) as exc:
        return fail(f"cannot write {path}: {exc}", EXIT_FAILED)
    if not existed:
        print(f"✓ Created config at {path}")
    elif reset:
        print(f"✓ Config reset to defaults at {path}")
    else:
        print(f"✓ Config refreshed at {path} (existing values preserved)")
    _prepare_workspace(config.workspace_path)
    if spec is not None:
        failed = _sign_in_or_store_key(spec, from_stdin=args.key_stdin)
        if failed is not None:
            return failed
    suffix = f' --config "{path}"' if explicit else ""
    print(
        f"\n✓ nanobot Desktop is ready. Chat in the terminal: nanobot-desktop agent{suffix}, "
        "or open the window:"
    )
    print("  nanobot-desktop" + suffix)
    return EXIT_OK


def _provider_of(args: argparse.Namespace) -> ProviderSpec | int | None:
    """The provider ``--provider`` names (``None``: no flag), or the exit code of a usage
    error in the provider flags (an unknown name, ``--key-stdin`` or ``--api-base`` without
    one, a key for a provider one signs in to)."""
    from desktop.core.config.provider_registry import PROVIDERS, find_by_name

    spec = None
    if args.provider:
        spec = find_by_name(args.provider)
        if spec is None:
            names = ", ".join(s.name for s in PROVIDERS)
            return fail(f"unknown provider {args.provider!r}; known providers: {names}")
    if args.key_stdin and spec is None:
        return fail("--key-stdin needs --provider")
    if args.key_stdin and spec is not None and spec.oauth:
        cli = spec.name.replace("_", "-")
        return fail(
            f"{spec.display_name} takes no key; sign in with 'nanobot-desktop provider login {cli}'"
        )
    if args.api_base and spec is None:
        return fail("--api-base needs --provider")
    return spec


def _apply_flags(config: Config, args: argparse.Namespace, spec: ProviderSpec | None) -> int | None:
    """``--workspace``, ``--provider``, ``--api-base`` and ``--model`` into ``config``; the
    exit code when one does not fit."""
    defaults = config.agents.defaults
    if getattr(args, "workspace", None):
        defaults.workspace = str(Path(args.workspace).expanduser())
    if spec is not None:
        defaults.provider = spec.name
        section = config.provider_config(spec.name)
        if args.api_base:
            if section is None:
                return fail(f"{spec.display_name} has no API base setting")
            section.api_base = args.api_base
    if args.model:
        defaults.model = args.model
    return None


def _prepare_workspace(workspace: Path) -> None:
    """Create the workspace folder and its starter files (those missing), saying which."""
    from desktop.core.memory.templates import sync_workspace_templates

    if not workspace.exists():
        workspace.mkdir(parents=True, exist_ok=True)
        print(f"✓ Created workspace at {workspace}")
    for name in sync_workspace_templates(workspace):
        print(f"  Created {name}")


def _sign_in_or_store_key(spec: ProviderSpec, *, from_stdin: bool) -> int | None:
    """Say how to sign in (OAuth), or read the key and store it in the keyring; the exit code
    when it could not be stored."""
    from desktop.core.config.secrets import KeyringUnavailable, SecretStore

    if spec.oauth:
        cli = spec.name.replace("_", "-")
        print(f"Sign in to {spec.display_name} with: nanobot-desktop provider login {cli}")
        return None
    if not (spec.needs_key or from_stdin):
        return None
    key = _read_key(spec.display_name, from_stdin)
    if not key:
        print(f"No key entered; add it later with: nanobot-desktop keys set {spec.name}")
        return None
    try:
        SecretStore().set(spec.name, key)
    except KeyringUnavailable as exc:
        return fail(
            f"{exc}\nThe key was not stored; the config and workspace are ready.", EXIT_FAILED
        )
    print(f"✓ Stored the {spec.display_name} key in the OS keyring")
    return None
