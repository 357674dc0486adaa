"""The chat's context view (a dialog; :mod:`desktop.ui.chat.context_view` opens it from the
context meter: click, or Enter on it). It shows the
chat's model calls round by round (:class:`~desktop.ui.chat.context_chart.ContextChart`), read
from the usage ledger (what the provider reported, kept per session), the context window and
where the chat was compacted; "Compact now" sends ``/compact`` to the chat.

The view reloads the ledger (in a worker thread) whenever something of its chat ends: a turn
(finished, stopped or failed; the ledger has its calls by then) or a message to the chat such
as ``/compact``'s answer, so a compaction shows when it lands. Loads never overlap: events
during a load ask for one more load after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.bus.events import (
    OutboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStopped,
    UsageReport,
)
from desktop.core.usage.rounds import SessionContext
from desktop.ui.chat.context_chart import ContextChart
from desktop.ui.i18n import tr

Loader = Callable[[str], Awaitable[SessionContext]]
Spawn = Callable[[Any], Any]


def summary_text(context: SessionContext, window: int) -> str:
    """One line about the chat's context: rounds, the last request's fill, cache, compactions."""
    rounds = context.rounds
    if not rounds:
        return tr("No model calls recorded for this chat yet.")
    last = rounds[-1]
    tokens = f"{last.prompt_tokens:,}"
    parts = [tr("{count} round(s)").format(count=len(rounds))]
    if window:
        percent = round(100 * last.prompt_tokens / window)
        parts.append(
            tr("last request {tokens} of {window} tokens ({percent}%)").format(
                tokens=tokens, window=f"{window:,}", percent=percent
            )
        )
    else:
        parts.append(tr("last request {tokens} tokens").format(tokens=tokens))
    hits = sum(1 for r in rounds if r.cached_tokens)
    if context.cached_reported:
        cached = sum(r.cached_tokens for r in rounds)
        parts.append(
            tr("cache hits in {count} round(s), {tokens} tokens").format(
                count=hits, tokens=f"{cached:,}"
            )
        )
    else:
        parts.append(tr("no cache hits reported"))
    count = len(context.compactions)
    parts.append(tr("compacted {count}×").format(count=count) if count else tr("not compacted"))
    return " · ".join(parts)


class ContextView(QDialog):
    """The context view of one chat.

    Args:
        key: The session key.
        title: The chat's title (the window title).
        window: The context window in tokens (0: unknown).
        load: Reads a session's :class:`SessionContext` (off the event loop).
        spawn: Starts a coroutine under the chat tab's task owner.
        compact: Sends ``/compact`` to the chat.
        parent: Owner.
    """

    def __init__(
        self,
        key: str,
        title: str,
        window: int,
        *,
        load: Loader,
        spawn: Spawn,
        compact: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.key, self.window_tokens = key, window
        self._load, self._spawn, self._compact = load, spawn, compact
        self.setWindowTitle(tr("Context — {title}").format(title=title or key))
        self.setAccessibleName(tr("Context view"))
        self.summary = QLabel(tr("Reading the usage ledger…"), self)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName(tr("Context summary"))
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = ContextChart(self)
        self.note = QLabel(
            tr(
                "Each round is one model call of this chat's turns, as the provider reported "
                "it. Compaction summarises older messages so later rounds send less."
            ),
            self,
        )
        self.note.setWordWrap(True)
        self.note.setEnabled(False)
        buttons = QDialogButtonBox(self)
        self.compact_button = QPushButton(tr("Compact now"), self)
        self.compact_button.setToolTip(tr("Summarise this chat so far (/compact)"))
        self.compact_button.setAutoDefault(False)
        buttons.addButton(self.compact_button, QDialogButtonBox.ButtonRole.ActionRole)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.close)
        self.compact_button.clicked.connect(self.compact_now)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.resize(720, 420)
        self.context = SessionContext(key)
        self.loads = 0  # finished loads (tests wait on it)
        self._loading = False
        self._again = False
        self._compacting = False

    # -- data -------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the chat's rounds again (one load at a time; a request meanwhile loads once
        more after it)."""
        if self._loading:
            self._again = True
            return
        self._loading = True
        self._spawn(self._reload())

    async def _reload(self) -> None:
        try:
            while True:
                self._again = False
                context = await self._load(self.key)
                self.show_context(context)
                if not self._again:
                    break
        finally:
            self._loading = False

    def show_context(self, context: SessionContext) -> None:
        """Show ``context`` (and end "Compacting…" once a new compaction is in it)."""
        if self._compacting and len(context.compactions) > len(self.context.compactions):
            self._end_compacting()
        self.context = context
        self.summary.setText(summary_text(context, self.window_tokens))
        self.chart.set_data(context, self.window_tokens)
        self.loads += 1

    def set_window(self, window: int) -> None:
        """The context window changed (a turn reported another one)."""
        if window and window != self.window_tokens:
            self.window_tokens = window
            self.show_context(self.context)

    # -- events of the chat -----------------------------------------------------------------
    def on_event(self, event: RunEvent) -> None:
        """A run event: reload when one of this chat's turns has ended."""
        if getattr(event, "session_key", None) != self.key:
            return
        if isinstance(event, UsageReport):
            self.set_window(event.context_window)
        elif isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            self.reload()

    def on_outbound(self, message: OutboundMessage) -> None:
        """A message to this chat that is not a turn's answer (``/compact``'s reply)."""
        if f"{message.channel}:{message.chat_id}" != self.key:
            return
        if self._compacting and not message.metadata.get("progress"):
            self._end_compacting()
        self.reload()

    # -- compact ----------------------------------------------------------------------------
    def compact_now(self) -> None:
        """Send ``/compact`` to the chat; the button waits for its answer."""
        if self._compacting:
            return
        self._compacting = True
        self.compact_button.setEnabled(False)
        self.compact_button.setText(tr("Compacting…"))
        self._compact(self.key)

    def _end_compacting(self) -> None:
        self._compacting = False
        self.compact_button.setEnabled(True)
        self.compact_button.setText(tr("Compact now"))


async def read_context(place_of: Callable[[], Any], key: str) -> SessionContext:
    """The chat ``key``'s context from the ledger at ``place_of()`` (both in a thread)."""
    from desktop.core.usage.rounds import load_session_context

    return await asyncio.to_thread(lambda: load_session_context(place_of(), key))
