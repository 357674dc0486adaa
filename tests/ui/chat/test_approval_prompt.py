"""Tool approval in the chat: the prompt shows the full call; its buttons decide."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.agent.approval import DENIED_RESULT, ApprovalPolicy, Decision
from tests.fakes.openai_server import Reply
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat


def _exec(command: str) -> Reply:
    return Reply(tool_calls=[("exec", json.dumps({"command": command, "timeout": 30}))])


def test_allow_once_runs_the_command(make_chat: MakeChat, workspace: Path) -> None:
    """The prompt names the tool and shows every argument; Allow once runs the call and the
    next exec is asked about again."""
    marker = workspace / "allowed.txt"
    chat: ChatHarness = make_chat()
    chat.server.push(_exec(f"touch {marker} && echo made-it"), _exec("echo second"), Reply("Done."))
    chat.send("make the file")
    prompt = chat.tab.pane.approval
    chat.wait(prompt.isVisible)
    assert prompt.title.text() == "Allow exec?"
    assert "runs a shell command" in prompt.reason.text()
    shown = prompt.arguments.toPlainText()
    assert f"command: touch {marker} && echo made-it" in shown and "timeout: 30" in shown
    card = next(i for i in chat.items() if i.kind == "tool")
    assert card.awaiting_approval
    assert present(chat.tab.sessions.entry(chat.tab.current)).attention
    prompt.buttons[Decision.ALLOW_ONCE].click()
    chat.wait(lambda: card.ok is not None)
    assert card.ok and "made-it" in card.result and marker.exists()
    chat.wait(prompt.isVisible)  # the second exec asks again
    prompt.buttons[Decision.ALLOW_ONCE].click()
    chat.idle()
    assert chat.items()[-1].text == "Done."
    assert not present(chat.tab.sessions.entry(chat.tab.current)).attention


def test_deny_reaches_the_model(make_chat: MakeChat, workspace: Path) -> None:
    """Deny: nothing runs, the card says denied, the model reads "denied by the user"."""
    marker = workspace / "denied.txt"
    chat: ChatHarness = make_chat()
    chat.server.push(_exec(f"touch {marker}"), Reply("OK, I won't."))
    chat.send("make the file")
    prompt = chat.tab.pane.approval
    chat.wait(prompt.isVisible)
    prompt.buttons[Decision.DENY].click()
    chat.idle()
    assert not marker.exists()
    card = next(i for i in chat.items() if i.kind == "tool")
    assert card.denied and not card.awaiting_approval
    second = chat.requests()[1]["messages"]
    assert [m["content"] for m in second if m["role"] == "tool"] == [
        DENIED_RESULT.format(tool="exec")
    ]
    assert chat.items()[-1].text == "OK, I won't."


def test_always_allow_updates_the_policy(make_chat: MakeChat) -> None:
    """Always allow: the policy remembers the tool (and reports it for the prefs)."""
    saved: list[set[str]] = []
    policy = ApprovalPolicy(on_change=lambda p: saved.append(set(p.always_allowed)))
    chat: ChatHarness = make_chat(policy=policy)
    chat.server.push(_exec("echo one"), _exec("echo two"), Reply("Both done."))
    chat.send("two commands")
    prompt = chat.tab.pane.approval
    chat.wait(prompt.isVisible)
    prompt.buttons[Decision.ALWAYS].click()
    chat.idle()
    assert chat.items()[-1].text == "Both done."
    assert saved == [{"exec"}] and policy.is_allowed("desktop:other", "exec")
    assert not prompt.isVisible()


def test_stop_while_waiting_removes_the_prompt(make_chat: MakeChat) -> None:
    """Stopping the turn cancels the question; the prompt goes away."""
    chat: ChatHarness = make_chat()
    chat.server.push(_exec("echo never"))
    chat.send("run")
    prompt = chat.tab.pane.approval
    chat.wait(prompt.isVisible)
    chat.tab.stop_current()
    chat.idle()
    assert not prompt.isVisible() and chat.tab.approver.count() == 0
    card = next(i for i in chat.items() if i.kind == "tool")
    assert card.ok is False and not card.awaiting_approval


def test_prompt_waits_in_its_own_chat(make_chat: MakeChat) -> None:
    """A question from a chat that is not shown marks that chat and appears when it opens."""
    chat: ChatHarness = make_chat()
    chat.server.push(_exec("echo hidden"), Reply("ran"))
    first = chat.tab.current
    chat.send("run in background")
    chat.wait(chat.tab.pane.approval.isVisible)
    with chat.qtbot.waitSignal(chat.tab.sessionOpened):
        chat.tab.new_chat()
    assert not chat.tab.pane.approval.isVisible()
    assert present(chat.tab.sessions.entry(first)).attention
    chat.tab.open_session(first)
    chat.wait(chat.tab.pane.approval.isVisible)
    chat.tab.pane.approval.buttons[Decision.ALLOW_SESSION].click()
    chat.idle()
    assert chat.services.policy.is_allowed(first, "exec")
