"""Providers page: keys go to the keyring only, Test connection, Fetch models, default model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDoubleSpinBox
from pytestqt.qtbot import QtBot

from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.agent_page import AgentPage
from desktop.ui.settings.providers_page import ProvidersPage
from tests.conftest import write_config
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Fail, ScriptedOpenAIServer
from tests.real_keyring import RealKeyring
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.settings.conftest import on_disk
from tests.ui.settings.pages import page_of, widget_as
from tests.waiting import serving

KEY = "sk-test-0123456789abcdefghijKLMN"


def providers(tab: SettingsTab) -> ProvidersPage:
    tab.show_section("providers")
    page = page_of(tab, "providers", ProvidersPage)
    assert isinstance(page, ProvidersPage)
    return page


def test_key_goes_to_the_keyring_never_to_config_json(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    memory_keyring: MemoryKeyring,
    config_path: Path,
) -> None:
    """Saving a key: keyring entry under the store's service, config.json without the key."""
    tab = make_tab()
    tab.show_section("providers/openai")
    panel = providers(tab).panel("openai")
    present(panel.key).edit.setText(KEY)
    with qtbot.waitSignal(tab.keyChanged) as changed:
        assert run_async(qtbot, qloop, present(panel.key).save())
    assert changed.args == ["openai"]
    assert memory_keyring.store[(services.secrets.service, "openai")] == KEY
    text = config_path.read_text(encoding="utf-8")
    assert KEY not in text
    qtbot.waitUntil(lambda: "OS keyring" in present(panel.key).source_label.text())
    assert KEY not in present(panel.key).source_label.text()
    assert present(panel.key).source_label.text().endswith("••••KLMN")
    assert present(panel.key).edit.text() == ""  # the typed key does not linger in the widget
    # Other pages save the whole config: still no key in the file.
    tab.show_section("agent")
    agent = page_of(tab, "agent", AgentPage)
    widget_as(agent.temperature, QDoubleSpinBox).setValue(0.5)
    assert run_async(qtbot, qloop, agent.save())
    assert KEY not in config_path.read_text(encoding="utf-8")
    assert on_disk(config_path)["agents"]["defaults"]["temperature"] == 0.5
    # Delete removes it from the keyring.
    assert run_async(qtbot, qloop, present(panel.key).delete())
    assert (services.secrets.service, "openai") not in memory_keyring.store
    qtbot.waitUntil(lambda: present(panel.key).source_label.text() == "No key set.")


def test_plaintext_key_in_config_moves_out_when_a_key_is_saved(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    keyring_service: str,
) -> None:
    """An old nanobot config with a plaintext apiKey: the source says so; saving a key drops it."""
    old = "sk-old-plaintext-0123456789"
    path = write_config(
        tmp_path / "c" / "config.json",
        {
            "agents": {"defaults": {"model": "deepseek-chat", "workspace": str(tmp_path / "ws")}},
            "providers": {"deepseek": {"apiKey": old, "apiBase": "https://api.deepseek.com/v1"}},
        },
    )
    services = AppServices(load_config(path), path, SecretStore(keyring_service))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    panel = providers(tab).panel("deepseek")
    qtbot.waitUntil(lambda: "plaintext" in present(panel.key).source_label.text())
    present(panel.key).edit.setText(KEY)
    assert run_async(qtbot, qloop, present(panel.key).save())
    data = on_disk(path)
    assert data["providers"]["deepseek"]["apiKey"] is None
    assert data["providers"]["deepseek"]["apiBase"] == "https://api.deepseek.com/v1"
    assert old not in path.read_text() and KEY not in path.read_text()
    assert memory_keyring.store[(keyring_service, "deepseek")] == KEY


