"""A command approval says so when commands run without the sandbox.

The sandbox detection is the real one: "no sandbox" is a ``PATH`` without ``bwrap``. The
gate is the runtime's (``build_runtime``), so the warning comes from the same place for the
window and every chat channel; each channel's question renders it.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy, ApprovalRequest, Decision
from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.security import sandbox as sb
from desktop.core.tools.base import ToolContext
from tests.core.agent.conftest import make_provider
from tests.core.agent.test_approval import ScriptedApprover
from tests.core.tools.sandbox_support import require_sandbox
from tests.fakes.openai_server import ScriptedOpenAIServer

WARNING = "Commands run without the sandbox: bubblewrap (bwrap) is not installed; install it ("


@pytest.fixture
def fresh_detection() -> Iterator[None]:
    saved = sb.cached_sandbox_status()
    sb.reset_sandbox_status(None)
    yield
    sb.reset_sandbox_status(saved)


@pytest.fixture
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_detection: None) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


async def _ask(
    server: ScriptedOpenAIServer, tmp_path: Path, sandbox: str, channels: list[str]
) -> list[ApprovalRequest]:
    """Ask the runtime's gate about one ``exec`` call per entry of ``channels``."""
    config = Config.model_validate(
        {
            "agents": {"defaults": {"workspace": str(tmp_path / "ws")}},
            "tools": {"exec": {"sandbox": sandbox}},
        }
    )
    (tmp_path / "ws").mkdir(exist_ok=True)
    runtime = build_runtime(config, make_provider(server.url), approval=ApprovalPolicy())
    approver = ScriptedApprover(*[Decision.DENY] * len(channels))
    assert runtime.approval is not None
    runtime.approval.add_approver(approver)
    try:
        for number, channel in enumerate(channels):
            ctx = ToolContext(
                workspace=tmp_path / "ws",
                session_key=f"{channel}:chat",
                channel=channel,
                chat_id="chat",
            )
            await runtime.approval.check(f"call-{number}", "exec", {"command": "ls"}, ctx)
    finally:
        await runtime.owner.aclose()
    return approver.requests


async def test_first_command_question_per_channel_says_it_runs_unsandboxed(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, no_bwrap: None
) -> None:
    """The first question in each channel carries the warning and how to install; later ones
    in the same channel a short reminder."""
    first, again, other = await _ask(
        scripted_server, tmp_path, "", ["telegram", "telegram", "email"]
    )
    assert first.reason.startswith("runs a shell command — " + WARNING), first.reason
    assert "apt install bubblewrap" in first.reason
    assert again.reason == "runs a shell command without the sandbox"
    assert other.reason.startswith("runs a shell command — " + WARNING)


@pytest.mark.parametrize("sandbox", ["none", "bwrap"], ids=["turned-off", "required"])
async def test_no_warning_when_commands_do_not_run_unsandboxed(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, no_bwrap: None, sandbox: str
) -> None:
    """Turned off is the person's choice (Settings says so); required refuses commands."""
    [request] = await _ask(scripted_server, tmp_path, sandbox, ["telegram"])
    assert request.reason == "runs a shell command"


async def test_no_warning_with_a_working_sandbox(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, fresh_detection: None
) -> None:
    require_sandbox()
    [request] = await _ask(scripted_server, tmp_path, "", ["telegram"])
    assert request.reason == "runs a shell command"


def _render(module: str, name: str) -> Callable[[ApprovalRequest], Any]:
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


RENDERERS = {
    "reply keyword (Email, Matrix, DingTalk, QQ, WhatsApp, Mochat)": (
        "desktop.core.channels.approvals",
        "question_text",
    ),
    "Telegram": ("desktop.core.channels.telegram.buttons", "question_html"),
    "Discord": ("desktop.core.channels.discord.buttons", "question_text"),
    "Slack": ("desktop.core.channels.slack.buttons", "question_mrkdwn"),
    "Feishu": ("desktop.core.channels.feishu.buttons", "question_card"),
}


@pytest.mark.parametrize("renderer", list(RENDERERS))
async def test_every_channel_shows_the_warning_in_its_question(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, no_bwrap: None, renderer: str
) -> None:
    module, name = RENDERERS[renderer]
    try:
        render = _render(module, name)
    except ImportError as exc:  # the channel's SDK is an optional extra
        pytest.skip(f"{renderer}: {exc}")
    [request] = await _ask(scripted_server, tmp_path, "", [renderer])
    shown = render(request)
    text = json.dumps(shown, ensure_ascii=False) if isinstance(shown, dict) else shown
    assert "Commands run without the sandbox" in text and "apt install bubblewrap" in text
