"""Settings › Agent, Tools & safety and Dream & heartbeat in the pseudo locale: every text these
pages show (in each state: loaded, errors, the sandbox's states, a folder row) went through the
translation system; and in zh_CN they read Chinese."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.security.sandbox import (
    SandboxMode,
    SandboxStatus,
    reset_sandbox_status,
    sandbox_status,
)
from desktop.ui.i18n import install_language
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.agent_page import AgentPage
from desktop.ui.settings.allowances import AllowancesBox
from desktop.ui.settings.dream_page import DreamPage
from desktop.ui.settings.key_field import KeyField
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.schema_form import SchemaForm, config_path, field_info, title_of
from desktop.ui.settings.tools_page import ToolsPage, sandbox_words
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import pseudo_locale, untranslated
from tests.ui.settings.pages import page_of


def schema_texts(*forms: SchemaForm, paths: tuple[str, ...] = ()) -> list[str]:
    """The config fields' titles and descriptions (``schema_form``'s texts, translated there,
    not by these pages): named as allowed, so the check covers the pages' own words."""
    texts: list[str] = []
    for form in forms:
        for widget in form.widgets:
            texts += [widget.accessibleName(), widget.toolTip()]
    for path in paths:
        texts += [title_of(path), field_info(path).description or ""]
    return [text for text in texts if text]


@pytest.fixture
def sandbox() -> Iterator[Callable[[SandboxStatus], None]]:
    """Set the sandbox detection result the Tools page reads (restored afterwards)."""
    saved = sandbox_status()
    yield reset_sandbox_status
    reset_sandbox_status(saved)


def _open(make_tab: Callable[[], SettingsTab], section: str) -> SettingsPage:
    tab = make_tab()
    tab.show_section(section)
    page = tab.page(section)
    assert page is not None
    return page


def test_the_agent_page_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
) -> None:
    timezone = config_path(lambda c: c.agents.defaults.timezone)
    workspace = config_path(lambda c: c.agents.defaults.workspace)
    with pseudo_locale():
        page = _open(make_tab, "agent")
        assert isinstance(page, AgentPage)
        qtbot.waitUntil(lambda: page.workspace.kind != "")
        allow = [
            *schema_texts(page.form, paths=(timezone, workspace)),
            page.workspace.text(),
            str(tmp_path),
        ]
        assert untranslated(page, allow) == []
        # An unknown timezone: the field's reason in the page's error.
        page.timezone.setText("Mars/Olympus")
        page._set_dirty(True)
        assert not run_async(qtbot, qloop, page.save())
        assert untranslated(page, [*allow, "Mars/Olympus"]) == []
        # A file as the workspace: what the folder is, and the error on save.
        page.timezone.setText("")
        afile = tmp_path / "notes"
        afile.write_text("x", encoding="utf-8")
        page.workspace.set_text(str(afile))
        qtbot.waitUntil(lambda: page.workspace.kind == "invalid")
        assert not run_async(qtbot, qloop, page.save())
        assert untranslated(page, [*allow, str(afile)]) == []
        # An empty folder, a new one and no folder at all.
        (tmp_path / "empty").mkdir()
        for kind in ("empty", "new"):
            page.workspace.set_text(str(tmp_path / kind))
            qtbot.waitUntil(lambda: page.workspace.kind == kind)  # noqa: B023 - waited on here
            assert untranslated(page, [*allow, str(tmp_path / kind)]) == []
        page.workspace.set_text("")
        qtbot.waitUntil(lambda: page.workspace.kind == "")
        assert not run_async(qtbot, qloop, page.save())
        assert untranslated(page, allow) == []
        # A saved new workspace: the starter files added.
        page.workspace.set_text(str(tmp_path / "fresh"))
        assert run_async(qtbot, qloop, page.save(), 30_000)
        assert page.status.kind == "ok"
        assert untranslated(page, [*allow, str(tmp_path / "fresh")]) == []


def test_the_tools_page_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    sandbox: Callable[[SandboxStatus], None],
) -> None:
    sandbox(SandboxStatus(True, executable="/usr/bin/bwrap", socket_filter=True))
    provider = config_path(lambda c: c.tools.web.search.provider)
    with pseudo_locale():
        page = _open(make_tab, "tools")
        assert isinstance(page, ToolsPage)
        qtbot.waitUntil(lambda: "bubblewrap" in page.sandbox_status.text())
        qtbot.waitUntil(lambda: page.ask.isChecked() or page.autonomous.isChecked())
        allow = schema_texts(page.files_form, page.search_form, paths=(provider,))
        # The approvals list and the key field are other areas' widgets (their own checks).
        skip = [*page.findChildren(AllowancesBox), *page.findChildren(KeyField)]
        page.sandbox_box.add_folder("/srv/data", writable=True)
        assert untranslated(page, allow, skip=skip) == []
        # Every state of the sandbox line (the probe's reason and notes are its data).
        states: tuple[tuple[SandboxStatus, SandboxMode, list[str]], ...] = (
            (SandboxStatus(True, notes=("network cut",)), "auto", ["network cut"]),
            (SandboxStatus(False, reason="bwrap is missing"), "auto", ["bwrap is missing"]),
            (SandboxStatus(False, reason="bwrap is missing"), "required", ["bwrap is missing"]),
            (SandboxStatus(True), "off", []),
        )
        for status, mode, data in states:
            page.sandbox_status.setText(sandbox_words(status, mode))
            assert untranslated(page, [*allow, *data], skip=skip) == []
        # A folder that is not a full path: the sandbox box's error.
        page.sandbox_box.add_folder("relative/dir")
        assert not run_async(qtbot, qloop, page.save())
        assert untranslated(page, [*allow, "relative/dir"], skip=skip) == []


def test_the_dream_page_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    with pseudo_locale():
        page = _open(make_tab, "dream")
        assert isinstance(page, DreamPage)
        page.review.setChecked(True)
        assert run_async(qtbot, qloop, page.save())
        allow = schema_texts(page.dream_form, page.beat_form)
        assert untranslated(page, allow) == []


def test_the_pages_read_chinese_in_zh_cn(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    sandbox: Callable[[SandboxStatus], None],
) -> None:
    sandbox(SandboxStatus(True, executable="/usr/bin/bwrap", socket_filter=True))
    try:
        assert install_language("zh_CN") == "zh_CN"
        tab = make_tab()
        tools = page_of(tab, "tools", ToolsPage)
        agent = page_of(tab, "agent", AgentPage)
        dream = page_of(tab, "dream", DreamPage)
        tab.show_section("tools")
        qtbot.waitUntil(lambda: "bubblewrap" in tools.sandbox_status.text())
        assert tools.sandbox_status.text() == "沙箱：bubblewrap，已启用"
        assert tools.autonomous.text().startswith("自主")
        assert tools.sandbox_box.add_button.text() == "添加文件夹…"
        assert agent.workspace.browse.text() == "浏览…"
        assert dream.review.text() == "在梦境整理的修改生效前先审阅"
    finally:
        install_language("en")
