"""The chat tab renders its ChatState: events through the real bridge, including late and
repeated ones, leave the rows and the busy state the person should see."""

from __future__ import annotations

from desktop.core.bus.events import TextDelta, ToolCallStarted, TurnFinished, TurnStarted
from tests.ui.chat.conftest import ChatHarness, MakeChat


def test_late_and_repeated_events_leave_the_chat_idle(make_chat: MakeChat) -> None:
    """A repeated start shows its prompt once; a delta or a call that arrives after the end
    does not bring the turn back (the chat would stay "running" for good)."""
    chat: ChatHarness = make_chat(ready=False)
    key, bridge = chat.tab.current, chat.services.bridge
    start = TurnStarted("t1", key, "cron", "desktop", key.partition(":")[2], "Stretch")
    bridge.deliver(start)
    bridge.deliver(start)
    bridge.deliver(TextDelta("t1", key, "Time to "))
    assert chat.tab.pane.composer.busy
    bridge.deliver(TurnFinished("t1", key, "Time to stand up."))
    bridge.deliver(TextDelta("t1", key, "late"))
    bridge.deliver(ToolCallStarted("t1", key, "call_0", "exec", {}))
    chat.wait(lambda: not chat.tab.feed._timer.isActive())
    assert [(i.kind, i.text) for i in chat.items()] == [
        ("outbound", "Stretch"),
        ("assistant", "Time to stand up."),
    ]
    assert not chat.tab.pane.composer.busy
    entry = chat.tab.sessions.entry(key)
    assert entry is None or not entry.running


def test_a_start_seen_after_the_first_delta_opens_the_turn(make_chat: MakeChat) -> None:
    """Rows of a turn whose start comes late: the prompt row goes above the answer."""
    chat: ChatHarness = make_chat(ready=False)
    key, bridge = chat.tab.current, chat.services.bridge
    bridge.deliver(TextDelta("t1", key, "Early"))
    chat.wait(lambda: any(i.text == "Early" for i in chat.items()))
    bridge.deliver(TurnStarted("t1", key, "message", "desktop", key.partition(":")[2], "Hi"))
    bridge.deliver(TurnFinished("t1", key, "Early answer"))
    assert [(i.kind, i.text) for i in chat.items()] == [
        ("user", "Hi"),
        ("assistant", "Early answer"),
    ]
