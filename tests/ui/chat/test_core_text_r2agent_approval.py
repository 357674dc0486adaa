"""Approval reasons in the window's language (issue #25 §6).

A real chat asks before a write outside the workspace: the prompt keeps its English, is
bracketed under the pseudo-locale, and reads Chinese with ``zh_CN``. Then the whole family of
reasons: every rule of :func:`approval_reason`, and the shell variants with the real "no
sandbox" warning (a machine without ``bwrap``: nothing on ``PATH``), each a phrase shown
without English outside ``⟦…⟧`` but its data.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.agent import approval
from desktop.core.agent.approval import ApprovalGate, ApprovalPolicy, Decision, approval_reason
from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.sandbox import cached_sandbox_status, reset_sandbox_status
from desktop.core.security.sandbox_status import install_hint
from desktop.core.tools.shell import exec_sandbox_warning
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language, localized
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated


def test_a_write_outside_the_workspace_is_asked_in_the_window_language(
    make_chat: MakeChat, workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "outside" / "notes.txt"
    chat: ChatHarness = make_chat()
    call = json.dumps({"path": str(target), "content": "hi"})
    chat.server.push(Reply(tool_calls=[("write_file", call)]), Reply("Not written."))
    chat.send("write the notes")
    prompt = chat.tab.pane.approval
    chat.wait(prompt.isVisible)
    request = prompt.request
    assert request is not None
    assert request.reason == f"writes outside the workspace: {target}"
    assert prompt.reason.text() == (
        f"The agent wants to use write_file: it writes outside the workspace: {target}."
    )
    with pseudo_locale():
        prompt.show_request(request)
        assert _english(prompt.reason.text(), frozenset({"write_file"})) == ""
        assert untranslated(prompt.reason, allow={"write_file"}) == []
    try:
        install_language("zh_CN")
        prompt.show_request(request)
        assert prompt.reason.text() == f"智能体想使用 write_file：它要写入工作区之外：{target}。"
    finally:
        install_language("en")
    prompt.show_request(request)
    prompt.buttons[Decision.DENY].click()
    chat.idle()
    assert not target.exists()


@pytest.fixture
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine without bubblewrap (nothing on ``PATH``), detected anew."""
    saved = cached_sandbox_status()
    reset_sandbox_status(None)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    yield
    reset_sandbox_status(saved)


def _reasons(workspace: Path) -> list[str | None]:
    """One reason per rule of :func:`approval_reason`, in its order."""
    outside = str(workspace.parent / "elsewhere.txt")
    return [
        approval_reason("exec", {"command": "ls"}, workspace),
        approval_reason("exec_session", {"input": "y\n"}, workspace),
        approval_reason("write_file", {"path": outside}, workspace),
        approval_reason("apply_patch", {"edits": [{"path": outside}]}, workspace),
        approval_reason("mcp_files_read", {}, workspace),
        approval_reason("my", {"action": "set", "key": "model", "value": "gpt-x"}, workspace),
        approval_reason("read_session", {}, workspace, "telegram:42"),
        approval_reason("send_session_message", {"to": "desktop:abc"}, workspace, "telegram:42"),
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux-only")
def test_every_approval_reason_is_a_phrase_shown_translated(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path, no_bwrap: None
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    reasons = _reasons(workspace)
    assert all(isinstance(r, Phrase) for r in reasons), reasons
    assert reasons[5] == "changes the agent's own setting model to 'gpt-x'"
    assert reasons[7] == "sends a message into your chat desktop:abc"

    async def shell_reasons() -> tuple[str, str]:
        gate = ApprovalGate(
            ApprovalPolicy(), shell_warning=lambda: exec_sandbox_warning(ExecToolConfig())
        )
        first = await gate._shell_reason(reasons[0] or "", "desktop")
        return first, await gate._shell_reason(reasons[0] or "", "desktop")

    full, short = run_async(qtbot, qloop, shell_reasons(), 30_000)
    # The English as before: the warning without its period, then the short reminder.
    assert full.startswith(
        "runs a shell command — Commands run without the sandbox: bubblewrap (bwrap) is not "
        "installed; install it ("
    )
    assert full.endswith("then restart nanobot Desktop") and short == (
        "runs a shell command without the sandbox"
    )
    texts = [*reasons, full, short]
    assert all(isinstance(t, Phrase) for t in texts)
    # The install command of this machine's distribution is data: what to type.
    hint = install_hint()
    assert isinstance(hint, Phrase)
    data = frozenset({str(hint.fields.get("command", "")), "model", "gpt-x", "desktop:abc"})
    with pseudo_locale():
        left = {t: _english(localized(t), data) for t in texts if t is not None}
    assert {t: w for t, w in left.items() if w} == {}
    try:
        install_language("zh_CN")
        assert localized(short) == "要运行一条 shell 命令（不在沙箱中）"
        assert "命令在沙箱外运行" in localized(full) and "未安装 bubblewrap" in localized(full)
        assert localized(reasons[2]).startswith("要写入工作区之外：")
    finally:
        install_language("en")


def test_no_approval_reason_is_an_f_string() -> None:
    """A new rule returning an f-string (English the window cannot translate) fails here."""
    for function in (
        approval.approval_reason,
        ApprovalGate._shell_reason,
        approval._outside_reason,
    ):
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        returned = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Return) and isinstance(node.value, ast.JoinedStr)
        ]
        assert returned == [], function.__name__
