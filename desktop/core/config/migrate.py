"""Move plaintext provider keys from config.json into the OS keyring."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic.alias_generators import to_snake

from desktop.core.config.loader import read_json_object
from desktop.core.config.secrets import SecretStore
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.redact import register_secret


@dataclass
class MigrationReport:
    """What a migration did.

    Attributes:
        moved: Providers whose key now lives in the keyring and left the file.
        skipped: ``(provider, reason)`` for keys left where they were.
    """

    moved: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


_KEY_NAMES = ("apiKey", "api_key")


def _is_plaintext(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and "${" not in value


def _plaintext_in(data: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """``(section → plaintext key, [(section, reason)] for sections that cannot be moved)``."""
    providers = data.get("providers")
    found: dict[str, str] = {}
    conflicts: list[tuple[str, str]] = []
    if not isinstance(providers, dict):
        return found, conflicts
    for section, body in providers.items():
        if not isinstance(body, dict):
            continue
        values = {body[name].strip() for name in _KEY_NAMES if _is_plaintext(body.get(name))}
        for value in values:
            register_secret(value)
        if len(values) > 1:
            conflicts.append((section, "apiKey and api_key hold different keys; keep only one"))
        elif values:
            found[section] = values.pop()
    return found, conflicts


def plaintext_keys(path: Path) -> dict[str, str]:
    """Provider section name → plaintext ``apiKey`` found in the file (``${VAR}`` excluded)."""
    data, _ = read_json_object(path)
    return _plaintext_in(data)[0]


def migrate_plaintext_keys(path: Path, store: SecretStore) -> MigrationReport:
    """Store every plaintext key in the keyring, verify it, then drop it from the file.

    The file is read once and rewritten once, atomically (mode ``0o600``), and only for keys
    that were read back from the keyring itself unchanged (a key held for this session only
    does not count); everything else in the file is kept as it was in meaning.

    Raises:
        ConfigError: The file is not valid JSON (it is left untouched).
        KeyringUnavailable: No keyring; the file was not changed.
    """
    report = MigrationReport()
    data, _ = read_json_object(path)
    keys, conflicts = _plaintext_in(data)
    report.skipped.extend((to_snake(section), reason) for section, reason in conflicts)
    if not keys:
        return report
    providers = data["providers"]
    for section, value in keys.items():
        provider = to_snake(section)
        existing = store.get_stored(provider)
        if existing and existing != value:
            report.skipped.append(
                (provider, "the keyring already holds a different key; remove one of them first")
            )
            continue
        if not existing:
            store.set(provider, value)
        if store.get_stored(provider) != value:
            report.skipped.append((provider, "the keyring did not return the stored key"))
            continue
        body = providers[section]
        for key_name in _KEY_NAMES:
            if key_name in body:
                body[key_name] = None
        report.moved.append(provider)
    if report.moved:
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o600)
    return report
