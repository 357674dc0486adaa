"""Settings › Providers in the pseudo locale: the page, every kind of provider panel, the key
field, the sign-in box and the default model show no text that skipped the translation."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QListWidget, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.config.provider_registry import PROVIDERS
from desktop.core.config.secrets import KeyringUnavailable
from desktop.core.providers.oauth.flow import LoginError, LoginPrompt
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.key_field import KeyBackend, KeyField, KeySource, StoredWithWarning
from desktop.ui.settings.provider_guides import GUIDES
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.settings.widgets import mask
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, listed_texts, pseudo_locale, untranslated
from tests.ui.settings.pages import page_of

KEY = "sk-test-0123456789abcdefghijKLMN"


def data_on_screen() -> list[str]:
    """What the providers page shows that is data, not wording: brand names (those not
    marked for translation), environment variables, the provider sites' own words, commands."""
    listed = listed_texts()
    found = [s.display_name for s in PROVIDERS if s.display_name not in listed]
    found += [s.env_key for s in PROVIDERS if s.env_key]
    found += [page.where for page in GUIDES.values()] + [page.site for page in GUIDES.values()]
    found += [f"nanobot-desktop provider login {s.name.replace('_', '-')}" for s in PROVIDERS]
    found += [s.default_api_base for s in PROVIDERS if s.default_api_base]  # placeholders
    found += [page.link for page in GUIDES.values()]
    found += ["127.0.0.1", "localhost"]
    return found


def unmarked(texts: Iterable[str], allow: Iterable[str] = ()) -> list[str]:
    """The texts among ``texts`` (list items, painted or item-view text ``untranslated`` does
    not walk) that show English wording outside the pseudo brackets."""
    allowed = frozenset([*data_on_screen(), *allow])
    return [text for text in texts if text and _english(text, allowed)]


def untranslated_here(root: QWidget, allow: Iterable[str] = ()) -> list[str]:
    """:func:`untranslated` for ``root``, with its list widgets' items (their texts, tooltips
    and accessible names) checked here: ``untranslated`` cannot walk a ``QListWidget`` (its
    list model's ``columnCount`` needs an argument), so those are skipped there."""
    lists = [w for w in [root, *root.findChildren(QListWidget)] if isinstance(w, QListWidget)]
    found = untranslated(root, allow=[*allow, *data_on_screen()], skip=lists)
    for widget in lists:
        shown = [widget.toolTip(), widget.accessibleName(), widget.accessibleDescription()]
        for row in range(widget.count()):
            item = widget.item(row)
            shown += [item.text().removesuffix("  ✓"), item.toolTip()]
        found += [f"list item: {text!r}" for text in unmarked(shown, allow)]
    return found


def providers_page(tab: SettingsTab, qtbot: QtBot) -> ProvidersPage:
    tab.show_section("providers")
    page = page_of(tab, "providers", ProvidersPage)
    qtbot.waitUntil(lambda: bool(page.default_model.route.text()), timeout=10_000)
    return page


