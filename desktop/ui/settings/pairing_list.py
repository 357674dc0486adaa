"""Settings › Channels › "Pending pairing requests": answer them, and revoke approved senders.

Lists what ``pairing.json`` (beside the config, shared with nanobot 0.3.5) holds: pending
requests with **Approve** and **Deny**, then the approved senders per channel with
**Revoke**. It reads the file in a worker thread when shown, when a new request arrives and
after each answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.core.channels.pairing import Pairings, PairingStore
from desktop.core.channels.pairing.gate import display_name
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import tr


class PairingList(QGroupBox):
    """The pending requests and approved senders of ``pairing.json`` in ``folder``.

    Args:
        folder: The config folder.
        parent: Owner.
    """

    def __init__(self, folder: Path, parent: QWidget | None = None) -> None:
        super().__init__(tr("Pending pairing requests"), parent)
        self.setAccessibleName(tr("Pending pairing requests"))
        self.store = PairingStore(folder)
        self.tasks = TaskOwner("pairing-list")
        layout = QVBoxLayout(self)
        self.intro = intro = QLabel(
            tr(
                "Someone not in a channel's allowed senders who writes to the bot directly gets "
                "a pairing code. Approve it to let them in on that channel."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.rows = QVBoxLayout()
        layout.addLayout(self.rows)
        self.approved_title = QLabel(tr("<b>Approved senders</b>"))
        layout.addWidget(self.approved_title)
        self.approved_rows = QVBoxLayout()
        layout.addLayout(self.approved_rows)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.shown: Pairings = Pairings()
        self._reads = 0

    def showEvent(self, event: QShowEvent) -> None:
        """Re-read the file whenever the list comes into view."""
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        """Read the file again (in the background) and redraw."""
        self.tasks.try_spawn(self._refresh(), name="pairing-list-read")

    async def _refresh(self) -> None:
        self._reads += 1
        read = self._reads
        try:
            pairings = await asyncio.to_thread(self.store.read)
            if read != self._reads:
                return  # a later read is under way: it draws
        except OSError as exc:
            self.message.setText(tr("The pairing file cannot be read: {error}").format(error=exc))
            return
        self.message.setText("")
        self.show_pairings(pairings)

    def show_pairings(self, pairings: Pairings) -> None:
        """Draw ``pairings``."""
        self.shown = pairings
        _clear(self.rows)
        _clear(self.approved_rows)
        pending = sorted(pairings.pending.values(), key=lambda r: r.created_at)
        approved = [(ch, s) for ch, senders in sorted(pairings.approved.items()) for s in senders]
        quiet = not pending and not approved  # one line, not a box of empty lists
        self.intro.setVisible(not quiet)
        self.approved_title.setVisible(not quiet)
        if quiet:
            line = QLabel(
                tr(
                    "No pending requests. Someone not in a channel's allowed senders who writes "
                    "to the bot directly gets a pairing code, to approve here."
                )
            )
            line.setWordWrap(True)
            self.rows.addWidget(line)
        elif not pending:
            self.rows.addWidget(QLabel(tr("No pending requests.")))
        for request in pending:
            minutes = request.expires_in() // 60 + 1
            self.rows.addWidget(
                _row(
                    tr("{channel}: {sender} — code {code} (expires in {minutes} min)").format(
                        channel=display_name(request.channel),
                        sender=request.sender,
                        code=request.code,
                        minutes=minutes,
                    ),
                    [
                        (tr("Approve"), partial(self._answer, self.store.approve, request.code)),
                        (tr("Deny"), partial(self._answer, self.store.deny, request.code)),
                    ],
                )
            )
        if not approved and not quiet:
            self.approved_rows.addWidget(QLabel(tr("Nobody has been paired yet.")))
        for channel, sender in approved:
            self.approved_rows.addWidget(
                _row(
                    f"{display_name(channel)}: {sender}",
                    [(tr("Revoke"), partial(self._revoke, channel, sender))],
                )
            )

    def _answer(self, action: Callable[[str], object], code: str) -> None:
        self.tasks.try_spawn(self._change(action, code), name="pairing-list-answer")

    def _revoke(self, channel: str, sender: str) -> None:
        self.tasks.try_spawn(
            self._change(lambda _: self.store.revoke(channel, sender), ""),
            name="pairing-list-revoke",
        )

    async def _change(self, action: Callable[[str], object], code: str) -> None:
        try:
            await asyncio.to_thread(action, code)
        except OSError as exc:
            self.message.setText(
                tr("The pairing file cannot be changed: {error}").format(error=exc)
            )
            return
        await self._refresh()

    async def aclose(self) -> None:
        """Cancel reads and answers still running."""
        await self.tasks.aclose()


def _row(text: str, actions: list[tuple[str, Callable[[], object]]]) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    label = QLabel(text)
    label.setWordWrap(True)
    layout.addWidget(label, 1)
    for title, callback in actions:
        button = QPushButton(title)
        button.setAccessibleName(tr("{action} {request}").format(action=title, request=text))
        button.clicked.connect(lambda _checked=False, act=callback: act())
        layout.addWidget(button)
    return row


def _clear(layout: QVBoxLayout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        widget = item.widget() if item is not None else None
        if widget is not None:
            widget.hide()
            widget.setParent(None)  # gone from findChildren at once, not at the next loop turn
            widget.deleteLater()
