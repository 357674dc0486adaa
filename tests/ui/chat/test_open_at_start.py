"""A chat asked for while the tab is still starting (a reminder clicked at launch) stays open."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.loader import ConfigOrigin
from desktop.core.config.schema import Config
from desktop.ui.chat.chat_tab import ChatTab
from desktop.ui.chat.sessions_controller import SessionsController
from desktop.ui.services import AppServices
from tests.ui.conftest import run_async


def test_a_chat_opened_as_the_start_up_listing_ends_is_the_one_shown(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The start-up listing finishes in the same loop step as a request to open a chat: the
    request wins (before: start-up then opened a new empty chat over it — under load the
    reminder a person clicked at launch was replaced by "New chat")."""
    listed = qloop.create_future()

    async def slow_refresh(self: SessionsController) -> None:
        await listed  # an empty workspace: nothing to list

    monkeypatch.setattr(SessionsController, "refresh", slow_refresh)
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    config._origin = ConfigOrigin(path=tmp_path / "config.json")
    services = AppServices(config, tmp_path / "config.json", None)  # type: ignore[arg-type]
    tab = ChatTab(services)
    qtbot.addWidget(tab)
    tab.show()
    qtbot.wait(50)  # the start-up task waits in the listing
    assert tab.current == ""
    listed.set_result(None)  # start-up resumes in the next loop step …
    tab.open_session("desktop:from-a-reminder")  # … and so does this request
    qtbot.wait(300)
    assert tab.current == "desktop:from-a-reminder"
    run_async(qtbot, qloop, tab.aclose())