def test_the_providers_page_and_every_kind_of_panel_show_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
) -> None:
    """Keyed, gateway, local, Custom, Azure, Bedrock (its section's own fields), the old
    OpenCode Zen name, voice-only, a generic one and the three sign-in providers; with a key
    saved, a wrong key, an invalid endpoint, and the default model saved and refused."""
    with pseudo_locale():
        tab = make_tab()
        page = providers_page(tab, qtbot)
        names = [
            "openai",
            "openrouter",
            "ollama",
            "custom",
            "azure_openai",
            "bedrock",
            "opencode_zen",
            "assemblyai",
            "stepfun",
            "kimi_coding",
            "openai_codex",
            "xai_grok",
            "github_copilot",
        ]
        for name in names:
            page.show_provider(name)
            page.panel(name).advanced.setVisible(True)
        openai = page.panel("openai")
        key = present(openai.key)
        qtbot.waitUntil(lambda: key.current is not None)
        assert untranslated_here(page) == [], "before any action"

        # A wrong key, then a saved one (where it comes from, masked), shown and deleted.
        key.edit.setText("sk with spaces")
        assert not run_async(qtbot, qloop, key.save())
        assert untranslated(key) == []
        key.edit.setText(KEY)
        key.reveal.setChecked(True)
        assert run_async(qtbot, qloop, key.save())
        assert untranslated(key, allow=[services.secrets.service, mask(KEY)]) == []
        assert run_async(qtbot, qloop, key.delete())
        assert untranslated(key) == []
        assert not run_async(qtbot, qloop, key.delete())  # nothing stored any more
        assert untranslated(key) == []

        # An endpoint that is not an address; then saved.
        openai.api_base.setText("not an address")
        assert not run_async(qtbot, qloop, openai.save_endpoint_settings())
        reason = (
            openai.endpoint_status.text().split(": ", 1)[1].removesuffix("⟦. Nothing was saved.⟧")
        )
        # The reason comes from desktop/ui/settings/widgets.py (check_url), not this area.
        assert untranslated_here(openai, allow=[reason]) == []
        openai.api_base.setText("")
        assert run_async(qtbot, qloop, openai.save_endpoint_settings())
        assert untranslated_here(openai) == []

        # The default model: refused (empty, with spaces), saved (where it is sent).
        box = page.default_model
        box.model.setEditText("")
        assert not run_async(qtbot, qloop, box.save())
        assert untranslated(box, allow=data_on_screen()) == []  # the providers' brand names
        box.model.setEditText("gpt 4o")
        assert not run_async(qtbot, qloop, box.save())
        assert untranslated(box, allow=data_on_screen()) == []
        box.model.setEditText("ollama/llama3.2")
        box.provider.setCurrentIndex(box.provider.findData("ollama"))
        assert run_async(qtbot, qloop, box.save())
        qtbot.waitUntil(lambda: "⟦Sent to" in box.route.text())
        # A value put into a translated template sits inside its brackets: checked by name.
        assert "⟦no key needed⟧" in box.route.text()
        assert untranslated_here(box, allow=["ollama/llama3.2", "llama3.2"]) == []
        box.provider.setCurrentIndex(box.provider.findData("auto"))
        box.model.setEditText("gpt-4o-mini")
        assert run_async(qtbot, qloop, box.save())
        qtbot.waitUntil(lambda: "⟦no key yet" in box.route.text())
        assert untranslated_here(box, allow=["gpt-4o-mini"]) == []

        # The provider list's marks (their tooltips), once they are set.
        qtbot.waitUntil(lambda: bool(page.list.item(0).toolTip()))
        assert untranslated_here(page, allow=["gpt-4o-mini"]) == []


class Failing:
    """A key backend whose keyring refuses, or stores with a warning (one layer's unit)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def resolve(self) -> KeySource:
        raise KeyringUnavailable("no keyring here")

    async def store(self, value: str) -> None:
        raise self.error

    async def delete(self) -> bool:
        raise KeyringUnavailable("no keyring here")

    async def store_session(self, value: str) -> None:
        """Held in memory."""

    def backend(self) -> KeyBackend:
        return KeyBackend(self.resolve, self.store, self.delete, self.store_session)


def test_the_key_field_s_errors_and_session_fallback_are_translated(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    with pseudo_locale():
        for noun in ("key", "token", "password", "secret"):
            field = KeyField(
                Failing(KeyringUnavailable("no keyring here")).backend(),
                label="Bot token",
                noun=noun,
            )
            qtbot.addWidget(field)
            field.refresh()
            label = field.source_label
            qtbot.waitUntil(lambda: "⟦Cannot read the keyring" in label.text())  # noqa: B023  # waited on here
            field.edit.setText(KEY)
            assert not run_async(qtbot, qloop, field.save())
            assert field.session_button.isVisibleTo(field)
            assert run_async(qtbot, qloop, field.delete()) is False
            assert untranslated(field, allow=["Bot token", "no keyring here"]) == [], noun
            field.edit.setText("")
            assert not run_async(qtbot, qloop, field.save())
            assert untranslated(field, allow=["Bot token", "no keyring here"]) == [], noun
        warned = KeyField(
            Failing(StoredWithWarning("stored, but")).backend(), label="Bot token", noun="token"
        )
        qtbot.addWidget(warned)
        warned.edit.setText(KEY)
        assert run_async(qtbot, qloop, warned.save())
        assert untranslated(warned, allow=["Bot token", "no keyring here", "stored, but"]) == []
        other = KeyField(Failing(RuntimeError("disk full")).backend(), label="Bot token")
        qtbot.addWidget(other)
        other.edit.setText(KEY)
        assert not run_async(qtbot, qloop, other.save())
        assert untranslated(other, allow=["Bot token", "disk full"]) == []


class Browser(QObject):
    """Takes the URLs the app asks the desktop to open (no real browser starts)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url.toString())


