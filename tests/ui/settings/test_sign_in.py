"""Settings → Providers: signing in to ChatGPT (Codex) and GitHub Copilot in the app.

The sign-in flows run against the local fake OAuth server. "The browser" is a URL handler
registered with QDesktopServices (Qt's own hook), so Open browser is observed, and for the
ChatGPT flow the handler plays the browser: it opens the page and follows the redirect back
to the app's callback server.
"""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication
from pytestqt.qtbot import QtBot

from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.settings.sign_in import SignInBox
from tests.conftest import write_config
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.oauth_server import EMAIL, GITHUB_LOGIN, FakeOAuthServer
from tests.real_keyring import RealKeyring
from tests.ui.conftest import run_async


class Browser(QObject):
    """Receives every http(s) URL the app asks the desktop to open."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, follow: bool) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.follow = follow
        self.loop = loop
        self.pages: list[httpx.Response] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url.toString())
        if self.follow:
            self.loop.create_task(self._visit(url.toString()))

    async def _visit(self, url: str) -> None:
        async with httpx.AsyncClient(follow_redirects=True, timeout=10) as client:
            self.pages.append(await client.get(url))


@pytest.fixture
def oauth_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOAuthServer]:
    with FakeOAuthServer() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def browser(qloop: asyncio.AbstractEventLoop, request: pytest.FixtureRequest) -> Iterator[Browser]:
    handler = Browser(qloop, follow=getattr(request, "param", True))
    for scheme in ("http", "https"):
        QDesktopServices.setUrlHandler(scheme, handler, "open")  # type: ignore[arg-type]  # PySide6 takes the slot name as str (its stub says bytes)
    yield handler
    for scheme in ("http", "https"):
        QDesktopServices.unsetUrlHandler(scheme)


def box_of(tab: SettingsTab, name: str) -> SignInBox:
    tab.show_section(f"providers/{name}")
    page = tab.page("providers")
    assert isinstance(page, ProvidersPage)
    panel = page.panel(name)
    page.show_provider(name)
    assert panel.key is None and panel.sign_in is not None  # no key field for these two
    return panel.sign_in


def test_device_sign_in_shows_the_code_and_signs_in_then_out(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    memory_keyring: MemoryKeyring,
    oauth_server: FakeOAuthServer,
    browser: Browser,
) -> None:
    oauth_server.device_script.extend(["authorization_pending"] * 8)
    tab = make_tab()
    box = box_of(tab, "github_copilot")
    qtbot.waitUntil(lambda: box.state_label.text() == "Not signed in.")
    assert box.sign_in_button.isVisible() and box.sign_in_button.text() == "Sign in with GitHub"
    assert not box.sign_out_button.isVisible()

    qtbot.mouseClick(box.sign_in_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.code.isVisible() and box.code.text() == "WDJB-MJHT")
    assert f"{oauth_server.url}/login/device" in box.instructions.text()
    assert box.copy_button.isVisible() and box.cancel_button.isVisible()
    qtbot.mouseClick(box.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "WDJB-MJHT"
    qtbot.mouseClick(box.open_button, Qt.MouseButton.LeftButton)
    assert browser.urls == [f"{oauth_server.url}/login/device"]

    with qtbot.waitSignal(tab.keyChanged, timeout=15_000) as changed:
        pass  # polling goes on until the fake server's script runs out
    assert changed.args == ["github_copilot"]
    qtbot.waitUntil(lambda: box.state_label.text() == f"Signed in as {GITHUB_LOGIN}")
    assert box.sign_out_button.isVisible() and not box.sign_in_button.isVisible()
    assert not box.code.isVisible() and not box.cancel_button.isVisible()
    stored = json.loads(memory_keyring.store[(services.secrets.service, "github_copilot")])
    assert stored["account"] == GITHUB_LOGIN
    # The provider list marks it.
    page = tab.page("providers")
    assert isinstance(page, ProvidersPage)
    names = [page.list.item(i).text() for i in range(page.list.count())]
    qtbot.waitUntil(
        lambda: "GitHub Copilot  ✓" in [page.list.item(i).text() for i in range(page.list.count())]
    )
    assert "GitHub Copilot" in " ".join(names)

    with qtbot.waitSignal(tab.keyChanged) as changed:
        qtbot.mouseClick(box.sign_out_button, Qt.MouseButton.LeftButton)
    assert changed.args == ["github_copilot"]
    qtbot.waitUntil(lambda: box.state_label.text() == "Not signed in.")
    assert (services.secrets.service, "github_copilot") not in memory_keyring.store
    assert box.status.text() == "Signed out of GitHub Copilot."
    assert box.sign_in_button.isVisible() and box.sign_in_button.isEnabled()


@pytest.mark.parametrize("browser", [False], indirect=True)
def test_cancel_stops_the_browser_sign_in(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    services: AppServices,
    memory_keyring: MemoryKeyring,
    oauth_server: FakeOAuthServer,
    browser: Browser,
) -> None:
    tab = make_tab()
    box = box_of(tab, "openai_codex")
    qtbot.waitUntil(lambda: box.sign_in_button.isEnabled())
    assert box.sign_in_button.text() == "Sign in with ChatGPT"
    qtbot.mouseClick(box.sign_in_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(browser.urls) == 1)  # the browser was opened at once
    assert browser.urls[0].startswith(f"{oauth_server.url}/oauth/authorize?")
    assert box.state_label.text() == "Waiting for the browser…"
    redirect = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(browser.urls[0]).query))[
        "redirect_uri"
    ]
    port = int(urllib.parse.urlsplit(redirect).port or 0)
    socket.create_connection(("127.0.0.1", port), timeout=2).close()

    qtbot.mouseClick(box.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.status.text() == "Sign-in cancelled. Nothing was stored.")
    qtbot.waitUntil(lambda: box.state_label.text() == "Not signed in.")
    assert box.sign_in_button.isVisible() and not box.cancel_button.isVisible()
    assert not box.instructions.isVisible()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    assert memory_keyring.store == {}


def test_the_refresh_after_a_cancelled_sign_in_is_the_box_s_own_task(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    monkeypatch: pytest.MonkeyPatch,
    memory_keyring: MemoryKeyring,
) -> None:
    """After a cancelled sign-in the box reads who is signed in again (shielded from the
    cancel). On a slow keyring that read outlives the flow: it is one of the box's tasks, so
    closing the box stops it (CI once saw it left behind by a closed Settings tab)."""
    import desktop.core.providers.oauth.accounts as accounts

    tab = make_tab()
    box = box_of(tab, "openai_codex")
    qtbot.waitUntil(lambda: box.sign_in_button.isEnabled())
    entered, release = asyncio.Event(), asyncio.Event()

    async def waits(*_args: object, **_kwargs: object) -> None:
        entered.set()
        await asyncio.Event().wait()

    async def slow_read(*_args: object, **_kwargs: object) -> None:
        await release.wait()

    monkeypatch.setattr(accounts, "sign_in", waits)
    monkeypatch.setattr(accounts, "asigned_in", slow_read)
    box.start()
    qtbot.waitUntil(entered.is_set)
    box.cancel()
    qtbot.waitUntil(lambda: box.status.text() == "Sign-in cancelled. Nothing was stored.")
    refresh = [t for t in box.tasks.tasks if t.get_name().endswith(":sign-in-refresh")]
    assert len(refresh) == 1 and not refresh[0].done()
    box.close()
    assert refresh[0].cancelling()
    qtbot.waitUntil(refresh[0].done)
    release.set()


def test_a_failed_sign_in_says_why(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    memory_keyring: MemoryKeyring,
    oauth_server: FakeOAuthServer,
    browser: Browser,
) -> None:
    oauth_server.device_script.extend(["authorization_pending", "access_denied"])
    tab = make_tab()
    box = box_of(tab, "github_copilot")
    qtbot.waitUntil(lambda: box.sign_in_button.isEnabled())
    qtbot.mouseClick(box.sign_in_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.status.kind == "error", timeout=10_000)
    assert box.status.text() == "The sign-in was cancelled in the browser. Nothing was stored."
    qtbot.waitUntil(lambda: box.state_label.text() == "Not signed in.")
    assert memory_keyring.store == {}


@pytest.mark.keyring_real
def test_browser_sign_in_lands_in_the_real_keyring_and_tests_ok(
    real_keyring: RealKeyring,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    oauth_server: FakeOAuthServer,
    browser: Browser,
) -> None:
    """The whole ChatGPT sign-in from Settings into the Secret Service; Test connection then
    answers through the Codex API; config.json never holds a token."""
    path = write_config(
        tmp_path / "c" / "config.json",
        {
            "agents": {
                "defaults": {
                    "model": "openai-codex/gpt-5.1-codex",
                    "workspace": str(tmp_path / "ws"),
                }
            }
        },
    )
    services = AppServices(load_config(path), path, SecretStore(real_keyring.service, timeout=15))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    tab.resize(1024, 700)
    tab.show()
    box = box_of(tab, "openai_codex")
    qtbot.waitUntil(lambda: box.sign_in_button.isEnabled(), timeout=20_000)
    with qtbot.waitSignal(box.changed, timeout=30_000):
        qtbot.mouseClick(box.sign_in_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.state_label.text() == f"Signed in as {EMAIL}", timeout=20_000)
    [page] = browser.pages
    assert page.status_code == 200
    stored = json.loads(real_keyring.get("openai_codex") or "{}")
    assert stored["account"] == EMAIL
    text = path.read_text(encoding="utf-8")
    assert all(token not in text for token in oauth_server.issued)

    page_widget = tab.page("providers")
    assert isinstance(page_widget, ProvidersPage)
    route = page_widget.default_model.route
    qtbot.waitUntil(lambda: f"(signed in as {EMAIL})" in route.text(), timeout=20_000)
    assert route.text().startswith("Sent to ChatGPT (Codex)")
    panel = page_widget.panel("openai_codex")
    assert panel.test_model.text() == "openai-codex/gpt-5.1-codex"
    assert run_async(qtbot, qloop, panel.test(), timeout_ms=30_000)
    assert panel.test_status.text().startswith("Connected: gpt-5.1-codex answered")
    assert run_async(qtbot, qloop, box.sign_out(), timeout_ms=30_000)
    assert real_keyring.get("openai_codex") is None
    future: Any = asyncio.ensure_future(tab.aclose())
    qtbot.waitUntil(future.done, timeout=30_000)
