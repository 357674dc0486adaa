"""The Skills tab (see skills_tab)."""

from desktop.ui.skills.skills_tab import SkillsTab

__all__ = ["SkillsTab"]
