"""Builtin tools, one file per family, their registry and the MCP client (agent-core issue)."""
