"""The Settings tab's sections, in sidebar order (its pages and the search use them)."""

from __future__ import annotations

from desktop.core.utils.i18n import QT_TR_NOOP

# section name → (sidebar label, module, class); pages are built when first shown. The labels
# are marked for translation and shown through ``tr()``.
SECTIONS: dict[str, tuple[str, str, str]] = {
    "providers": (QT_TR_NOOP("Providers"), "desktop.ui.settings.providers_page", "ProvidersPage"),
    "agent": (QT_TR_NOOP("Agent"), "desktop.ui.settings.agent_page", "AgentPage"),
    "tools": (QT_TR_NOOP("Tools & safety"), "desktop.ui.settings.tools_page", "ToolsPage"),
    "mcp": (QT_TR_NOOP("MCP servers"), "desktop.ui.settings.mcp_page", "MCPPage"),
    "channels": (QT_TR_NOOP("Channels"), "desktop.ui.settings.channels_page", "ChannelsPage"),
    "dream": (QT_TR_NOOP("Dream & heartbeat"), "desktop.ui.settings.dream_page", "DreamPage"),
    "usage": (QT_TR_NOOP("Usage & budgets"), "desktop.ui.settings.usage_page", "UsagePage"),
    "automations": (
        QT_TR_NOOP("Automations"),
        "desktop.ui.settings.automations_page",
        "AutomationsPage",
    ),
    "appearance": (
        QT_TR_NOOP("Appearance & startup"),
        "desktop.ui.settings.appearance_page",
        "AppearancePage",
    ),
}

#: Old section names still accepted by ``show_section`` (links, tray actions, tests).
ALIASES: dict[str, str] = {"reminders": "automations"}
