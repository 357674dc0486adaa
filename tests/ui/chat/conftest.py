"""Chat tab fixtures: a real runtime (``build_runtime``) on the scripted server, and a ChatTab."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.agent.loop import AgentLoop
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import ConfigOrigin
from desktop.core.config.schema import Config
from desktop.core.providers.litellm_provider import import_litellm
from desktop.ui.chat.chat_tab import ChatTab
from desktop.ui.services import AppServices
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async


class ChatHarness:
    """A ChatTab with a live agent, plus helpers to drive it."""

    def __init__(
        self,
        qtbot: QtBot,
        loop: asyncio.AbstractEventLoop,
        tab: ChatTab,
        services: AppServices,
        server: ScriptedOpenAIServer,
    ) -> None:
        self.qtbot, self.loop, self.tab, self.services, self.server = (
            qtbot,
            loop,
            tab,
            services,
            server,
        )

    @property
    def agent(self) -> AgentLoop:
        assert self.services.agent is not None
        return self.services.agent

    def make_ready(self) -> None:
        """Build the real agent on the scripted server and announce it (``agentReady``).

        LiteLLM is imported first (the app does that in the background; a first import inside
        a turn would block the loop for seconds and eat the test's time budget).
        """
        import_litellm()
        runtime = build_runtime(
            self.services.config, make_provider(self.server.url), approval=self.services.policy
        )
        run_async(self.qtbot, self.loop, runtime.start())
        self.services.set_runtime(runtime)

    def wait(self, condition: Callable[[], Any], timeout: int = 60_000) -> None:
        """Spin Qt (and asyncio) until ``condition()`` is true."""
        self.qtbot.waitUntil(lambda: bool(condition()), timeout=timeout)

    def send(self, text: str) -> None:
        """Type ``text`` and press Enter."""
        edit = self.tab.pane.composer.edit
        edit.setPlainText(text)
        self.tab.pane.composer.submit()

    def idle(self) -> None:
        """Wait until no turn runs and nothing sent is still waiting for its turn."""
        self.wait(lambda: not self.tab.state.sent and not self.tab.state.live)

    def items(self) -> list[Any]:
        model = self.tab.pane.view.model()
        assert model is not None
        return list(model.items)

    def kinds(self) -> list[str]:
        return [i.kind for i in self.items()]

    def requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.server.chat_requests()]


def session_path(workspace: Path, key: str) -> Path:
    """Where the chat tab of :func:`make_chat` keeps ``key`` (config beside the workspace)."""
    from desktop.core.session.manager import SessionManager

    return SessionManager(workspace, config_dir=workspace.parent).path_for(key)


def write_session(
    workspace: Path,
    key: str,
    messages: list[dict[str, Any]],
    *,
    updated: str = "2024-05-01T10:00:00",
    title: str = "",
) -> Path:
    """A session file in nanobot's format, in the legacy ``<workspace>/sessions`` folder (the
    app adopts it into nanobot 0.3.5's folder when it first reads the sessions)."""
    folder = workspace / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    meta = {
        "_type": "metadata",
        "key": key,
        "created_at": updated,
        "updated_at": updated,
        "metadata": {"title": title} if title else {},
        "last_consolidated": 0,
    }
    path = folder / (key.replace(":", "_") + ".jsonl")
    lines = [json.dumps(meta)] + [json.dumps(m) for m in messages]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace."""
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


MakeChat = Callable[..., ChatHarness]
"""The ``make_chat`` fixture: builds a shown ChatTab (``ready``, ``policy``, agent defaults)."""


@pytest.fixture
def make_chat(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
    workspace: Path,
    tmp_path: Path,
) -> Iterator[MakeChat]:
    """Build a ChatTab (1024×700, shown) with or without a ready agent."""
    made: list[ChatHarness] = []

    def factory(
        *,
        ready: bool = True,
        policy: ApprovalPolicy | None = None,
        auto_titles: bool = False,
        **defaults: Any,
    ) -> ChatHarness:
        config = Config.model_validate(
            {"agents": {"defaults": {"workspace": str(workspace), **defaults}}}
        )
        config._origin = ConfigOrigin(path=tmp_path / "config.json")
        services = AppServices(
            config,
            tmp_path / "config.json",
            None,  # type: ignore[arg-type]
            policy=policy,
        )
        tab = ChatTab(services)
        tab.auto_titles = auto_titles  # a title call would take a scripted reply meant for a turn
        tab.pane.view.open_links = False
        qtbot.addWidget(tab)
        tab.resize(1024, 700)
        tab.show()
        harness = ChatHarness(qtbot, qloop, tab, services, scripted_server)
        if ready:
            harness.make_ready()
        harness.wait(lambda: tab.current)
        made.append(harness)
        return harness

    yield factory
    for harness in made:
        run_async(qtbot, qloop, harness.tab.aclose())
        if harness.services.runtime is not None:
            run_async(qtbot, qloop, harness.services.runtime.stop())


@pytest.fixture(scope="session", autouse=True)
def _stop_qasync_threads(qloop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Shut qasync's default executor (QThreads) down before the QApplication goes.

    ``asyncio.to_thread`` runs on qasync's ``QThreadExecutor``; a QThread still running when
    the process exits aborts it ("QThread: Destroyed while thread is still running").
    """
    yield
    executor = getattr(qloop, "_QEventLoop__default_executor", None)
    if executor is not None:
        executor.shutdown(wait=True)
        qloop.set_default_executor(None)  # type: ignore[arg-type]
