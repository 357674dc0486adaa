"""Unhandled errors: logged (redacted) to the rotating log and shown in a short, non-modal dialog.

:func:`install_exception_hooks` routes ``sys.excepthook`` (which PySide also uses for
exceptions escaping slots), ``threading.excepthook`` and the asyncio loop's exception handler
into one :class:`ExceptionReporter`. Reports from other threads cross to the GUI thread
through a queued signal. One dialog at a time; further errors are counted in it.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.utils.redact import redact
from desktop.ui.i18n import tr

log = logging.getLogger("desktop.errors")
SUMMARY_LIMIT = 300


class ErrorDialog(QDialog):
    """A short message, the details on demand, and a way to the log file.

    Args:
        summary: One line for the person (already redacted).
        details: The traceback (already redacted).
        log_path: The log file, when there is one.
        parent: Owner window.
    """

    def __init__(
        self, summary: str, details: str, log_path: Path | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("nanobot Desktop — unexpected error"))
        self.setModal(False)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.more = 0
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)  # follows "Show details"
        intro = QLabel(
            tr("<b>Something went wrong.</b> nanobot keeps running; your conversations are saved.")
        )
        intro.setWordWrap(True)
        intro.setMinimumWidth(520)
        layout.addWidget(intro)
        self.summary = QLabel(summary, self)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAccessibleName(tr("Error summary"))
        self.summary.setMinimumWidth(520)
        self.summary.setStyleSheet(
            "padding: 6px 8px; background: palette(base); border-radius: 4px;"
        )
        layout.addWidget(self.summary)
        self._where = (
            tr("Details were written to {path}.").format(path=log_path) if log_path else ""
        )
        self.where = QLabel(self._where, self)
        self.where.setWordWrap(True)
        layout.addWidget(self.where)
        self.details = QPlainTextEdit(details, self)
        self.details.setReadOnly(True)
        self.details.setAccessibleName(tr("Error details"))
        self.details.setVisible(False)
        self.details.setMinimumSize(560, 200)
        layout.addWidget(self.details)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        toggle = QPushButton(tr("Show details"), self)
        toggle.setCheckable(True)
        toggle.toggled.connect(self._toggle)
        buttons.addButton(toggle, QDialogButtonBox.ButtonRole.ActionRole)
        copy = QPushButton(tr("Copy details"), self)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(f"{summary}\n\n{details}"))
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        if log_path is not None:
            folder = QPushButton(tr("Open log folder"), self)
            folder.clicked.connect(
                lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(log_path.parent)))
            )
            buttons.addButton(folder, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)

    def _toggle(self, shown: bool) -> None:
        self.details.setVisible(shown)

    def add_one_more(self) -> None:
        """Another error happened while this dialog was open."""
        self.more += 1
        more = (
            tr("(+1 more error since)")
            if self.more == 1
            else tr("(+{count} more errors since)").format(count=self.more)
        )
        self.where.setText(f"{self._where} {more}".strip())


class ExceptionReporter(QObject):
    """Receives unhandled exceptions from any thread and reports them on the GUI thread.

    Args:
        log_path: The rotating log file shown in the dialog.
        parent_widget: Returns the window to parent dialogs to (may return ``None``).
        show_dialog: Open dialogs (tests may turn this off and read :attr:`reports`).

    Signals:
        reported(str, str): ``(summary, details)`` of every unhandled error (redacted).
    """

    reported = Signal(str, str)
    _queued = Signal(str, str)

    def __init__(
        self,
        log_path: Path | None = None,
        parent_widget: Any = None,
        *,
        show_dialog: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.log_path = log_path
        self.parent_widget = parent_widget or (lambda: None)
        self.show_dialog = show_dialog
        self.reports: list[tuple[str, str]] = []
        self.dialog: ErrorDialog | None = None
        self._queued.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def report(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
        context: str = "",
    ) -> None:
        """Log ``exc`` (redacted) and show it; safe to call from any thread."""
        details = redact("".join(traceback.format_exception(exc_type, exc, tb)))
        summary = redact(f"{exc_type.__name__}: {exc}".strip().rstrip(":"))
        if len(summary) > SUMMARY_LIMIT:
            summary = summary[: SUMMARY_LIMIT - 1] + "…"
        if context:
            summary = f"{summary} ({context})"
        log.error(
            "unhandled error%s", f" in {context}" if context else "", exc_info=(exc_type, exc, tb)
        )
        self._queued.emit(summary, details)

    def _show(self, summary: str, details: str) -> None:
        self.reports.append((summary, details))
        self.reported.emit(summary, details)
        if not self.show_dialog:
            return
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.add_one_more()
            return
        dialog = ErrorDialog(summary, details, self.log_path, self.parent_widget())
        dialog.destroyed.connect(lambda *_: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.show()

    # -- hooks ------------------------------------------------------------------------------
    def excepthook(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        """``sys.excepthook``; Ctrl-C keeps its default meaning."""
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        self.report(exc_type, exc, tb)

    def threading_hook(self, args: threading.ExceptHookArgs) -> None:
        """``threading.excepthook``."""
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self.report(args.exc_type, args.exc_value, args.exc_traceback, f"thread {name}")

    def loop_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The asyncio loop's exception handler."""
        exc = context.get("exception")
        message = str(context.get("message") or "")
        if exc is None or isinstance(exc, asyncio.CancelledError):
            log.warning("asyncio: %s", redact(message))
            return
        self.report(type(exc), exc, exc.__traceback__, message if message else "")


def install_exception_hooks(
    reporter: ExceptionReporter, loop: asyncio.AbstractEventLoop | None = None
) -> None:
    """Route unhandled exceptions of the process (and of ``loop``) to ``reporter``."""
    sys.excepthook = reporter.excepthook
    threading.excepthook = reporter.threading_hook
    if loop is not None:
        loop.set_exception_handler(reporter.loop_handler)
