"""MCP client: servers from ``tools.mcpServers`` as agent tools.

:class:`MCPManager` connects each configured server lazily (stdio, SSE or streamable HTTP),
wraps its tools, resources and prompts as ``mcp_<server>_…`` tools in the
:class:`~desktop.core.tools.registry.ToolRegistry`, and keeps a :class:`MCPServerStatus` per
server for the GUI. Importing this package is cheap; the SDK loads when a manager has servers.
"""

from desktop.core.tools.mcp.manager import MCPManager
from desktop.core.tools.mcp.status import MCPServerStatus, ServerState

__all__ = ["MCPManager", "MCPServerStatus", "ServerState"]
