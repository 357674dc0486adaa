"""MCP server entries for the settings (no Qt): Claude-Desktop JSON import, command lines,
enable/disable, and which edits need the person's approval before a launch."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from desktop.core.config.schema import MCPServerConfig
from desktop.core.tools.mcp.status import server_enabled
from desktop.core.tools.mcp.transport import TransportConfigError, detect_transport
from desktop.core.utils.i18n import QT_TR_NOOP

_SECRET_ENV = re.compile(r"(?i)(key|token|secret|passw|auth|credential)")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: What a server name may be (the message of :func:`check_name`; marked for translation).
NAME_RULE = QT_TR_NOOP(
    "use letters, digits, '_', '.' or '-' (up to 64 characters), starting with a letter or digit"
)


def _same(text: str) -> str:
    return text


class EntryError(ValueError):
    """The pasted text is not a usable ``mcpServers`` JSON (the message says why).

    Args:
        template: The message, a text marked for translation; ``{fields}`` when any are given.
        **fields: Its fields: data (names, what the JSON parser said) shown as they are, except
            ``problem``, a marked text too.
    """

    def __init__(self, template: str, **fields: str) -> None:
        self.template = template
        self.fields = fields
        super().__init__(template.format(**fields) if fields else template)

    def words(self, translate: Callable[[str], str] = _same) -> str:
        """The message, its text (and ``problem``) passed through ``translate``."""
        if not self.fields:
            return translate(self.template)
        fields = dict(self.fields)
        if "problem" in fields:
            fields["problem"] = translate(fields["problem"])
        return translate(self.template).format(**fields)


def check_name(name: str) -> str:
    """A server name: letters, digits, ``_ . -``; up to 64 characters.

    Raises:
        ValueError: The name is not usable.
    """
    name = name.strip()
    if not _NAME.match(name):
        raise ValueError(NAME_RULE)
    return name


def parse_servers(text: str) -> dict[str, MCPServerConfig]:  # noqa: C901  # the three accepted JSON shapes, each validated
    """Servers from Claude-Desktop JSON: ``{"mcpServers": {...}}``, a bare ``{name: entry}``
    mapping, or a whole nanobot config (``tools.mcpServers``).

    Raises:
        EntryError: Not JSON, no servers, or an entry that does not fit.
    """
    text = text.strip()
    if not text:
        raise EntryError(QT_TR_NOOP("Paste the JSON first."))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EntryError(
            QT_TR_NOOP("Not valid JSON: {detail} (line {line}, column {column})."),
            detail=exc.msg,
            line=str(exc.lineno),
            column=str(exc.colno),
        ) from None
    if not isinstance(data, dict):
        raise EntryError(QT_TR_NOOP('Expected a JSON object like {"mcpServers": {...}}.'))
    servers: Any = data.get("mcpServers")
    if servers is None and isinstance(data.get("tools"), dict):
        servers = data["tools"].get("mcpServers") or data["tools"].get("mcp_servers")
    if servers is None:
        looks_like_entries = data and all(
            isinstance(v, dict) and ("command" in v or "url" in v) for v in data.values()
        )
        servers = data if looks_like_entries else None
    if not isinstance(servers, dict) or not servers:
        raise EntryError(
            QT_TR_NOOP('No servers found: expected {"mcpServers": {"name": {"command": ...}}}.')
        )
    result: dict[str, MCPServerConfig] = {}
    for name, entry in servers.items():
        try:
            check_name(str(name))
        except ValueError as exc:
            raise EntryError(
                QT_TR_NOOP("Server name {name}: {problem}."), name=repr(name), problem=str(exc)
            ) from None
        if not isinstance(entry, dict):
            raise EntryError(
                QT_TR_NOOP('Server {name}: expected an object with "command" or "url".'),
                name=repr(name),
            )
        try:
            config = MCPServerConfig.model_validate(entry)
            detect_transport(config)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            raise EntryError(
                QT_TR_NOOP("Server {name}: {where}: {detail}."),
                name=repr(name),
                where=where,
                detail=str(first.get("msg")),
            ) from None
        except TransportConfigError as exc:
            raise EntryError(
                QT_TR_NOOP("Server {name}: {detail}."), name=repr(name), detail=str(exc)
            ) from None
        result[str(name)] = config
    return result


def command_line(config: MCPServerConfig) -> str:
    """What a stdio entry runs, as one shell-quoted line."""
    return shlex.join([config.command, *config.args])


def launch_summary(config: MCPServerConfig, translate: Callable[[str], str] = _same) -> str:
    """What will be started or contacted, for the approval step (its words passed through
    ``translate``: the window's ``tr``)."""
    kind = transport_of(config)
    if kind == "stdio":
        lines = [translate(QT_TR_NOOP("Runs: {command}")).format(command=command_line(config))]
        if config.env:
            shown = [
                f"{k}=•••" if _SECRET_ENV.search(k) else f"{k}={config.env[k]}"
                for k in sorted(config.env)
            ]
            lines.append(
                translate(QT_TR_NOOP("With environment: {variables}")).format(
                    variables=" ".join(shown)
                )
            )
        return "\n".join(lines)
    if config.headers:
        return translate(QT_TR_NOOP("Connects to: {url} (headers: {names})")).format(
            url=config.url, names=", ".join(sorted(config.headers))
        )
    return translate(QT_TR_NOOP("Connects to: {url}")).format(url=config.url)


def transport_of(config: MCPServerConfig) -> str:
    """``stdio`` / ``sse`` / ``streamableHttp``, or ``""`` when the entry is incomplete."""
    try:
        return detect_transport(config)
    except TransportConfigError:
        return ""


def needs_approval(new: MCPServerConfig, old: MCPServerConfig | None) -> bool:
    """A stdio entry that is new, or whose command, arguments or environment changed."""
    if transport_of(new) != "stdio":
        return False
    if old is None or transport_of(old) != "stdio":
        return True
    return (new.command, list(new.args), dict(new.env)) != (
        old.command,
        list(old.args),
        dict(old.env),
    )


def with_enabled(config: MCPServerConfig, enabled: bool) -> MCPServerConfig:
    """A copy switched on (the ``enabled`` key removed) or off (``"enabled": false``)."""
    data = config.model_dump(by_alias=True, exclude_unset=False)
    data.pop("enabled", None)
    if not enabled:
        data["enabled"] = False
    return MCPServerConfig.model_validate(data)


def is_enabled(config: MCPServerConfig) -> bool:
    """Whether the entry is switched on (and has tools enabled)."""
    return server_enabled(config) and bool(config.enabled_tools)
