"""Typed access to the Settings tab's pages (``SettingsTab.page`` returns the base class)."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QSpinBox, QWidget

from desktop.ui.settings import SettingsTab
from desktop.ui.settings.page import SettingsPage

P = TypeVar("P", bound=SettingsPage)


def page_of(tab: SettingsTab, section: str, cls: type[P]) -> P:
    """The page of ``section``, checked to be a ``cls`` (its widgets typed for the test)."""
    page = tab.page(section)
    assert isinstance(page, cls), f"the {section!r} page is a {type(page).__name__}"
    return page


W = TypeVar("W", bound=QWidget)


def widget_as(widget: QWidget | None, cls: type[W]) -> W:
    """``widget`` (typed as a plain QWidget: a form control, a window tab), checked to be a
    ``cls``: a test that drives it as a check box, a spin box, the Settings tab."""
    assert isinstance(widget, cls), f"expected a {cls.__name__}, got {type(widget).__name__}"
    return widget


def spin(widget: QAbstractSpinBox) -> QSpinBox | QDoubleSpinBox:
    """A settings number field (``SchemaForm.number`` picks the box by the field's type)."""
    assert isinstance(widget, QSpinBox | QDoubleSpinBox), type(widget).__name__
    return widget
