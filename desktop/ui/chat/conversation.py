"""The right column of the chat tab: header, messages, banners, composer (layout only)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.ui.chat.approval_prompt import ApprovalPrompt
from desktop.ui.chat.composer import Composer
from desktop.ui.chat.error_banner import ErrorBanner
from desktop.ui.chat.message_view import MessageView
from desktop.ui.chat.model_picker import ModelPicker, OtherModelForm, short_model
from desktop.ui.chat.records import TurnUsage
from desktop.ui.chat.steering import GuidanceStrip
from desktop.ui.chat.temporary import TemporaryNotice
from desktop.ui.chat.usage_bar import UsageBar
from desktop.ui.chat.view_input import COPIED
from desktop.ui.i18n import QT_TR_NOOP, tr

COPIED_MS = 1500
TITLE_MIN = 80
PICKER_MIN = 90
NEW_CHAT = QT_TR_NOOP("New chat")  # the title of a chat that has none yet


class Toast(QLabel):
    """A short message floating over the bottom-right corner of a widget (not in any layout,
    so it never pushes or overlaps the header). Showing it again restarts its timer."""

    def __init__(self, anchor: QWidget) -> None:
        super().__init__(anchor)
        self.anchor = anchor
        self.setObjectName("toast")
        self.setAccessibleName(tr("Notice"))
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.setMargin(6)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        anchor.installEventFilter(self)
        self.hide()

    def flash(self, text: str, ms: int = COPIED_MS) -> None:
        """Show ``text`` for ``ms`` milliseconds (replacing what was shown)."""
        self.setText(text)
        self.adjustSize()
        self._place()
        self.show()
        self.raise_()
        self._timer.start(ms)

    def _place(self) -> None:
        area = self.anchor.rect()
        self.move(QPoint(area.right() - self.width() - 16, area.bottom() - self.height() - 12))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Stay in the corner when the anchor is resized."""
        if watched is self.anchor and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False


class EditingBar(QFrame):
    """Says the composer holds an edit of a sent message.

    Signals:
        cancelled(): stop editing.
    """

    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editingBar")
        self.setAccessibleName(tr("Editing a sent message"))
        self.label = QLabel(
            tr(
                "Editing a sent message — Send starts a new version from there; the current "
                "one is kept as an earlier version."
            ),
            self,
        )
        self.label.setWordWrap(True)
        self.label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.cancel = QPushButton(tr("Cancel edit"), self)
        self.cancel.setAccessibleName(tr("Cancel the edit"))
        self.cancel.clicked.connect(self.cancelled)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.cancel)
        self.hide()


class ConversationPane(QWidget):
    """Holds the widgets of the open chat; the chat tab drives them.

    Signals:
        regenerateRequested(): "Regenerate the last answer" (header menu, Ctrl+Shift+R).
        exportRequested(str): export the chat (``md`` or ``json``).
    """

    regenerateRequested = Signal()
    exportRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(tr(NEW_CHAT), self)
        self.title.setAccessibleName(tr("Chat title"))
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        self.title.setMinimumWidth(TITLE_MIN)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.channel = QLabel(self)
        self.channel.setAccessibleName(tr("Channel"))
        self.picker = ModelPicker(self)
        self.usage = UsageBar(self)
        self.more = QToolButton(self)
        self.more.setText("⋯")
        self.more.setAutoRaise(True)
        self.more.setAccessibleName(tr("Chat actions"))
        self.more.setToolTip(tr("Regenerate, export"))
        self.more.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        menu = QMenu(self.more)
        self.regenerate_action = menu.addAction(
            tr("Regenerate last answer") + "\tCtrl+Shift+R", self.regenerateRequested.emit
        )
        menu.addSeparator()
        menu.addAction(tr("Export as Markdown…"), lambda: self.exportRequested.emit("md"))
        menu.addAction(tr("Export as JSON…"), lambda: self.exportRequested.emit("json"))
        self.more.setMenu(menu)
        self.other_model = OtherModelForm(self)
        self.temporary = TemporaryNotice(self)
        self.view = MessageView(self)
        self.banner = ErrorBanner(self)
        self.approval = ApprovalPrompt(self)
        self.editing = EditingBar(self)
        self.guidance = GuidanceStrip(self)
        self.composer = Composer(self)
        self.copied = Toast(self.view)
        header = QHBoxLayout()
        header.setContentsMargins(12, 8, 12, 4)
        header.addWidget(self.title, 1)
        header.addWidget(self.channel)
        header.addWidget(self.picker)
        header.addWidget(self.usage)
        header.addWidget(self.more)
        bottom = QVBoxLayout()
        bottom.setContentsMargins(12, 4, 12, 10)
        bottom.setSpacing(6)
        bottom.addWidget(self.banner)
        bottom.addWidget(self.approval)
        bottom.addWidget(self.editing)
        bottom.addWidget(self.guidance)
        bottom.addWidget(self.composer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.other_model)
        layout.addWidget(self.temporary)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        self._full_title = tr(NEW_CHAT)

    def flash_copied(self, what: str) -> None:
        """Say "<what> copied" over the conversation for a moment."""
        notice = COPIED.get(what)
        self.copied.flash(tr(notice) if notice else tr("{what} copied").format(what=what))

    def show_usage(self, usage: TurnUsage | None) -> None:
        """Show the latest turn's tokens and context fill (hidden while unknown)."""
        if usage is None:
            self.usage.clear()
            return
        self.usage.set_turn(usage.prompt_tokens, usage.completion_tokens, usage.cost)
        self.usage.set_context(usage.context_tokens, usage.context_window)
        self.fit_header()

    def set_title(self, title: str, channel: str) -> None:
        """Show the chat's title and, for other channels, where it comes from."""
        title = tr(NEW_CHAT) if title == NEW_CHAT else title
        self._full_title = title
        self._elide_title()
        self.title.setToolTip(title)
        self.title.setAccessibleDescription(title)
        shown = channel and channel != DESKTOP_CHANNEL
        self.channel.setText(tr("from {channel}").format(channel=channel) if shown else "")
        self.channel.setVisible(bool(self.channel.text()))
        self.fit_header()

    def _elide_title(self) -> None:
        metrics = self.title.fontMetrics()
        width = max(TITLE_MIN, self.title.width())
        self.title.setText(metrics.elidedText(self._full_title, Qt.TextElideMode.ElideRight, width))

    def fit_header(self) -> None:
        """Keep the header inside the pane: at narrow widths the token counts go (the context
        meter and its tooltip stay) and the model name is shortened."""
        spacing = 6
        fixed = [w for w in (self.channel, self.usage.meter, self.more) if w.isVisibleTo(self)]
        room = self.width() - 24 - TITLE_MIN - sum(w.sizeHint().width() + spacing for w in fixed)
        metrics = self.picker.fontMetrics()
        picker = metrics.horizontalAdvance(short_model(self.picker.model) + " ▾") + 24 + spacing
        turn = self.usage.turn.sizeHint().width() + spacing if self.usage.isVisibleTo(self) else 0
        self.usage.turn.setVisible(room - picker - turn >= 0)
        left = room - (turn if self.usage.turn.isVisibleTo(self) else 0)
        self.picker.fit(max(PICKER_MIN, min(picker, left) - spacing))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Fit the header and elide the title again for the new width."""
        super().resizeEvent(event)
        self.fit_header()
        self._elide_title()
