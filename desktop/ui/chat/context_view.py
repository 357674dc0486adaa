"""Opening the chat's context view from the context meter (click, or Enter / Space on it).

:class:`ContextViews` is all the chat tab holds: it imports the view
(:mod:`desktop.ui.chat.context_dialog`, the ledger reader and the chart) only when the meter is
first used, so none of it is loaded before the first window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

if TYPE_CHECKING:
    from desktop.core.bus.events import OutboundMessage, RunEvent
    from desktop.ui.chat.context_dialog import ContextView


class ContextViews:
    """Opens the shown chat's context view from the context meter and feeds it the chat's
    events (one view per chat tab; opening it for another chat replaces it).

    Args:
        tab: The chat tab (its services, state, sessions, task owner and command sender).
    """

    def __init__(self, tab: Any) -> None:
        self.tab = tab
        self.view: ContextView | None = None
        tab.pane.usage.contextRequested.connect(self.open_current)
        tab.services.bridge.runEvent.connect(self._on_event)
        tab.services.bridge.outbound.connect(self._on_outbound)

    def open_current(self) -> ContextView | None:
        """Open (or bring up) the context view of the shown chat."""
        tab = self.tab
        key: str = tab.current
        if not key:
            return None
        view = self.view
        if view is not None and view.key != key:
            view.close()
            view = None
        if view is None:
            usage = tab.state.usage.get(key)
            window = usage.context_window if usage is not None and usage.context_window else 0
            if not window:
                window = tab.services.config.agents.defaults.context_window_tokens
            entry = tab.sessions.entry(key)
            config = tab.services.config

            def place() -> Any:
                from desktop.core.assembly import usage_place

                return usage_place(config)

            from desktop.ui.chat.context_dialog import ContextView, read_context

            view = ContextView(
                key,
                entry.title if entry is not None else "",
                window,
                load=lambda k: read_context(place, k),
                spawn=tab._spawn,
                compact=lambda k: tab.turns.command(k, "/compact"),
                parent=tab,
            )
            view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            view.destroyed.connect(lambda *_: self._forget(view))
            self.view = view
            view.reload()
        view.show()
        view.raise_()
        view.activateWindow()
        return view

    def chat_shown(self, key: str) -> None:
        """A chat was opened: one with no turn in this run shows its context meter from the
        ledger's last round (so its context view can be opened before the next turn)."""
        tab = self.tab
        if not key or key in tab.state.usage:
            return
        tab._spawn(self._seed(key))

    async def _seed(self, key: str) -> None:
        from desktop.ui.chat.context_dialog import read_context

        config = self.tab.services.config

        def place() -> Any:
            from desktop.core.assembly import usage_place

            return usage_place(config)

        context = await read_context(place, key)
        tab = self.tab
        if not context.rounds or tab.current != key or key in tab.state.usage:
            return  # nothing recorded, another chat is shown, or a turn has reported since
        window = config.agents.defaults.context_window_tokens
        tab.pane.usage.set_context(context.rounds[-1].prompt_tokens, window)

    def _forget(self, view: ContextView) -> None:
        if self.view is view:
            self.view = None

    def _on_event(self, event: RunEvent) -> None:
        if self.view is not None:
            self.view.on_event(event)

    def _on_outbound(self, message: OutboundMessage) -> None:
        if self.view is not None:
            self.view.on_outbound(message)
