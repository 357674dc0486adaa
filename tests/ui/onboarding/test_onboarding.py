"""First run: needs_onboarding, and the whole flow against the scripted OpenAI server."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.ui.onboarding import OnboardingWizard, needs_onboarding
from desktop.ui.services import AppServices
from tests.conftest import write_config
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Fail, ScriptedOpenAIServer
from tests.ui.conftest import run_async

KEY = "sk-onboarding-0123456789abcdefXYZ"


@pytest.fixture
def service() -> str:
    return f"nanobot-desktop-test-{uuid.uuid4().hex[:10]}"


def fresh_services(tmp_path: Path, service: str) -> AppServices:
    """A first start: no config file."""
    path = tmp_path / "home" / ".nanobot" / "config.json"
    return AppServices(load_config(path), path, SecretStore(service))


def test_needs_onboarding_cases(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    service: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No file → yes; a model whose provider has no key → yes; a key, a local server → no."""
    store = SecretStore(service)
    services = fresh_services(tmp_path, service)
    assert run_async(qtbot, qloop, needs_onboarding(services.config, store))
    path = write_config(
        tmp_path / "a" / "config.json", {"agents": {"defaults": {"model": "gpt-4o-mini"}}}
    )
    config = load_config(path)
    assert run_async(qtbot, qloop, needs_onboarding(config, store))
    store.set("openai", KEY)
    assert not run_async(qtbot, qloop, needs_onboarding(config, store))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env-0123456789")
    path = write_config(
        tmp_path / "b" / "config.json", {"agents": {"defaults": {"model": "claude-opus-4-5"}}}
    )
    assert not run_async(qtbot, qloop, needs_onboarding(load_config(path), store))
    path = write_config(
        tmp_path / "c" / "config.json",
        {
            "agents": {"defaults": {"model": "qwen2.5", "provider": "custom"}},
            "providers": {"custom": {"apiBase": "http://127.0.0.1:8080/v1"}},
        },
    )
    assert not run_async(qtbot, qloop, needs_onboarding(load_config(path), store))
    path = write_config(
        tmp_path / "d" / "config.json", {"agents": {"defaults": {"model": "some-unknown-model"}}}
    )
    assert run_async(
        qtbot, qloop, needs_onboarding(load_config(path), SecretStore(service + "-empty"))
    )


