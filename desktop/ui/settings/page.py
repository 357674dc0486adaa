"""The base of every settings page: a heading with Revert / Save beside it, a scrolling body,
save plumbing.

Revert and Save sit at the top right, beside the heading, so they are the first stops after
the section list when Tab moves through the page (and stay in view however long the page);
Ctrl+S saves, and Return in a one-line field saves too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.edit import ChangeError, apply_changes
from desktop.core.config.errors import ConfigError
from desktop.ui.i18n import localized, tr
from desktop.ui.settings.schema_form import title_of
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus, button, heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

log = logging.getLogger(__name__)


async def commit_changes(services: AppServices, changes: dict[str, Any]) -> None:
    """Apply ``changes`` to the live config and save it; undo them if saving fails.

    Raises:
        ChangeError: A value was refused (nothing changed).
        ConfigError: The file on disk is malformed (it was not touched; nothing changed).
        OSError: The file could not be written (nothing changed).
    """
    undo = apply_changes(services.config, changes)
    try:
        await services.save_config()
    except BaseException:
        undo()
        raise


def save_error_text(exc: BaseException) -> str:
    """Words for a failed save."""
    if isinstance(exc, ConfigError):
        return tr(
            "Not saved: the config file has an error ({error}). Fix the file (it was not "
            "changed), then save again."
        ).format(error=localized(exc))
    if isinstance(exc, OSError):
        return tr("Not saved: cannot write the config file ({error}).").format(
            error=exc.strerror or exc
        )
    return tr("Not saved: {error}").format(error=localized(exc))


class SettingsPage(OwnsTasks, QWidget):
    """One page of the Settings tab.

    Subclasses set :attr:`section` and :attr:`title`, build their controls into
    :attr:`body` in ``__init__``, and implement :meth:`load` (config → controls) and
    :meth:`collect` (controls → ``{dotted.snake.path: value}``, raising :class:`ChangeError`
    for input that cannot be parsed). Pages whose controls save themselves (keys, MCP
    servers) pass ``buttons=False``.

    Signals:
        saved(): a save of this page went through.
        configError(str): saving failed because the config file on disk is malformed.
    """

    saved = Signal()
    configError = Signal(str)

    section: ClassVar[str] = ""
    title: ClassVar[str] = ""

    def __init__(
        self,
        services: AppServices,
        parent: QWidget | None = None,
        *,
        description: str = "",
        buttons: bool = True,
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.dirty = False
        self._loading = False
        title = tr(self.title)
        self.setAccessibleName(tr("{page} settings").format(page=title))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(8)
        top = QHBoxLayout()
        top.addWidget(heading(title), 1)
        outer.addLayout(top)
        self.status = InlineStatus(accessible=tr("{page} status").format(page=title))
        self.save_button: QPushButton | None = None
        self.revert_button: QPushButton | None = None
        if buttons:
            self.revert_button = button(
                tr("Revert"), tr("Revert {page} settings").format(page=title)
            )
            self.revert_button.setToolTip(tr("Show the saved values again"))
            self.revert_button.clicked.connect(self.reload)
            self.save_button = button(tr("Save"), tr("Save {page} settings").format(page=title))
            self.save_button.setToolTip(tr("Save these settings (Ctrl+S)"))
            self.save_button.setDefault(True)
            self.save_button.clicked.connect(self._save_clicked)
            top.addWidget(self.revert_button, 0, Qt.AlignmentFlag.AlignBottom)
            top.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignBottom)
            shortcut = QShortcut(QKeySequence.StandardKey.Save, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(self._save_if_dirty)
        if description:
            outer.addWidget(hint(description))
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.body = QWidget()
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(0, 4, 8, 4)
        self.body_layout.setSpacing(10)
        scroll.setWidget(self.body)
        outer.addWidget(scroll, 1)
        outer.addWidget(self.status)
        if buttons:
            self._set_dirty(False)

    # -- subclass API ------------------------------------------------------------------------
    def load(self) -> None:
        """Fill the controls from ``services.config``."""

    def collect(self) -> dict[str, Any]:
        """The changes to save, as ``{dotted.snake.path: value}``."""
        return {}

    async def after_save(self) -> None:
        """Run after a successful save (e.g. apply side effects)."""

    # -- dirty tracking ----------------------------------------------------------------------
    def watch(self, *widgets: QWidget) -> None:
        """Mark the page as changed whenever one of ``widgets`` is edited."""
        for widget in widgets:
            if isinstance(widget, QLineEdit):
                widget.textEdited.connect(self._edited)
            elif isinstance(widget, QPlainTextEdit):
                widget.textChanged.connect(self._edited)
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                widget.valueChanged.connect(self._edited)
            elif isinstance(widget, QComboBox):
                widget.currentTextChanged.connect(self._edited)
            elif isinstance(widget, QAbstractButton):
                widget.toggled.connect(self._edited)

    def _edited(self, *_args: object) -> None:
        if not self._loading:
            self._set_dirty(True)

    def _set_dirty(self, dirty: bool) -> None:
        self.dirty = dirty
        if self.save_button is not None and self.revert_button is not None:
            self.save_button.setEnabled(dirty)
            self.revert_button.setEnabled(dirty)
        if dirty and self.status.kind == "ok":
            self.status.clear()

    def reload(self) -> None:
        """Show the saved values again (drops unsaved edits)."""
        self._loading = True
        try:
            self.load()
        finally:
            self._loading = False
        self._set_dirty(False)
        if self.status.kind in ("error", "warn"):
            self.status.clear()

    # -- saving ------------------------------------------------------------------------------
    def _save_clicked(self) -> None:
        self.spawn(self.save(), f"save-{self.section}")

    def _save_if_dirty(self) -> None:
        if self.save_button is not None and self.dirty:
            self._save_clicked()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Return in a one-line field (which passes it on) saves the page, as a dialog's
        default button would."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.save_button is not None:
            if self.dirty:
                self._save_clicked()
            event.accept()
            return
        super().keyPressEvent(event)

    async def save(self) -> bool:
        """Validate and save this page. Invalid input → inline error, nothing saved."""
        try:
            changes = self.collect()
            await commit_changes(self.services, changes)
        except ChangeError as exc:
            self.status.error(
                tr("{field}: {reason}. Nothing was saved.").format(
                    field=title_of(exc.path), reason=localized(exc.reason)
                )
            )
            return False
        except (ConfigError, OSError) as exc:
            self.status.error(save_error_text(exc))
            if isinstance(exc, ConfigError):
                self.configError.emit(localized(exc))
            return False
        self.reload()
        try:
            await self.after_save()
        except Exception as exc:  # a side effect failed; the config itself is saved
            log.exception("after-save step of %s failed", self.section)
            self.status.warn(tr("Saved, but: {problem}").format(problem=exc))
        else:
            if self.status.kind != "warn":
                self.status.ok(tr("Saved."))
        self.saved.emit()
        return True

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what this page started."""
        self.cancel_tasks()
        super().closeEvent(event)
