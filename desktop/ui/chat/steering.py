"""Steering a running turn from the composer: what the person sends while the agent works is
guidance the turn takes in at its next step (it does not stop the turn).

The guidance waits in a strip above the composer, one line each, until the turn takes it in
(then it shows in the conversation where the turn read it). Each line offers **Send now** —
stop the turn and send it as a new message at once — and **Remove**. What the turn never took
in (it ended first) is sent as the next message when the turn ends, so nothing typed is lost.
Esc still stops the turn.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.ui.chat.changes import Changes
from desktop.ui.chat.state import ChatState
from desktop.ui.i18n import tr

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

PREVIEW_CHARS = 160


class GuidanceStrip(QFrame):
    """The guidance waiting for the shown chat's running turn, above the composer.

    Signals:
        sendNow(str): "Send now" on the guidance with this id.
        removeRequested(str): "Remove" on the guidance with this id.
    """

    sendNow = Signal(str)
    removeRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guidanceStrip")
        self.setAccessibleName(tr("Messages for the running answer"))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(8, 4, 8, 4)
        self._layout.setSpacing(2)
        self.rows: dict[str, QWidget] = {}
        self.hide()

    def show_guidance(self, waiting: list[tuple[str, str]]) -> None:
        """Show ``(id, text)`` lines (hidden when there are none)."""
        for row in self.rows.values():
            row.deleteLater()
        self.rows.clear()
        for guidance_id, text in waiting:
            self.rows[guidance_id] = row = self._row(guidance_id, text)
            self._layout.addWidget(row)
        self.setVisible(bool(waiting))

    def _row(self, guidance_id: str, text: str) -> QWidget:
        row = QWidget(self)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        preview = " ".join(text.split())
        if len(preview) > PREVIEW_CHARS:
            preview = preview[: PREVIEW_CHARS - 1] + "…"
        label = QLabel(tr("Queued for the next step: {text}").format(text=preview), row)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        label.setToolTip(text)
        label.setAccessibleName(tr("Queued message"))
        label.setAccessibleDescription(text)
        now = QPushButton(tr("Send now"), row)
        now.setAccessibleName(tr("Stop the answer and send this now"))
        now.setToolTip(tr("Stop the running answer and send this as a new message"))
        now.clicked.connect(lambda: self.sendNow.emit(guidance_id))
        remove = QPushButton(tr("Remove"), row)
        remove.setAccessibleName(tr("Remove the queued message"))
        remove.clicked.connect(lambda: self.removeRequested.emit(guidance_id))
        layout.addWidget(label, 1)
        layout.addWidget(now)
        layout.addWidget(remove)
        return row


class Steering:
    """Sends guidance to running turns and keeps the strip in step with the chat state.

    Args:
        services: The app services (``services.runtime.agent`` takes the guidance).
        state: The chat's state (what waits, per chat).
        render: Shows what a change of the state changed.
        send: Sends text as an ordinary message in a chat (the tab's own send path).
        stop: Stops a chat's running turn.
    """

    def __init__(
        self,
        services: AppServices,
        state: ChatState,
        render: Callable[[Changes], None],
        send: Callable[[str, str], None],
        stop: Callable[[str], None],
    ) -> None:
        self.services = services
        self.state = state
        self.render = render
        self.send = send
        self.stop = stop

    def steer(self, key: str, text: str) -> bool:
        """Give ``text`` to the running turn of ``key``; ``False`` when no turn there can take
        it (the caller sends it as a message)."""
        runtime = self.services.runtime
        if runtime is None:
            return False
        guidance_id = runtime.agent.steer(key, text, uuid.uuid4().hex[:12])
        if guidance_id is None:
            return False
        self.render(self.state.steer(guidance_id, key, text))
        return True

    def send_now(self, key: str, guidance_id: str) -> None:
        """Stop the turn and send the guidance as a new message (unless it was taken in)."""
        text = self._withdraw(key, guidance_id)
        if text is None:
            return
        self.stop(key)
        self.send(key, text)

    def remove(self, key: str, guidance_id: str) -> None:
        """Take the guidance back (unless the turn took it in already)."""
        self._withdraw(key, guidance_id)

    def turn_ended(self, key: str) -> None:
        """Send what the ended turn never took in, in order, as the next message."""
        left = self.state.guidance_of(key)
        if not left:
            return
        for guidance_id, _ in left:
            self.render(self.state.unsteer(guidance_id))
        self.send(key, "\n\n".join(text for _, text in left))

    def _withdraw(self, key: str, guidance_id: str) -> str | None:
        runtime = self.services.runtime
        found = self.state.guidance.get(guidance_id)
        if found is None:
            return None
        taken_back = runtime.agent.withdraw_guidance(key, guidance_id) if runtime else found[1]
        if taken_back is None:
            return None  # taken in meanwhile: its event shows it in the conversation
        self.render(self.state.unsteer(guidance_id))
        return taken_back
