"""Secrets that live in config fields (channel tokens, the web search key, the API server's
token), kept in the keyring.

No Qt here. Such a secret is stored in the OS keyring under the service of the
:class:`~desktop.core.config.secrets.SecretStore` with the field's JSON path as the user name
(``channels.telegram.token``). In memory the config holds the value so the running code that
reads the field (web search, a channel) works; on disk the field keeps what the file had
before — an empty string, or a ``${VAR}`` reference — through the loader's "preserved raw
value" mechanism (:class:`~desktop.core.config.loader.ConfigOrigin`), the same one that keeps
environment overrides off the disk. Call :func:`inject_stored_secrets` once after loading the
config so stored secrets are in effect from the start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import get_args

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from desktop.core.config.loader import config_origin
from desktop.core.config.mcp_headers import inject_header_secrets
from desktop.core.config.schema import ChannelsConfig, Config
from desktop.core.config.secrets import KeyringUnavailable, SecretStore
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret

WEB_SEARCH_KEY = "tools.web.search.api_key"
API_TOKEN = "api.api_key"  # the bearer token of ``serve`` (keyring user name ``api.apiKey``)
_SECRET_NAME = re.compile(r"(token|secret|password|api_key|encrypt_key)$")


def is_secret_field(name: str) -> bool:
    """Whether a config field (snake_case) holds a credential."""
    return bool(_SECRET_NAME.search(name))


def is_secret_model_field(model: type[BaseModel], name: str) -> bool:
    """Whether field ``name`` of ``model`` holds a credential: a secret's name and text (a
    switch such as ``websocketRequiresToken`` is not one)."""
    info = model.model_fields.get(name)
    if info is None or not is_secret_field(name):
        return False
    annotation = info.annotation
    return annotation is str or set(get_args(annotation)) == {str, type(None)}  # str | None


def channel_names() -> list[str]:
    """The channel sections of the schema, in schema order."""
    return [
        name
        for name, info in ChannelsConfig.model_fields.items()
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
    ]


def channel_secret_paths(channel: str) -> list[str]:
    """Dotted snake_case paths of the secret fields of ``channel``."""
    model = ChannelsConfig.model_fields[channel].annotation
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return [
        f"channels.{channel}.{name}"
        for name in model.model_fields
        if is_secret_model_field(model, name)
    ]


def all_secret_paths() -> list[str]:
    """Every field kept in the keyring: the web search key, the API token and channel
    credentials."""
    return [WEB_SEARCH_KEY, API_TOKEN] + [
        p for ch in channel_names() for p in channel_secret_paths(ch)
    ]


def json_path(path: str) -> tuple[str, ...]:
    """The camelCase JSON path of a dotted snake_case path."""
    return tuple(to_camel(part) for part in path.split("."))


def keyring_name(path: str) -> str:
    """The keyring user name of a secret field (its camelCase JSON path, dotted)."""
    return ".".join(json_path(path))


def _get(config: Config, path: str) -> str:
    node: object = config
    for part in path.split("."):
        node = getattr(node, part)
    return node if isinstance(node, str) else ""


def _set(config: Config, path: str, value: str) -> None:
    *parents, leaf = path.split(".")
    node: object = config
    for part in parents:
        node = getattr(node, part)
    setattr(node, leaf, value)


@dataclass(frozen=True)
class SecretState:
    """Where a secret field's value comes from. ``repr`` never shows the value.

    Attributes:
        path: Dotted snake_case path.
        source: ``keyring``, ``config-ref`` (a ``${VAR}`` reference in the file),
            ``config`` (plaintext in the file), or ``none``.
        detail: Words for a person (a :class:`~desktop.core.utils.i18n.Phrase`: the window
            translates it).
    """

    path: str
    source: str
    detail: str
    value: str = field(default="", repr=False)

    @property
    def found(self) -> bool:
        """Whether there is a value."""
        return bool(self.value)


def _raw_on_disk(config: Config, path: str) -> tuple[bool, object]:
    """``(known, raw)``: the file's own value when the loader recorded one."""
    preserved = config_origin(config).preserved
    entry = preserved.get(json_path(path)) or preserved.get(tuple(path.split(".")))
    return (entry is not None, entry[0] if entry is not None else None)


