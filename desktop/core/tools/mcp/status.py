"""The per-server status the GUI shows; importing it does not load the MCP SDK."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from desktop.core.config.schema import MCPServerConfig

ServerState = Literal["idle", "connecting", "connected", "failed", "disabled"]


@dataclass(frozen=True)
class MCPServerStatus:
    """A snapshot of one server for the GUI.

    Attributes:
        name: The configured server name.
        transport: ``stdio``, ``sse``, ``streamableHttp``, or ``""`` when the entry is invalid.
        state: ``idle`` (not tried yet, or closed), ``connecting``, ``connected``, ``failed``
            (retried at the next turn) or ``disabled`` (``enabledTools`` is empty, or the
            entry says ``"enabled": false``).
        tool_count: Tools registered for the model (tools, resources and prompts).
        last_error: Why the last attempt failed or the connection was lost (redacted).
        stderr_tail: The last lines a stdio server wrote to stderr (redacted).
    """

    name: str
    transport: str
    state: ServerState
    tool_count: int = 0
    last_error: str = ""
    stderr_tail: tuple[str, ...] = ()


def server_enabled(config: MCPServerConfig) -> bool:
    """Whether an entry is switched on: ``"enabled": false`` (a nanobot Desktop key kept among
    the entry's extra keys; the original nanobot ignores it) switches a server off."""
    return (config.model_extra or {}).get("enabled", True) is not False
