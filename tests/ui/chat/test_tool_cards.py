"""Tool cards belong to their own turn: call ids repeat across a chat (the scripted server, like
some local servers, says ``call_0`` every time), so a result, a denial or a turn's end never
reaches a card of another turn, live or reopened from disk (issue "What a new user hit", A.5)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import DENIED_RESULT, ApprovalPolicy, Decision
from desktop.core.bus.events import (
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from desktop.ui.chat.accessible import speaker
from desktop.ui.chat.items import ChatItem, items_from_messages
from desktop.ui.chat.session_store import SessionStore
from desktop.ui.chat.state import STOPPED_CARD
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat, write_session
from tests.ui.conftest import run_async

DENIAL = DENIED_RESULT.format(tool="exec")


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _call(command: str, call_id: str = "call_0") -> dict[str, Any]:
    arguments = json.dumps({"command": command})
    function = {"name": "exec", "arguments": arguments}
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def _result(text: str, call_id: str = "call_0") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "name": "exec", "content": text}


def _answer(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _cards(items: list[ChatItem]) -> list[ChatItem]:
    return [i for i in items if i.kind == "tool"]


def _states(items: list[ChatItem]) -> list[str]:
    """What the cards say (as a screen reader hears it): "Tool exec, denied"…"""
    return [speaker(card) for card in _cards(items)]


# -- reopening a saved chat -----------------------------------------------------------------
def test_reopened_chat_gives_each_turn_its_own_result(make_chat: MakeChat, workspace: Path) -> None:
    """Two turns both used ``call_0``; the second was denied: reopened, the first card still
    shows its own result (ok), the second says denied, and neither spins."""
    write_session(
        workspace,
        "desktop:reused",
        [
            _user("list the files"),
            _call("ls"),
            _result("a.txt\nb.txt"),
            _answer("Two files."),
            _user("delete them"),
            _call("rm a.txt b.txt"),
            _result(DENIAL),
            _answer("OK, I won't."),
        ],
    )
    chat: ChatHarness = make_chat(ready=False)
    chat.wait(lambda: chat.tab.current == "desktop:reused" and _cards(chat.items()))
    first, second = _cards(chat.items())
    assert first.arguments == {"command": "ls"} and second.arguments["command"].startswith("rm")
    assert first.ok is True and first.result == "a.txt\nb.txt" and not first.denied
    assert second.denied and second.result == DENIAL
    assert _states(chat.items()) == ["Tool exec, succeeded", "Tool exec, denied"]
    view = chat.tab.pane.view
    for card in (first, second):
        assert view.layout_of(chat.items().index(card)).spinner is None


def test_a_result_never_reaches_back_into_an_earlier_turn() -> None:
    """A denial whose own call is not in the file (its assistant line was set aside as bad)
    is not shown on the previous turn's ``call_0`` card."""
    items = items_from_messages(
        [
            _user("list the files"),
            _call("ls"),
            _result("a.txt"),
            _answer("One file."),
            _user("delete it"),
            # (the assistant message with this turn's call_0 was unreadable and set aside)
            _result(DENIAL),
            _answer("OK, I won't."),
        ]
    )
    [card] = _cards(items)
    assert card.ok is True and card.result == "a.txt" and not card.denied


def test_an_unanswered_call_is_closed_when_a_later_turn_reuses_its_id() -> None:
    """An earlier turn's call without a result (the app died mid-call) shows as interrupted,
    not running, even when a later turn uses the same id; the later result stays its own."""
    messages = [
        _user("sleep"),
        _call("sleep 100"),
        _user("delete it"),
        _call("rm a.txt"),
        _result(DENIAL),
        _answer("OK, I won't."),
    ]
    first, second = _cards(items_from_messages(messages))
    assert not first.running and first.ok is False and "interrupted" in first.result
    assert second.denied
    assert _states(items_from_messages(messages)) == ["Tool exec, failed", "Tool exec, denied"]


def test_only_the_last_turn_can_still_be_running() -> None:
    """``live``: the last turn's open calls run; an earlier turn's open call does not (a later
    turn started after it), even with the same id."""
    items = items_from_messages(
        [_user("one"), _call("sleep 100"), _user("two"), _call("sleep 1")], live=True
    )
    assert _states(items) == ["Tool exec, failed", "Tool exec, running"]


def test_chat_opened_mid_turn_has_no_running_card_from_disk(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path
) -> None:
    """Opening a chat while its turn runs: that turn's rows come from the live feed, so every
    card read from disk belongs to a turn that is over (none keeps spinning)."""
    write_session(
        workspace,
        "desktop:busy",
        [
            _user("sleep"),
            _call("sleep 100"),
            _answer("(The previous turn was interrupted.)"),
            _user("and now?"),
        ],
    )
    path = workspace / "sessions" / "desktop_busy.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta["metadata"]["pending_user_turn"] = {"index": 3}  # the running turn's user message
    path.write_text("\n".join([json.dumps(meta), *lines[1:]]) + "\n", encoding="utf-8")
    loaded = run_async(qtbot, qloop, SessionStore(workspace).load("desktop:busy", live=True))
    assert [i.kind for i in loaded.items] == ["user", "tool", "assistant"]
    assert _states(loaded.items) == ["Tool exec, failed"]


# -- live turns -----------------------------------------------------------------------------
def _exec(command: str) -> Reply:
    return Reply(tool_calls=[("exec", json.dumps({"command": command}))])