def describe(config: Config, path: str, stored: str | None, service: str) -> SecretState:
    """Where ``path``'s value comes from, given what the keyring holds (``stored``)."""
    if stored:
        where = Phrase(QT_TR_NOOP("OS keyring ({entry})"), entry=f"{service}/{keyring_name(path)}")
        return SecretState(path, "keyring", where, stored)
    value = _get(config, path)
    known, raw = _raw_on_disk(config, path)
    if value and known and isinstance(raw, str) and "${" in raw:
        where = Phrase(QT_TR_NOOP("config.json reference {reference}"), reference=raw)
        return SecretState(path, "config-ref", where, value)
    if value and known:
        variable = "NANOBOT_" + "__".join(part.upper() for part in path.split("."))
        where = Phrase(QT_TR_NOOP("environment override {variable}"), variable=variable)
        return SecretState(path, "env", where, value)
    if value:
        where = Phrase(QT_TR_NOOP("config.json (plaintext) — save it to move it to the keyring"))
        return SecretState(path, "config", where, value)
    return SecretState(path, "none", Phrase(QT_TR_NOOP("not set")))


async def aresolve(config: Config, store: SecretStore, path: str) -> SecretState:
    """Async: where ``path``'s value comes from (keyring first)."""
    try:
        stored = await store.aget(keyring_name(path))
    except KeyringUnavailable:
        stored = None
    return describe(config, path, stored, store.service)


def hold_in_memory(config: Config, path: str, value: str) -> None:
    """Put ``value`` into the live config while the file keeps its own (non-secret) value.

    A plaintext value in the file is replaced by ``""`` on the next save; a ``${VAR}``
    reference stays.
    """
    register_secret(value)
    known, raw = _raw_on_disk(config, path)
    keep = raw if known and isinstance(raw, str) and "${" in raw else ""
    preserved = config_origin(config).preserved
    preserved.pop(tuple(path.split(".")), None)
    preserved[json_path(path)] = (keep, value)
    _set(config, path, value)


async def astore(config: Config, store: SecretStore, path: str, value: str) -> None:
    """Store ``value`` in the keyring and hold it in memory (save the config afterwards so a
    plaintext copy leaves the file).

    Raises:
        KeyringUnavailable: No keyring; nothing changed.
        ValueError: Empty value.
    """
    value = value.strip()
    await store.aset(keyring_name(path), value)
    hold_in_memory(config, path, value)


async def adelete(config: Config, store: SecretStore, path: str) -> bool:
    """Remove the stored value and clear the field (save the config afterwards).

    Raises:
        KeyringUnavailable: No keyring and no session value.
    """
    existed = await store.adelete(keyring_name(path))
    known, raw = _raw_on_disk(config, path)
    keep = raw if known and isinstance(raw, str) and "${" in raw else ""
    config_origin(config).preserved.pop(json_path(path), None)
    _set(config, path, "")
    if keep:
        config_origin(config).preserved[json_path(path)] = (keep, "")
    return existed


async def inject_stored_secrets(config: Config, store: SecretStore) -> list[str]:
    """Load every stored secret field into the live config (call once at start-up), and the
    secret headers of MCP servers (:mod:`desktop.core.config.mcp_headers`).

    Returns:
        The paths that got a value from the keyring. Never raises for a missing keyring.
    """
    usable, _ = await _backend(store)
    if not usable:
        return []
    loaded: list[str] = []
    for path in all_secret_paths():
        try:
            value = await store.aget(keyring_name(path))
        except KeyringUnavailable:
            return loaded
        if value:
            hold_in_memory(config, path, value)
            loaded.append(path)
    try:
        headers = await inject_header_secrets(config, store)
    except KeyringUnavailable:
        return loaded
    return loaded + [f"tools.mcp_servers.{name}" for name in headers]


async def _backend(store: SecretStore) -> tuple[bool, str]:
    from desktop.core.utils.threads import run_daemon

    return await run_daemon(store.backend_status, "keyring-probe")