def test_reference_in_config_is_kept(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    keyring_service: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ${VAR} apiKey is shown as a reference and written back unchanged on save."""
    monkeypatch.setenv("MY_GROQ", "gsk_secretvalue0123456789")
    path = write_config(
        tmp_path / "c" / "config.json",
        {
            "agents": {"defaults": {"workspace": str(tmp_path / "ws")}},
            "providers": {"groq": {"apiKey": "${MY_GROQ}"}},
        },
    )
    services = AppServices(load_config(path), path, SecretStore(keyring_service))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    panel = providers(tab).panel("groq")
    qtbot.waitUntil(lambda: "reference ${MY_GROQ}" in present(panel.key).source_label.text())
    panel.api_base.setText("https://api.groq.com/openai/v1")
    assert run_async(qtbot, qloop, panel.save_endpoint_settings())
    data = on_disk(path)
    assert data["providers"]["groq"]["apiKey"] == "${MY_GROQ}"
    assert "gsk_secretvalue" not in path.read_text()


@pytest.mark.keyring_real
def test_key_lands_in_the_real_secret_service(
    real_keyring: RealKeyring,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
) -> None:
    """The real tier: Settings → Secret Service, and config.json never holds the key."""
    path = write_config(
        tmp_path / "c" / "config.json",
        {
            "agents": {"defaults": {"model": "gpt-4o-mini", "workspace": str(tmp_path / "ws")}},
        },
    )
    services = AppServices(load_config(path), path, SecretStore(real_keyring.service, timeout=15))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    panel = providers(tab).panel("openai")
    present(panel.key).edit.setText(KEY)
    assert run_async(qtbot, qloop, present(panel.key).save(), timeout_ms=30_000)
    assert real_keyring.get("openai") == KEY
    assert KEY not in path.read_text(encoding="utf-8")
    qtbot.waitUntil(lambda: "OS keyring" in present(panel.key).source_label.text(), timeout=20_000)
    assert run_async(qtbot, qloop, present(panel.key).delete(), timeout_ms=30_000)
    assert real_keyring.get("openai") is None


def _custom_panel(tab: SettingsTab, url: str, model: str) -> Any:
    panel = providers(tab).panel("custom")
    panel.api_base.setText(url)
    panel.test_model.setText(model)
    return panel


def test_test_connection_succeeds_with_one_token(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """A real one-token request through LiteLLM to the scripted server."""
    tab = make_tab()
    panel = _custom_panel(tab, scripted_server.url, "scripted-model")
    assert run_async(qtbot, qloop, panel.test(), timeout_ms=60_000)
    assert panel.test_status.kind == "ok"
    assert "Connected" in panel.test_status.text()
    [request] = scripted_server.chat_requests()
    assert request.body["max_tokens"] == 1
    assert request.body["model"] == "scripted-model"


def test_test_connection_401_is_shown_redacted(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """The server echoes the key in its 401 body: the message shown never contains it."""
    scripted_server.push(
        Fail(401, "Incorrect API key provided", echo_key=True, error_type="invalid_request_error")
    )
    tab = make_tab()
    panel = _custom_panel(tab, scripted_server.url, "scripted-model")
    panel.key.edit.setText(KEY)  # typed, not saved: the test uses it
    assert not run_async(qtbot, qloop, panel.test(), timeout_ms=60_000)
    assert panel.test_status.kind == "error"
    shown = panel.test_status.text()
    assert "401" in shown and "Incorrect API key" in shown
    assert KEY not in shown and KEY[8:] not in shown
    assert scripted_server.chat_requests()[0].headers["Authorization"] == f"Bearer {KEY}"


class ModelsServer:
    """A tiny OpenAI-style ``GET /v1/models`` that wants one bearer key."""

    def __init__(self, key: str, models: list[str]) -> None:
        self.key, self.models = key, models
        self.seen: list[tuple[str, str | None, str | None]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                outer.seen.append(
                    (self.path, self.headers.get("Authorization"), self.headers.get("X-Team"))
                )
                body: dict[str, object]
                if self.headers.get("Authorization") != f"Bearer {outer.key}":
                    status, body = (
                        401,
                        {"error": {"message": f"bad key {self.headers.get('Authorization')}"}},
                    )
                elif self.path != "/v1/models":
                    status, body = 404, {"error": {"message": "no"}}
                else:
                    status, body = (
                        200,
                        {"object": "list", "data": [{"id": m} for m in outer.models]},
                    )
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        serving(self.server).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def models_server() -> Iterator[ModelsServer]:
    server = ModelsServer(KEY, ["zeta-model", "alpha-model", "beta-model"])
    yield server
    server.close()


def test_fetch_models_lists_and_sets_the_default(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    models_server: ModelsServer,
    services: AppServices,
    config_path: Path,
) -> None:
    """Stored key + extra header are sent; the sorted list appears; picking one saves the default."""
    tab = make_tab()
    page = providers(tab)
    panel = page.panel("vllm")
    panel.api_base.setText(models_server.url)
    panel.headers.setPlainText("X-Team: blue")
    assert run_async(qtbot, qloop, panel.save_endpoint_settings())
    # Without a key the server says 401, shown redacted-safe and nothing listed.
    assert not run_async(qtbot, qloop, panel.fetch())
    assert panel.models_status.kind == "error" and "401" in panel.models_status.text()
    run_async(qtbot, qloop, services.secrets.aset("vllm", KEY))
    present(panel.key).refresh()
    assert run_async(qtbot, qloop, panel.fetch())
    assert models_server.seen[-1] == ("/v1/models", f"Bearer {KEY}", "blue")
    items = [panel.models.item(i).text() for i in range(panel.models.count())]
    assert items == ["alpha-model", "beta-model", "zeta-model"]
    panel.filter.setText("bet")
    assert [panel.models.item(i).isHidden() for i in range(3)] == [True, False, True]
    panel.models.setCurrentRow(1)
    panel.use_button.click()
    qtbot.waitUntil(
        lambda: on_disk(config_path)["agents"]["defaults"]["model"] == "beta-model", timeout=10_000
    )
    defaults = on_disk(config_path)["agents"]["defaults"]
    assert defaults["provider"] == "vllm"
    assert on_disk(config_path)["providers"]["vllm"]["extraHeaders"] == {"X-Team": "blue"}
    qtbot.waitUntil(lambda: "vLLM" in page.default_model.route.text())


def test_invalid_endpoint_input_saves_nothing(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """A bad URL or header line: inline error, file untouched, typed text kept."""
    before = config_path.read_bytes()
    tab = make_tab()
    panel = providers(tab).panel("openai")
    panel.api_base.setText("api.example.com/v1")
    assert not run_async(qtbot, qloop, panel.save_endpoint_settings())
    assert "API base" in panel.endpoint_status.text() and panel.endpoint_status.kind == "error"
    panel.api_base.setText("https://api.example.com/v1")
    panel.headers.setPlainText("no colon here")
    assert not run_async(qtbot, qloop, panel.save_endpoint_settings())
    assert "line 1" in panel.endpoint_status.text()
    assert config_path.read_bytes() == before
    assert panel.headers.toPlainText() == "no colon here"
    box = providers(tab).default_model
    box.model.setEditText("   ")
    assert not run_async(qtbot, qloop, box.save())
    assert box.status.kind == "error"
    assert config_path.read_bytes() == before


def test_use_as_default_saves_a_typed_endpoint_and_reloads_keep_edits(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
    config_path: Path,
) -> None:
    """URL typed (not saved) → fetch → use a model: the URL is saved with it; a save elsewhere
    does not wipe an unsaved URL in another panel."""
    tab = make_tab()
    page = providers(tab)
    lm = page.panel("lm_studio")
    lm.api_base.setText("http://127.0.0.1:9/v1")
    lm._endpoint_edited()
    panel = page.panel("custom")
    panel.api_base.setText(scripted_server.url)
    panel._endpoint_edited()
    assert run_async(qtbot, qloop, panel.fetch())
    panel.models.setCurrentRow(0)
    assert run_async(qtbot, qloop, panel.use_model("scripted-model"))
    qtbot.waitUntil(
        lambda: on_disk(config_path)["agents"]["defaults"]["model"] == "scripted-model",
        timeout=10_000,
    )
    data = on_disk(config_path)
    assert data["providers"]["custom"]["apiBase"] == scripted_server.url
    assert data["agents"]["defaults"]["provider"] == "custom"
    assert lm.api_base.text() == "http://127.0.0.1:9/v1"  # unsaved edit survived the reloads
    assert data["providers"]["lmStudio"]["apiBase"] is None
