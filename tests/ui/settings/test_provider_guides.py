"""Provider pages that guide: the key first with how to get one and a link to the provider's
key page, the endpoint and headers in a closed "Advanced" (local servers, Custom and Azure keep
their address with the essentials); an endpoint typed under Advanced still saves."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.core.config.provider_registry import PROVIDERS
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.provider_panel import ProviderPanel
from desktop.ui.settings.providers_page import ProvidersPage
from tests.typed import present
from tests.ui.settings.conftest import on_disk


def _page(tab: SettingsTab) -> ProvidersPage:
    tab.show_section("providers")
    page = tab.page("providers")
    assert isinstance(page, ProvidersPage)
    return page


def _inside(widget: QWidget, ancestor: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parentWidget()
    return False


def _above(panel: ProviderPanel, first: QWidget, second: QWidget) -> bool:
    body = present(panel.widget())
    return (
        first.mapTo(body, first.rect().topLeft()).y()
        < second.mapTo(body, second.rect().topLeft()).y()
    )


def test_every_provider_page_leads_with_the_key_and_hides_the_endpoint(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    page = _page(make_tab())
    for spec in PROVIDERS:
        page.show_provider(spec.name)
        panel = page.panels[spec.name]
        qtbot.waitUntil(panel.isVisible)
        assert panel.how_to.isVisible() and panel.how_to.text(), spec.name
        credential = panel.sign_in if spec.oauth else panel.key
        assert credential is not None and credential.isVisible()
        assert _above(panel, panel.how_to, credential)
        assert not panel.advanced.is_open, spec.name
        assert panel.advanced.toggle.isVisible()
        assert not panel.headers.isVisible()  # under the closed Advanced
        assert _inside(panel.headers, panel.advanced.body)
        for field in panel.extras.fields.values():
            assert _inside(field, panel.advanced.body), spec.name
        local = spec.is_local or spec.name in ("custom", "azure_openai")
        assert panel.api_base.isVisible() == local, spec.name
        assert _inside(panel.api_base, panel.advanced.body) != local
        if not spec.transcription_only:
            assert _above(panel, credential, panel.test_box)
            assert _above(panel, panel.test_box, panel.advanced)
    # The common providers link to their key page; the others say what to do in general.
    openai = page.panels["openai"].how_to.text()
    assert "https://platform.openai.com/api-keys" in openai and "API keys" in openai
    assert "https://console.anthropic.com/settings/keys" in page.panels["anthropic"].how_to.text()
    assert "https://openrouter.ai/keys" in page.panels["openrouter"].how_to.text()
    assert "https://aistudio.google.com/app/apikey" in page.panels["gemini"].how_to.text()
    generic = page.panels["stepfun"].how_to.text()
    assert "StepFun" in generic and "href" not in generic
    assert "Sign in with your" in page.panels["openai_codex"].how_to.text()
    assert "Start Ollama" in page.panels["ollama"].how_to.text()


def test_headers_typed_under_advanced_with_the_keyboard_are_saved(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    tab = make_tab()
    tab.show_section("providers/groq")
    panel = _page(tab).panel("groq")
    qtbot.waitUntil(panel.isVisible)
    panel.advanced.toggle.setFocus()
    qtbot.waitUntil(panel.advanced.toggle.hasFocus)
    QTest.keyClick(panel.advanced.toggle, Qt.Key.Key_Space)
    assert panel.advanced.is_open and panel.headers.isVisible() and panel.api_base.isVisible()
    panel.api_base.setFocus()
    qtbot.waitUntil(panel.api_base.hasFocus)
    QTest.keyClicks(panel.api_base, "https://api.groq.com/openai/v1")
    QTest.keyClick(panel.api_base, Qt.Key.Key_Tab)
    qtbot.waitUntil(panel.headers.hasFocus)
    QTest.keyClicks(panel.headers, "X-Team: blue")
    QTest.mouseClick(panel.save_endpoint, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.endpoint_status.kind == "ok", timeout=10_000)
    groq = on_disk(config_path)["providers"]["groq"]
    assert groq["apiBase"] == "https://api.groq.com/openai/v1"
    assert groq["extraHeaders"] == {"X-Team": "blue"}