@pytest.fixture
def browser() -> Iterator[Browser]:
    handler = Browser()
    for scheme in ("http", "https"):
        QDesktopServices.setUrlHandler(scheme, handler, "open")  # type: ignore[arg-type]  # PySide6 takes the slot name as str (its stub says bytes)
    yield handler
    for scheme in ("http", "https"):
        QDesktopServices.unsetUrlHandler(scheme)


def test_the_sign_in_box_in_every_state_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    browser: Browser,
) -> None:
    """Not signed in; the device code (copied); the browser wait; signed out of nobody."""
    with pseudo_locale():
        tab = make_tab()
        page = providers_page(tab, qtbot)
        allow = ["https://github.com/login/device", "WDJB-MJHT", *data_on_screen()]
        for name in ("github_copilot", "openai_codex", "xai_grok"):
            page.show_provider(name)
            box = present(page.panel(name).sign_in)
            state = box.state_label
            qtbot.waitUntil(lambda: state.text() == "⟦Not signed in.⟧")  # noqa: B023  # waited on here
            assert untranslated(box, allow=allow) == [], name
            box._prompt(LoginPrompt("device", "https://github.com/login/device", "WDJB-MJHT", 900))
            box.copy_code()
            assert untranslated(box, allow=allow) == [], name
            box._prompt(LoginPrompt("browser", "https://auth.example.org/authorize"))
            assert browser.urls[-1] == "https://auth.example.org/authorize"
            assert untranslated(box, allow=allow) == [], name
            box._show_idle(signed_in=False)
            assert not run_async(qtbot, qloop, box.sign_out())
            assert untranslated(box, allow=allow) == [], name


def test_a_failed_or_cancelled_sign_in_says_so_in_the_window_s_language(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A refused sign-in (the flow's error is the provider's words) and a cancelled one
    (the flow itself runs against the fake OAuth server in test_sign_in.py)."""
    import desktop.core.providers.oauth.accounts as accounts

    async def refused(*_args: object, **_kwargs: object) -> None:
        raise LoginError("access_denied")

    entered = asyncio.Event()

    async def waits(*_args: object, **_kwargs: object) -> None:
        entered.set()
        await asyncio.Event().wait()

    with pseudo_locale():
        tab = make_tab()
        page = providers_page(tab, qtbot)
        page.show_provider("openai_codex")
        box = present(page.panel("openai_codex").sign_in)
        qtbot.waitUntil(lambda: box.state_label.text() == "⟦Not signed in.⟧")
        monkeypatch.setattr(accounts, "sign_in", refused)
        assert not run_async(qtbot, qloop, box.sign_in())
        assert box.status.kind == "error"
        assert untranslated_here(box, allow=["access_denied"]) == []
        monkeypatch.setattr(accounts, "sign_in", waits)
        box.start()
        assert box.state_label.text() == "⟦Starting the sign-in…⟧"
        assert untranslated(box, allow=data_on_screen()) == []
        qtbot.waitUntil(entered.is_set)
        box.cancel()
        qtbot.waitUntil(lambda: box.status.kind == "info" and not box.running)
        assert untranslated(box, allow=data_on_screen()) == []
