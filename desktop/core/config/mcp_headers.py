"""Secret HTTP headers of MCP servers (``tools.mcpServers.<name>.headers``), kept in the keyring.

No Qt here. A header whose name says it carries a credential (``Authorization``,
``X-API-Key``, ``Cookie``, …) is stored in the OS keyring under the
:class:`~desktop.core.config.secrets.SecretStore`'s service with the user name
``tools.mcpServers.<server>.headers.<Header>``. The file keeps the header's name with an empty
value (or its ``${VAR}`` reference, which is never moved), so nanobot 0.3.5 still sees which
headers the server wants; in memory the config holds the value through the loader's
"preserved raw value" mechanism, the same one :mod:`~desktop.core.config.secret_fields` uses
for channel tokens. :func:`inject_header_secrets` (called by
:func:`~desktop.core.config.secret_fields.inject_stored_secrets`) fills the empty values at
start-up; :func:`store_header_secrets` moves typed values into the keyring before a save.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from desktop.core.config.loader import config_origin
from desktop.core.config.schema import Config, MCPServerConfig
from desktop.core.config.secrets import KeyringUnavailable, SecretStore
from desktop.core.utils.redact import register_secret

_SECRET_HEADER = re.compile(
    r"authorization|token|secret|passw|api[-_]?key|cookie|credential|session|signature",
    re.IGNORECASE,
)


def is_secret_header(name: str) -> bool:
    """Whether header ``name`` carries a credential (``Authorization``, ``X-Api-Key``, …)."""
    return bool(_SECRET_HEADER.search(name))


def keyring_name(server: str, header: str) -> str:
    """The keyring user name of header ``header`` of MCP server ``server``."""
    return f"tools.mcpServers.{server}.headers.{header}"


def _path(server: str, header: str) -> tuple[str, ...]:
    return ("tools", "mcpServers", server, "headers", header)


def _raw_on_disk(config: Config, server: str, header: str) -> str | None:
    """The file's own text for the header when the loader (or we) recorded one."""
    entry = config_origin(config).preserved.get(_path(server, header))
    return entry[0] if entry is not None and isinstance(entry[0], str) else None


def _is_reference(config: Config, server: str, header: str, value: str) -> bool:
    """Whether ``value`` is what a ``${VAR}`` reference in the file resolved to."""
    entry = config_origin(config).preserved.get(_path(server, header))
    return (
        entry is not None and isinstance(entry[0], str) and "${" in entry[0] and entry[1] == value
    )


def secret_headers(entry: MCPServerConfig) -> list[str]:
    """The names of ``entry``'s headers that carry credentials."""
    return [name for name in entry.headers if is_secret_header(name)]


def hold_header(
    config: Config, server: str, header: str, value: str, entry: MCPServerConfig | None = None
) -> None:
    """Put ``value`` into the live entry; the file keeps ``""`` (or its ``${VAR}``).

    ``entry``: the server's entry when it is not (yet) in ``config``.
    """
    register_secret(value)
    register_secret(value.removeprefix("Bearer ").strip())
    raw = _raw_on_disk(config, server, header)
    keep = raw if raw is not None and "${" in raw else ""
    config_origin(config).preserved[_path(server, header)] = (keep, value)
    entry = entry or config.tools.mcp_servers.get(server)
    if entry is not None:
        entry.headers[header] = value


async def store_header_secrets(
    config: Config, store: SecretStore, server: str, entry: MCPServerConfig | None = None
) -> list[str]:
    """Move the typed secret header values of ``server`` into the keyring (save afterwards).

    Values from a ``${VAR}`` reference stay where they are. Call it before saving, so the
    file gets empty values.

    Args:
        config: The live config (its origin records what the file keeps).
        store: The keyring.
        server: The server's name.
        entry: Its entry, when it is not in ``config`` yet (about to be saved).

    Returns:
        The headers now kept in the keyring.

    Raises:
        KeyringUnavailable: No keyring; the values stay in the config (plaintext).
    """
    entry = entry or config.tools.mcp_servers.get(server)
    if entry is None:
        return []
    stored: list[str] = []
    for header in secret_headers(entry):
        value = entry.headers[header]
        if not value.strip() or _is_reference(config, server, header, value):
            continue
        await store.aset(keyring_name(server, header), value)
        hold_header(config, server, header, value, entry)
        stored.append(header)
    return stored


async def forget_header_secrets(store: SecretStore, server: str, headers: Iterable[str]) -> None:
    """Delete the keyring entries of ``server``'s ``headers`` (never raises for no keyring)."""
    for header in headers:
        if not is_secret_header(header):
            continue
        try:
            await store.adelete(keyring_name(server, header))
        except KeyringUnavailable:
            return


async def inject_header_secrets(config: Config, store: SecretStore) -> list[str]:
    """Fill every empty secret header from the keyring (call once at start-up).

    A value in the file (plaintext or a ``${VAR}`` reference) wins over the keyring.

    Returns:
        ``server.header`` for each header that got its value from the keyring.

    Raises:
        KeyringUnavailable: The keyring failed while reading (what was read stays in effect).
    """
    loaded: list[str] = []
    for server, entry in config.tools.mcp_servers.items():
        for header in secret_headers(entry):
            if entry.headers[header]:
                continue
            value = await store.aget(keyring_name(server, header))
            if value:
                hold_header(config, server, header, value)
                loaded.append(f"{server}.{header}")
    return loaded