def test_denying_a_later_call_leaves_the_earlier_turns_card_alone(make_chat: MakeChat) -> None:
    """Two turns in one chat, the server calls ``call_0`` in both; the second call is denied in
    the approval prompt: only the second card says denied, the first keeps its result, live
    and as saved. (The loop renames the second ``call_0``, which is in the request's history;
    the feed with a repeated id is :func:`test_turns_reusing_an_id_in_the_live_feed`.)"""
    chat: ChatHarness = make_chat()
    prompt = chat.tab.pane.approval
    chat.server.push(_exec("echo first-run"), Reply("Ran it."))
    chat.send("run it")
    chat.wait(prompt.isVisible)
    prompt.buttons[Decision.ALLOW_ONCE].click()
    chat.idle()
    [first] = _cards(chat.items())
    assert first.ok is True and "first-run" in first.result
    seen = (first.version, first.result, first.duration_s)
    chat.server.push(_exec("echo second-run"), Reply("OK, I won't."))
    chat.send("run it again")
    chat.wait(prompt.isVisible)
    prompt.buttons[Decision.DENY].click()
    chat.idle()
    first_again, second = _cards(chat.items())
    assert first_again is first and (first.version, first.result, first.duration_s) == seen
    assert first.ok is True and not first.denied and second.denied
    assert _states(chat.items()) == ["Tool exec, succeeded", "Tool exec, denied"]
    # The server said call_0 both times; the second is renamed against the history.
    assert first.call_id == "call_0" and second.call_id not in ("", "call_0")
    saved = chat.agent.sessions.get_or_create(chat.tab.current).messages
    assert _states(items_from_messages(saved)) == ["Tool exec, succeeded", "Tool exec, denied"]


def test_card_of_a_stopped_reminder_turn_stops_spinning(make_chat: MakeChat) -> None:
    """A reminder turn (started by the scheduler, not the tab) runs a slow command; stopping
    it ends the turn and its card: no spinner, "stopped" in the card, and the same when the
    chat is read back from disk."""
    from desktop.core.cron.types import CronPayload, CronSchedule

    chat: ChatHarness = make_chat(policy=ApprovalPolicy(mode="autonomous"))
    key = chat.tab.current
    runtime = chat.services.runtime
    assert runtime is not None
    payload = CronPayload(
        message="Check the build",
        session_key=key,
        origin_channel="desktop",
        origin_chat_id=key.partition(":")[2],
    )
    job = run_async(
        chat.qtbot,
        chat.loop,
        asyncio.to_thread(
            runtime.cron.add_job, "build", CronSchedule("every", every_ms=3_600_000), payload
        ),
    )
    chat.server.push(_exec("sleep 30"), Reply("never asked"))
    fired = asyncio.ensure_future(runtime.cron.run_now(job.id))
    chat.wait(lambda: any(i.running for i in chat.items()))
    [card] = _cards(chat.items())
    view = chat.tab.pane.view
    assert view.layout_of(chat.items().index(card)).spinner is not None
    chat.wait(lambda: chat.tab.pane.composer.busy)  # the button says Stop (as the person sees it)
    chat.tab.pane.composer.send.click()  # Stop
    chat.wait(lambda: not chat.tab.state.live)
    chat.wait(fired.done)
    assert not card.running and card.ok is False and not card.awaiting_approval
    assert card.result == STOPPED_CARD
    assert view.layout_of(chat.items().index(card)).spinner is None
    saved = chat.agent.sessions.get_or_create(key).messages
    assert not any(c.running for c in _cards(items_from_messages(saved)))


def test_turns_reusing_an_id_in_the_live_feed(make_chat: MakeChat) -> None:
    """The loop's events when an id repeats across turns (the loop renames an id only against
    the request's history, so after consolidation ``call_0`` comes back): a later turn's
    denial, or a reminder turn that ends with its call still open, touches only its own
    card."""
    chat: ChatHarness = make_chat(ready=False)
    key, bridge = chat.tab.current, chat.services.bridge
    chat_id = key.partition(":")[2]
    args = {"command": "ls"}

    def turn(turn_id: str, source: str, finished: tuple[str, bool] | None) -> None:
        bridge.deliver(TurnStarted(turn_id, key, source, "desktop", chat_id, "go"))  # type: ignore[arg-type]
        bridge.deliver(ToolCallStarted(turn_id, key, "call_0", "exec", args))
        if finished is not None:
            result, ok = finished
            bridge.deliver(ToolCallFinished(turn_id, key, "call_0", "exec", args, result, 0.1, ok))
        bridge.deliver(TurnFinished(turn_id, key, "Done."))

    turn("t1", "message", ("a.txt", True))
    [first] = _cards(chat.items())
    seen = (first.version, first.result)
    turn("t2", "cron", (DENIAL, False))
    turn("t3", "cron", None)  # ends with its call still open
    assert _states(chat.items()) == [
        "Tool exec, succeeded",
        "Tool exec, denied",
        "Tool exec, failed",
    ]
    assert (first.version, first.result) == seen
    third = _cards(chat.items())[2]
    assert third.result == STOPPED_CARD and not chat.tab.state.live
    view = chat.tab.pane.view
    assert all(view.layout_of(r).spinner is None for r in range(len(chat.items())))


def test_a_framed_result_is_shown_without_its_markers() -> None:
    """Command output reaches the model framed as untrusted; the card shows the output."""
    from desktop.core.tools.untrusted import frame

    framed = frame("a.txt\nb.txt", "exec") + "\n[exit code: 0]"
    items = items_from_messages([_user("list"), _call("ls"), _result(framed), _answer("Two.")])
    [card] = _cards(items)
    assert card.result == "a.txt\nb.txt\n[exit code: 0]" and card.ok is True