def test_onboarding_end_to_end_against_the_scripted_server(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    service: str,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Custom server URL + key → test lists the models → pick, try (one token) → workspace → saved."""
    services = fresh_services(tmp_path, service)
    wizard = OnboardingWizard(services)
    qtbot.addWidget(wizard)
    wizard.resize(1024, 700)
    wizard.show()
    assert wizard.progress.text() == "Step 1 of 4" and not wizard.back_button.isEnabled()
    wizard.provider_step.select("custom")
    assert run_async(qtbot, qloop, wizard.next())
    connect = wizard.connect_step
    assert wizard.step_title.text() == "Connect to Custom (OpenAI-compatible)"
    assert connect.api_base.isVisibleTo(wizard)
    connect.api_base.setText("localhost:1234")  # not a URL
    assert not run_async(qtbot, qloop, wizard.next())
    assert "Server URL" in connect.status.text() and wizard.index == 1
    connect.api_base.setText(scripted_server.url)
    connect.key.setText(KEY)
    result = run_async(qtbot, qloop, connect.test(), 30_000)
    assert result is not None and result.ok and connect.models == ["scripted-model"]
    assert "It works" in connect.status.text()
    assert scripted_server.requests[-1].headers["Authorization"] == f"Bearer {KEY}"
    assert run_async(qtbot, qloop, wizard.next())
    assert memory_keyring.store[(service, "custom")] == KEY  # stored on Next
    model = wizard.model_step
    assert model.chosen() == "scripted-model"
    assert run_async(qtbot, qloop, model.try_model(), 60_000)
    request = scripted_server.chat_requests()[-1]
    assert request.body["max_tokens"] == 1 and request.headers["Authorization"] == f"Bearer {KEY}"
    assert run_async(qtbot, qloop, wizard.next())
    assert wizard.next_button.text() == "Finish"
    workspace = tmp_path / "my-workspace"
    wizard.workspace_step.picker.edit.setText(str(workspace))
    with qtbot.waitSignal(wizard.finished) as signal:
        assert run_async(qtbot, qloop, wizard.next())
    assert signal.args == [True]
    data = json.loads(services.config_path.read_text())
    assert data["agents"]["defaults"]["model"] == "scripted-model"
    assert data["agents"]["defaults"]["provider"] == "custom"
    assert data["agents"]["defaults"]["workspace"] == str(workspace)
    assert data["providers"]["custom"]["apiBase"] == scripted_server.url
    assert KEY not in services.config_path.read_text()
    assert (workspace / "SOUL.md").is_file() and (workspace / "memory" / "history.jsonl").exists()
    assert not run_async(qtbot, qloop, needs_onboarding(services.config, services.secrets))


def test_onboarding_key_errors_are_redacted_and_back_keeps_input(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    service: str,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """A 401 on the model test is shown without the key; Back and Next keep what was typed."""
    services = fresh_services(tmp_path, service)
    wizard = OnboardingWizard(services)
    qtbot.addWidget(wizard)
    wizard.provider_step.select("custom")
    run_async(qtbot, qloop, wizard.next())
    wizard.connect_step.api_base.setText(scripted_server.url)
    wizard.connect_step.key.setText(KEY)
    assert run_async(qtbot, qloop, wizard.next())
    wizard.model_step.model.setEditText("scripted-model")
    scripted_server.push(Fail(401, "invalid key", echo_key=True))
    assert not run_async(qtbot, qloop, wizard.model_step.try_model(), 60_000)
    shown = wizard.model_step.status.text()
    assert "401" in shown and KEY not in shown
    wizard.back()
    assert wizard.connect_step.api_base.text() == scripted_server.url
    assert run_async(qtbot, qloop, wizard.next())
    assert wizard.model_step.chosen() == "scripted-model"


def test_cloud_provider_needs_a_key_and_skip_saves_nothing(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    service: str,
) -> None:
    """No key for a cloud provider: a clear message. Skip: finished(False), no config written."""
    services = fresh_services(tmp_path, service)
    wizard = OnboardingWizard(services)
    qtbot.addWidget(wizard)
    wizard.provider_step.select("anthropic")
    run_async(qtbot, qloop, wizard.next())
    assert not wizard.connect_step.api_base.isVisibleTo(wizard)
    assert not run_async(qtbot, qloop, wizard.next())
    assert "Paste your API key" in wizard.connect_step.status.text()
    wizard.connect_step.key.setText("two words")
    assert not run_async(qtbot, qloop, wizard.next())
    assert "no spaces" in wizard.connect_step.status.text()
    with qtbot.waitSignal(wizard.finished) as signal:
        wizard.skip_button.click()
    assert signal.args == [False]
    assert not services.config_path.exists()


def test_no_keyring_offers_a_session_only_key(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    no_keyring: None,
    tmp_path: Path,
    service: str,
) -> None:
    """Without a keyring the key is not lost: it can be kept for this session."""
    services = fresh_services(tmp_path, service)
    wizard = OnboardingWizard(services)
    qtbot.addWidget(wizard)
    wizard.provider_step.select("openai")
    run_async(qtbot, qloop, wizard.next())
    wizard.connect_step.key.setText(KEY)
    assert not run_async(qtbot, qloop, wizard.next())
    assert "No usable OS keyring" in wizard.connect_step.status.text()
    assert wizard.connect_step.session_button.isVisibleTo(wizard)
    wizard.connect_step.session_button.click()
    assert services.secrets.get("openai") == KEY
    assert run_async(qtbot, qloop, wizard.next())
    assert wizard.index == 2
