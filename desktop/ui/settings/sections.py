"""The Settings tab's sections, in sidebar order (its pages and the search use them)."""

from __future__ import annotations

# section name → (sidebar label, module, class); pages are built when first shown.
SECTIONS: dict[str, tuple[str, str, str]] = {
    "providers": ("Providers", "desktop.ui.settings.providers_page", "ProvidersPage"),
    "agent": ("Agent", "desktop.ui.settings.agent_page", "AgentPage"),
    "tools": ("Tools & safety", "desktop.ui.settings.tools_page", "ToolsPage"),
    "mcp": ("MCP servers", "desktop.ui.settings.mcp_page", "MCPPage"),
    "channels": ("Channels", "desktop.ui.settings.channels_page", "ChannelsPage"),
    "dream": ("Dream & heartbeat", "desktop.ui.settings.dream_page", "DreamPage"),
    "usage": ("Usage & budgets", "desktop.ui.settings.usage_page", "UsagePage"),
    "automations": ("Automations", "desktop.ui.settings.automations_page", "AutomationsPage"),
    "appearance": ("Appearance & startup", "desktop.ui.settings.appearance_page", "AppearancePage"),
}

#: Old section names still accepted by ``show_section`` (links, tray actions, tests).
ALIASES: dict[str, str] = {"reminders": "automations"}
