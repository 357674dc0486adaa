"""The Settings tab: providers and keys, agent, tools and safety, MCP servers, channels, Dream,
appearance. See :class:`~desktop.ui.settings.settings_tab.SettingsTab`."""

from desktop.ui.settings.settings_tab import SECTIONS, SettingsTab

__all__ = ["SECTIONS", "SettingsTab"]
