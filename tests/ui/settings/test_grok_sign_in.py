"""Settings → Providers → xAI Grok: the browser sign-in against a local fake of xAI's flow."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.xai_server import EMAIL, FakeXAIServer
from tests.ui.settings.test_sign_in import Browser, box_of, browser  # noqa: F401 - fixture


@pytest.fixture
def xai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeXAIServer]:
    with FakeXAIServer() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        yield server


def test_sign_in_with_xai_then_out(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    services: AppServices,
    memory_keyring: MemoryKeyring,
    xai: FakeXAIServer,
    browser: Browser,  # noqa: F811 - the fixture
) -> None:
    """Sign in with xAI opens the issuer's page; the browser comes back to the app, the
    account is shown, the tokens are in the keyring; Sign out forgets them."""
    tab = make_tab()
    box = box_of(tab, "xai_grok")
    qtbot.waitUntil(lambda: box.sign_in_button.isEnabled())
    assert box.sign_in_button.text() == "Sign in with xAI"
    qtbot.mouseClick(box.sign_in_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: EMAIL in box.state_label.text(), timeout=20_000)
    assert browser.urls[0].startswith(f"{xai.url}/oauth2/authorize?")
    stored = json.loads(memory_keyring.store[(services.secrets.service, "xai_grok")])
    assert stored["account"] == EMAIL and stored["access"] in xai.access_valid
    qtbot.waitUntil(lambda: box.sign_out_button.isVisible())
    qtbot.mouseClick(box.sign_out_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.state_label.text() == "Not signed in.")
    assert memory_keyring.store == {}
