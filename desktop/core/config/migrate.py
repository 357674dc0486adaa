"""Move plaintext provider keys from config.json into the OS keyring."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

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


def plaintext_keys(path: Path) -> dict[str, str]:
    """Provider section name → plaintext ``apiKey`` found in the file (``${VAR}`` excluded)."""
    data, _ = read_json_object(path)
    providers = data.get("providers")
    found: dict[str, str] = {}
    if not isinstance(providers, dict):
        return found
    for section, body in providers.items():
        if not isinstance(body, dict):
            continue
        for key_name in ("apiKey", "api_key"):
            value = body.get(key_name)
            if isinstance(value, str) and value.strip() and "${" not in value:
                register_secret(value.strip())
                found[section] = value.strip()
    return found


def migrate_plaintext_keys(path: Path, store: SecretStore) -> MigrationReport:
    """Store every plaintext key in the keyring, verify it, then drop it from the file.

    The file is rewritten once, atomically, and only for keys that were read back from the
    keyring unchanged; everything else in the file is kept byte-for-byte in meaning.

    Raises:
        ConfigError: The file is not valid JSON (it is left untouched).
        KeyringUnavailable: No keyring; nothing was changed.
    """
    report = MigrationReport()
    keys = plaintext_keys(path)
    if not keys:
        return report
    data, _ = read_json_object(path)
    providers = data["providers"]
    for section, value in keys.items():
        provider = to_snake(section)
        existing = store.get(provider)
        if existing and existing != value:
            report.skipped.append(
                (provider, "the keyring already holds a different key; remove one of them first")
            )
            continue
        if not existing:
            store.set(provider, value)
        if store.get(provider) != value:
            report.skipped.append((provider, "the keyring did not return the stored key"))
            continue
        body = providers[section]
        for key_name in ("apiKey", "api_key"):
            if key_name in body:
                body[key_name] = None
        report.moved.append(provider)
    if report.moved:
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o600)
    return report
