"""ChatState, the chat's Qt-free state: every event kind, a turn that finishes, stops or fails,
late, early and repeated events, two sessions interleaved, queued messages, commands.

No QApplication here. :class:`Screen` stands in for the Qt views: it applies the reported
changes to plain lists and refuses an incoherent one (a change to a row it does not show, a row
added twice), so every test also checks that the changes describe what the state holds.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import cast, get_args

import pytest

from desktop.core.bus.events import (
    BudgetPaused,
    BudgetResolved,
    BudgetWarning,
    ChannelStatusChanged,
    DeliveryFailed,
    GuidanceTaken,
    ModelFallback,
    ModelRetrying,
    OutboundMessage,
    PairingRequested,
    ReasoningDelta,
    ReminderDue,
    RunawayStopped,
    RunEvent,
    SessionChanged,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFailed,
    TurnFinished,
    TurnSource,
    TurnStarted,
    TurnStopped,
    UsageReport,
)
from desktop.ui.chat.changes import (
    Change,
    ErrorChanged,
    ListChanged,
    Reload,
    RowAdded,
    RowChanged,
    RowRemoved,
    TurnBegan,
    TurnEnded,
    Unread,
    UsageChanged,
)
from desktop.ui.chat.items import STOPPED_FOOTER, ChatItem
from desktop.ui.chat.state import QUEUED, STOPPED_CARD, ChatState
from tests.typecheck import REPO, mypy_errors, without_case

A, B = "desktop:a", "desktop:b"


class Screen:
    """The rows of every session as the views would show them, built from changes only."""

    def __init__(self, state: ChatState) -> None:
        self.state = state
        self.rows: dict[str, list[ChatItem]] = {}
        self.session: list[Change] = []  # changes that are not about one row

    def show(self, changes: list[Change]) -> list[Change]:
        for change in changes:
            match change:
                case RowAdded(key=key, item=item, before=before):
                    rows = self.rows.setdefault(key, [])
                    assert all(r is not item for r in rows), "added twice"
                    if before is None:
                        rows.append(item)
                    else:
                        rows.insert(next(i for i, r in enumerate(rows) if r is before), item)
                case RowChanged(key=key, item=item) | RowRemoved(key=key, item=item):
                    rows = self.rows.get(key, [])
                    assert any(r is item for r in rows), f"{change} of a row not shown"
                    if isinstance(change, RowRemoved):
                        rows[:] = [r for r in rows if r is not item]
                case _:
                    self.session.append(change)
        return changes

    def apply(self, *events: RunEvent) -> list[Change]:
        out: list[Change] = []
        for event in events:
            out += self.show(self.state.apply(event))
        return out

    def flush(self) -> list[Change]:
        return self.show(self.state.flush())

    def texts(self, key: str) -> list[tuple[str, str]]:
        return [(r.kind, r.text or r.tool) for r in self.rows.get(key, [])]

    def take(self) -> list[Change]:
        taken, self.session = self.session, []
        return taken


@pytest.fixture
def screen() -> Screen:
    state = ChatState()
    state.current = A
    return Screen(state)


def started(turn: str, key: str = A, text: str = "hi", request: str = "", **kw: str) -> TurnStarted:
    return TurnStarted(
        turn,
        key,
        cast(TurnSource, kw.get("source", "message")),
        "desktop",
        key[8:],
        text,
        request_id=request,
        label=kw.get("label", ""),
    )


def test_it_imports_without_qt() -> None:
    """The state, its changes, records and rows load no Qt module (a fresh interpreter)."""
    probe = textwrap.dedent(
        """
        import sys
        import desktop.ui.chat.state, desktop.ui.chat.changes, desktop.ui.chat.records
        print(sorted({m.split(".")[0] for m in sys.modules} & {"PySide6", "shiboken6", "qasync"}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_turn_streams_and_finishes(screen: Screen) -> None:
    """Prompt row and "Thinking…", deltas applied per flush, usage, the final text and its
    footer; the session is busy from start to end."""
    state = screen.state
    screen.apply(started("t1", text="What is 2+2?"))
    assert screen.texts(A) == [("user", "What is 2+2?"), ("assistant", "")]
    assert screen.take() == [TurnBegan(A)] and state.busy(A)
    answer = screen.rows[A][1]
    assert answer.streaming and answer.turn_id == "t1"
    assert screen.apply(TextDelta("t1", A, "It is "), TextDelta("t1", A, "4")) == []
    assert state.buffered and answer.text == ""  # nothing shown before the frame
    assert screen.flush() == [RowChanged(A, answer)] and answer.text == "It is 4"
    assert not state.buffered
    screen.apply(UsageReport("t1", A, 1200, 30, 0.002, 1200, 8192))
    assert screen.take() == [UsageChanged(A)]
    assert state.usage[A].prompt_tokens == 1200 and state.usage[A].context_window == 8192
    screen.apply(TurnFinished("t1", A, "It is 4."))
    assert screen.texts(A) == [("user", "What is 2+2?"), ("assistant", "It is 4.")]
    assert not answer.streaming and answer.footer == "1,200 in · 30 out · $0.0020"
    assert screen.take() == [TurnEnded(A)]  # shown chat: not unread
    assert not state.busy(A) and state.live == {}


def test_reasoning_goes_above_thinking_and_a_tool_call_closes_the_text(screen: Screen) -> None:
    screen.apply(started("t1"), ReasoningDelta("t1", A, "Let me look."))
    screen.flush()
    assert screen.texts(A) == [("user", "hi"), ("reasoning", "Let me look."), ("assistant", "")]
    screen.apply(TextDelta("t1", A, "Checking."), ToolCallStarted("t1", A, "c0", "exec", {}))
    assert screen.texts(A) == [
        ("user", "hi"),
        ("reasoning", "Let me look."),
        ("assistant", "Checking."),
        ("tool", "exec"),
    ]
    assert not any(r.streaming for r in screen.rows[A])
    screen.apply(ToolCallFinished("t1", A, "c0", "exec", {}, "files", 0.2, True))
    card = screen.rows[A][-1]
    assert card.ok is True and card.result == "files" and card.duration_s == 0.2
    screen.apply(TextDelta("t1", A, "Done."), TurnFinished("t1", A, "Done."))
    assert screen.texts(A)[-1] == ("assistant", "Done.")


def test_tool_cards_belong_to_their_turn(screen: Screen) -> None:
    """The same call id in two turns gives two cards; a subagent's calls (``#`` keys) none."""
    screen.apply(started("t1"), ToolCallStarted("t1", A, "call_0", "exec", {"n": 1}))
    screen.apply(ToolCallStarted("t1", f"{A}#sub", "call_0", "exec", {}))
    screen.apply(UsageReport("t1", f"{A}#sub", 5, 5, None, 5, 100))
    screen.apply(TurnFinished("t1", A, "one"))
    screen.apply(started("t2"), ToolCallStarted("t2", A, "call_0", "exec", {"n": 2}))
    screen.apply(ToolCallFinished("t2", A, "call_0", "exec", {"n": 2}, "two", 0.1, True))
    first, second = (r for r in screen.rows[A] if r.kind == "tool")
    assert first.arguments == {"n": 1} and first.result == STOPPED_CARD and first.ok is False
    assert second.arguments == {"n": 2} and second.result == "two" and second.ok is True
    assert A not in screen.state.usage


def test_a_stopped_turn_keeps_its_text_marked_stopped(screen: Screen) -> None:
    screen.apply(started("t1"), TextDelta("t1", A, "Half an ans"))
    screen.apply(ToolCallStarted("t1", A, "c1", "exec", {}), TextDelta("t1", A, "more"))
    screen.apply(TurnStopped("t1", A, "more"))
    rows = screen.rows[A]
    assert [r.kind for r in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[-1].footer == STOPPED_FOOTER and rows[-1].text == "more"
    assert rows[2].ok is False and rows[2].result == STOPPED_CARD
    assert not screen.state.busy(A)


def test_a_failed_turn_shows_its_error_until_the_next_turn_starts(screen: Screen) -> None:
    state = screen.state
    screen.apply(started("t1"))
    screen.take()
    screen.apply(TurnFailed("t1", A, "The key was refused.", "auth", "401"))
    assert screen.texts(A) == [("user", "hi")]  # "Thinking…" is gone
    assert screen.take() == [TurnEnded(A), ErrorChanged(A), ListChanged(A)]
    assert state.errors[A].kind == "auth" and state.errors[A].details == "401"
    screen.apply(started("t2"))  # the shown chat: a new turn clears the banner
    assert screen.take() == [ErrorChanged(A), TurnBegan(A)] and A not in state.errors


def test_a_background_failure_stays_until_its_own_message_starts(screen: Screen) -> None:
    """In a chat not shown, a reminder's turn leaves the error; the person's retry clears it."""
    state = screen.state
    screen.apply(started("t1", B), TurnFailed("t1", B, "Down."))
    assert Unread(B) in screen.take() and B in state.errors
    screen.apply(started("t2", B, source="cron", label="Stretch"))
    assert B in state.errors
    assert screen.texts(B)[-2] == ("outbound", "hi") and screen.rows[B][-2].tool.endswith("Stretch")
    screen.apply(TurnFinished("t2", B, "Done"))
    row = ChatItem("user", "again")
    screen.show([RowAdded(B, row)])
    screen.show(state.queue("m1", B, row))
    assert B not in state.errors  # sending clears it


def test_queued_messages_become_their_turns_first_rows(screen: Screen) -> None:
    state = screen.state
    first, second = ChatItem("user", "one"), ChatItem("user", "two")
    for request, row in (("m1", first), ("m2", second)):
        screen.show([RowAdded(A, row)])
        screen.show(state.queue(request, A, row))
    assert first.footer == "" and second.footer == QUEUED  # the second waits for the first
    assert state.queued(A) == [first, second]
    screen.apply(started("t1", request="m1"))
    assert state.queued(A) == [second] and state.live_rows(A)[0] is first
    assert [r.text for r in screen.rows[A]] == ["one", "two", ""]  # no second prompt row
    screen.apply(TurnFinished("t1", A, "1"), started("t2", request="m2"))
    assert second.footer == "" and second.turn_id == "t2" and state.sent == {}


def test_retrying_and_a_reset_stream(screen: Screen) -> None:
    screen.apply(started("t1"), ModelRetrying("t1", A, "The model is busy.", 1, 3, 2.0))
    answer = screen.rows[A][-1]
    assert answer.status == "The model is busy. Waiting for the model… (retrying 2/3)"
    screen.apply(TextDelta("t1", A, "garbled"))
    screen.flush()
    assert answer.text == "garbled" and answer.status == ""
    screen.apply(StreamReset("t1", A))
    assert answer.text == ""
    screen.apply(TextDelta("t1", A, "clean"))
    screen.flush()
    assert answer.text == "clean"


def test_events_before_the_start_put_the_opening_row_first(screen: Screen) -> None:
    """Deltas of a turn whose start was not seen yet make the session busy once; the late
    start puts what opened the turn above them."""
    state = screen.state
    screen.apply(TextDelta("t1", A, "Early"), ReasoningDelta("t1", A, "hm"))
    screen.flush()
    assert screen.take() == [TurnBegan(A)] and state.busy(A)
    screen.apply(started("t1", text="question"))
    assert screen.texts(A) == [("user", "question"), ("reasoning", "hm"), ("assistant", "Early")]
    assert screen.take() == []  # already busy
    screen.apply(ToolCallFinished("t1", A, "c9", "read", {}, "text", 0.1, True))
    screen.apply(ToolCallStarted("t1", A, "c9", "read", {}))  # its start after its end
    assert [r.kind for r in screen.rows[A]].count("tool") == 1
    assert screen.rows[A][-1].ok is True


def test_repeated_and_late_events_change_nothing(screen: Screen) -> None:
    state = screen.state
    start = started("t1")
    screen.apply(start, TextDelta("t1", A, "Hel"), TextDelta("t1", A, "Hel"))
    assert state.apply(start) == []  # the same start again
    screen.apply(TurnFinished("t1", A, "Hello"))
    assert screen.texts(A) == [("user", "hi"), ("assistant", "Hello")]  # final text wins
    for late in (
        TurnFinished("t1", A, "Hello"),
        TurnFailed("t1", A, "late"),
        TextDelta("t1", A, "x"),
        ToolCallStarted("t1", A, "c1", "exec", {}),
        UsageReport("t1", A, 1, 1, None, 1, 1),
        start,
    ):
        assert state.apply(late) == [], late
    assert not state.busy(A) and A not in state.errors and not state.buffered


def test_an_end_of_a_turn_never_seen_still_ends_it(screen: Screen) -> None:
    """The tab may attach mid-turn: an end it never saw the start of still says the session is
    idle (and unread, when not shown)."""
    assert screen.apply(TurnFinished("t0", B, "done")) == [TurnEnded(B), Unread(B)]


def test_two_sessions_interleaved(screen: Screen) -> None:
    state = screen.state
    screen.apply(started("ta", A, "in a"), started("tb", B, "in b"))
    screen.apply(TextDelta("ta", A, "A1 "), TextDelta("tb", B, "B1"), TextDelta("ta", A, "A2"))
    screen.apply(UsageReport("tb", B, 7, 3, None, 7, 100))
    screen.flush()
    assert screen.rows[A][-1].text == "A1 A2" and screen.rows[B][-1].text == "B1"
    screen.apply(ToolCallStarted("tb", B, "call_0", "exec", {}), TurnFinished("ta", A, "A"))
    assert not state.busy(A) and state.busy(B)
    assert state.turn_of(B) is state.live["tb"] and state.card("tb", "call_0") is not None
    screen.apply(TextDelta("tb", B, "B2"), TurnFinished("tb", B, "B2"))
    assert screen.texts(A) == [("user", "in a"), ("assistant", "A")]
    assert screen.texts(B) == [
        ("user", "in b"),
        ("assistant", "B1"),
        ("tool", "exec"),
        ("assistant", "B2"),
    ]
    assert screen.rows[B][-1].footer == "7 in · 3 out" and A not in state.usage
    assert Unread(B) in screen.take() and state.live == {}


def test_every_event_kind_is_handled(screen: Screen) -> None:
    """Events that are not about a chat's rows change nothing; ``SessionChanged`` reloads."""
    others: list[RunEvent] = [
        ReminderDue(A, "j1", "Stretch", "Stand up"),
        ChannelStatusChanged("telegram", "connected"),
        DeliveryFailed("telegram", "42", "down"),
        PairingRequested("telegram", "42|zoe", "ABCD-EFGH", 1e9),
        BudgetPaused("r1", "dream", "", 10, 90, 0.0, 100, None, "dream", "day", "m"),
        BudgetResolved("r1", "run"),
        BudgetWarning("chat", "chat", "day", "80% used"),
        RunawayStopped("cron", "run1", "job", 9000, 900, "stopped"),
    ]
    for event in others:
        assert screen.state.apply(event) == [], event
    assert screen.state.apply(SessionChanged(A, "new")) == [Reload(A), ListChanged(A)]
    turn_kinds = {
        TurnStarted,
        TextDelta,
        GuidanceTaken,
        ReasoningDelta,
        StreamReset,
        ModelRetrying,
        ModelFallback,
        ToolCallStarted,
        ToolCallFinished,
        UsageReport,
        TurnFinished,
        TurnStopped,
        TurnFailed,
    }
    assert {type(e) for e in others} | {SessionChanged} | turn_kinds == set(get_args(RunEvent))


def test_a_fallback_model_closes_the_stream_and_says_so_in_a_line_of_its_own(
    screen: Screen,
) -> None:
    screen.apply(started("t1"), TextDelta("t1", A, "Half an"))
    screen.flush()
    fallback = ModelFallback("t1", A, "gpt-x failed; answering with llama-y.", "llama-y", "gpt-x")
    screen.apply(fallback, TextDelta("t1", A, "Whole answer"))
    screen.flush()
    assert screen.texts(A)[-3:] == [
        ("assistant", "Half an"),
        ("notice", "↪ gpt-x failed; answering with llama-y."),
        ("assistant", "Whole answer"),
    ]
    assert not screen.rows[A][-3].streaming and screen.rows[A][-2].turn_id == "t1"


def test_commands_and_outbound_messages(screen: Screen) -> None:
    state = screen.state
    screen.show(state.command("c1", A, "/status now"))
    assert screen.texts(A) == [("user", "/status now"), ("command", "Working…")]
    assert screen.rows[A][0].echo
    reply = OutboundMessage("desktop", "a", "All good", metadata={"request_id": "c1"})
    screen.show(state.outbound(reply))
    assert screen.rows[A][-1].text == "All good" and screen.take() == [ListChanged(A)]
    note = OutboundMessage("desktop", "b", "Stretch!", metadata={"reminder": True})
    screen.show(state.outbound(note))
    assert screen.texts(B) == [("outbound", "Stretch!")] and screen.rows[B][0].tool == "Reminder"
    assert screen.take() == [Unread(B), ListChanged(B)]
    assert state.outbound(OutboundMessage("desktop", "a", "…", metadata={"progress": True})) == []
    assert state.outbound(OutboundMessage("telegram", "42", "hi")) == []
    image = OutboundMessage(
        "desktop", "a", "", media=["/w/out/cat.png"], metadata={"generated_images": True}
    )
    screen.show(state.outbound(image))
    assert screen.rows[A][-1].tool == "Generated image"
    assert screen.rows[A][-1].media == ["/w/out/cat.png"]


def test_approval_marks_only_a_running_card(screen: Screen) -> None:
    state = screen.state
    screen.apply(started("t1"), ToolCallStarted("t1", A, "c1", "exec", {}))
    card = screen.rows[A][-1]
    assert screen.show(state.set_awaiting("t1", "c1", True)) == [RowChanged(A, card)]
    assert card.awaiting_approval and state.set_awaiting("t1", "c1", True) == []
    assert (
        state.set_awaiting("t1", "nope", True) == [] and state.set_awaiting("t9", "c1", True) == []
    )
    screen.apply(ToolCallFinished("t1", A, "c1", "exec", {}, "Denied by the user", 0.0, False))
    assert not card.awaiting_approval and state.set_awaiting("t1", "c1", True) == []


def test_errors_set_and_cleared(screen: Screen) -> None:
    state = screen.state
    assert state.set_error(A, "too_long", "Too long.") == [ErrorChanged(A)]
    assert state.clear_error(A) == [ErrorChanged(A)] and state.clear_error(A) == []


def test_an_event_kind_the_state_forgets_fails_mypy(tmp_path: Path) -> None:
    """``apply`` ends in ``assert_never``: without its ``TextDelta`` case mypy names it."""
    source = (REPO / "desktop" / "ui" / "chat" / "state.py").read_text(encoding="utf-8")
    errors = mypy_errors(without_case(source, "TextDelta()"), tmp_path, "state_forgets")
    assert any("assert_never" in e and "TextDelta" in e for e in errors), errors
