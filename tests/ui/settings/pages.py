"""Typed access to the Settings tab's pages (``SettingsTab.page`` returns the base class)."""

from __future__ import annotations

from typing import TypeVar

from desktop.ui.settings import SettingsTab
from desktop.ui.settings.page import SettingsPage

P = TypeVar("P", bound=SettingsPage)


def page_of(tab: SettingsTab, section: str, cls: type[P]) -> P:
    """The page of ``section``, checked to be a ``cls`` (its widgets typed for the test)."""
    page = tab.page(section)
    assert isinstance(page, cls), f"the {section!r} page is a {type(page).__name__}"
    return page
