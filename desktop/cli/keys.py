"""``nanobot-desktop keys set|list|delete|migrate``."""

from __future__ import annotations

import argparse
import getpass
import sys

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load
from desktop.core.config.errors import ConfigError
from desktop.core.config.loader import config_origin
from desktop.core.config.migrate import migrate_plaintext_keys
from desktop.core.config.provider_registry import PROVIDERS, find_by_name
from desktop.core.config.provider_spec import ProviderSpec
from desktop.core.config.schema import Config
from desktop.core.config.secrets import KeyringUnavailable, SecretStore


def _read_key(display: str, from_stdin: bool) -> str:
    if from_stdin or not sys.stdin.isatty():
        return sys.stdin.readline().strip()
    return getpass.getpass(f"API key for {display} (input hidden): ").strip()


def run_keys(args: argparse.Namespace) -> int:
    """Dispatch the ``keys`` sub-commands."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    store = SecretStore()
    action = args.keys_command
    if action in ("set", "delete"):
        spec = find_by_name(args.provider)
        if spec is None:
            names = ", ".join(s.name for s in PROVIDERS)
            return fail(f"unknown provider {args.provider!r}; known providers: {names}")
        if spec.oauth:
            cli = spec.name.replace("_", "-")
            verb = "login" if action == "set" else "logout"
            return fail(
                f"{spec.display_name} is signed in to, not given a key: run "
                f"'nanobot-desktop provider {verb} {cli}'."
            )
        if action == "set":
            return _set(store, spec, from_stdin=args.stdin)
        return _delete(store, spec)
    if action == "list":
        return _list(store, config)
    if action == "migrate":
        return _migrate(store, config)
    return fail(f"unknown keys action {action}")


def _set(store: SecretStore, spec: ProviderSpec, *, from_stdin: bool) -> int:
    """``keys set``: read the key (hidden, or a line of standard input) and store it."""
    try:
        value = _read_key(spec.display_name, from_stdin)
    except (EOFError, KeyboardInterrupt):
        return fail("no key entered; nothing stored")
    if not value:
        return fail("no key entered; nothing stored")
    try:
        store.set(spec.name, value)
    except KeyringUnavailable as exc:
        return fail(f"{exc}\nNothing was stored.", EXIT_FAILED)
    print(f"Stored the {spec.display_name} key in the OS keyring ({store.backend_status()[1]}).")
    return EXIT_OK


def _delete(store: SecretStore, spec: ProviderSpec) -> int:
    """``keys delete``: remove the stored key, if there is one."""
    try:
        existed = store.delete(spec.name)
    except KeyringUnavailable as exc:
        return fail(str(exc), EXIT_FAILED)
    print(
        f"Removed the stored {spec.display_name} key."
        if existed
        else f"No stored key for {spec.display_name}."
    )
    return EXIT_OK


def _list(store: SecretStore, config: Config) -> int:
    """``keys list``: where each provider's key comes from (never the key)."""
    from desktop.core.providers.factory import oauth_key

    usable, backend = store.backend_status()
    print(f"keyring: {backend if usable else 'unavailable (' + backend + ')'}")
    width = max(len(s.name) for s in PROVIDERS)
    for spec in PROVIDERS:
        if spec.oauth:
            print(f"{spec.name.ljust(width)}  {oauth_key(spec.name, store).detail}")
            continue
        key = store.resolve(spec.name, config)
        where = key.detail if key.found else ("not needed" if not spec.needs_key else "not set")
        print(f"{spec.name.ljust(width)}  {where}")
    return EXIT_OK


def _migrate(store: SecretStore, config: Config) -> int:
    """``keys migrate``: move plaintext keys from the config file into the keyring."""
    path = config_origin(config).path
    if not path.exists():
        print(f"{path} does not exist; nothing to migrate.")
        return EXIT_OK
    try:
        report = migrate_plaintext_keys(path, store)
    except KeyringUnavailable as exc:
        return fail(f"{exc}\nNothing was changed.", EXIT_FAILED)
    except ConfigError as exc:
        return fail(f"cannot migrate: {exc}\nThe file was not changed.")
    if not report.moved and not report.skipped:
        print(f"No plaintext keys in {path}.")
    for name in report.moved:
        print(f"moved: {name} (now in the OS keyring; removed from {path.name})")
    for name, reason in report.skipped:
        print(f"left in place: {name}: {reason}")
    if report.moved:
        print(
            "Note: the original nanobot reads keys only from config.json; give it a "
            "${VAR} reference if you still run it."
        )
    return EXIT_FAILED if report.skipped else EXIT_OK
