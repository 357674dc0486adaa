"""The right column of the chat tab: header, messages, banners, composer (layout only)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop.ui.chat.approval_prompt import ApprovalPrompt
from desktop.ui.chat.composer import Composer
from desktop.ui.chat.error_banner import ErrorBanner
from desktop.ui.chat.feed import TurnUsage
from desktop.ui.chat.message_view import MessageView
from desktop.ui.chat.usage_bar import UsageBar


class ConversationPane(QWidget):
    """Holds the widgets of the open chat; the chat tab drives them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("New chat", self)
        self.title.setAccessibleName("Chat title")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        self.title.setMinimumWidth(80)
        self.channel = QLabel(self)
        self.channel.setAccessibleName("Channel")
        self.usage = UsageBar(self)
        self.view = MessageView(self)
        self.banner = ErrorBanner(self)
        self.approval = ApprovalPrompt(self)
        self.composer = Composer(self)
        self.copied = QLabel(self)
        self.copied.setAccessibleName("Copied")
        header = QHBoxLayout()
        header.setContentsMargins(12, 8, 12, 4)
        header.addWidget(self.title, 1)
        header.addWidget(self.channel)
        header.addWidget(self.copied)
        header.addWidget(self.usage)
        bottom = QVBoxLayout()
        bottom.setContentsMargins(12, 4, 12, 10)
        bottom.setSpacing(6)
        bottom.addWidget(self.banner)
        bottom.addWidget(self.approval)
        bottom.addWidget(self.composer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)

    def flash_copied(self, what: str) -> None:
        """Say "<what> copied" in the header for a moment."""
        self.copied.setText(f"{what} copied")
        QTimer.singleShot(1500, lambda: self.copied.setText(""))

    def show_usage(self, usage: TurnUsage | None) -> None:
        """Show the latest turn's tokens and context fill (hidden while unknown)."""
        if usage is None:
            self.usage.clear()
            return
        self.usage.set_turn(usage.prompt_tokens, usage.completion_tokens, usage.cost)
        self.usage.set_context(usage.context_tokens, usage.context_window)

    def set_title(self, title: str, channel: str) -> None:
        """Show the chat's title and, for other channels, where it comes from."""
        metrics = self.title.fontMetrics()
        width = max(80, self.title.width())
        self.title.setText(metrics.elidedText(title, Qt.TextElideMode.ElideRight, width))
        self.title.setToolTip(title)
        self.channel.setText(f"from {channel}" if channel and channel != "desktop" else "")
