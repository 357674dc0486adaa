"""Path and network guards used by tools (agent-core issue)."""
