"""Background start-up: a broken config or a missing key is a message, not a crash; a good config
gives a running agent and scheduler; desktop-channel messages reach the bridge; stop stops."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.bus.events import OutboundMessage
from desktop.ui.startup import AgentStarter
from tests.conftest import custom_config, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop", "memory_keyring")


def test_malformed_config_is_reported_and_left_alone(
    tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """Invalid JSON: configFailed names file and line; nothing written; retry works after a fix."""
    path = tmp_path / "config.json"
    path.write_text('{"agents": {"defaults": {"model": }}}')
    starter = AgentStarter(path)
    with qtbot.waitSignal(starter.configFailed, timeout=10_000) as failed:
        task = starter.start()
    run_async(qtbot, qloop, asyncio.wait_for(asyncio.shield(task), 10))
    assert str(path) in failed.args[0] and "line 1" in failed.args[0]
    assert "was not changed" in failed.args[0]
    assert starter.services is None
    assert path.read_text() == '{"agents": {"defaults": {"model": }}}'

    path.write_text(
        json.dumps(
            {
                "agents": {
                    "defaults": {
                        "model": "gpt-4o-mini",
                        "provider": "openai",
                        "workspace": str(tmp_path / "ws"),
                    }
                }
            }
        )
    )
    with qtbot.waitSignal(starter.configLoaded, timeout=10_000):
        task = starter.retry()
    run_async(qtbot, qloop, asyncio.wait_for(asyncio.shield(task), 20), timeout_ms=25_000)
    assert starter.services is not None
    run_async(qtbot, qloop, starter.stop())


def test_missing_key_is_a_clear_message(
    tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """No key for the provider: the services exist (settings can fix it), the agent does not."""
    path = write_config(
        tmp_path / "config.json",
        {
            "agents": {
                "defaults": {
                    "model": "gpt-4o-mini",
                    "provider": "openai",
                    "workspace": str(tmp_path / "ws"),
                }
            }
        },
    )
    starter = AgentStarter(path)
    statuses: list[str] = []
    starter.status.connect(statuses.append)
    with qtbot.waitSignal(starter.agentFailed, timeout=20_000) as failed:
        starter.start()
    assert "No API key for OpenAI" in failed.args[0]
    assert starter.services is not None and starter.services.agent is None
    assert statuses[:3] == ["loading settings…", "connecting…", "not connected"]
    run_async(qtbot, qloop, starter.stop())


def test_agent_starts_and_outbound_reaches_the_bridge(
    tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """A usable config: agent and scheduler run; desktop messages go to bridge.outbound; stop()
    cancels the loop and the scheduler."""
    with ScriptedOpenAIServer() as server:
        path = custom_config(tmp_path, server.url)
        starter = AgentStarter(path, workspace=tmp_path / "other-ws")
        with qtbot.waitSignal(starter.agentReady, timeout=30_000):
            starter.start()
        services = starter.services
        assert services is not None and starter.runtime is not None
        assert services.agent is starter.runtime.agent and services.cron is starter.runtime.cron
        assert services.workspace == tmp_path / "other-ws"
        assert (tmp_path / "other-ws" / "SOUL.md").exists()  # templates synced into --workspace
        bus = services.agent.bus
        with qtbot.waitSignal(services.bridge.outbound, timeout=5000) as got:
            run_async(
                qtbot, qloop, bus.publish_outbound(OutboundMessage("desktop", "direct", "hello"))
            )
        assert got.args[0].content == "hello"
        run_async(qtbot, qloop, bus.publish_outbound(OutboundMessage("telegram", "42", "not here")))
        agent = services.agent
        run_async(qtbot, qloop, starter.stop(), timeout_ms=20_000)
        assert not agent.running
        assert services.agent is None and starter.runtime is None
        assert not starter.tasks.tasks and starter.tasks.closed


def test_warming_litellm_runs_beside_the_loop_and_holds_nothing_up(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """The early LiteLLM import runs in a daemon thread with no task waiting on it: stopping the
    starter right after leaves nothing pending (an import cannot be interrupted, so a task
    awaiting it outlived shutdown), and the import itself completes."""
    import sys
    from types import SimpleNamespace

    from desktop.core.config.provider_registry import find_by_name
    from desktop.core.providers.litellm_provider import LiteLLMProvider
    from desktop.core.providers.matching import ProviderChoice

    spec = find_by_name("anthropic")
    assert spec is not None
    starter = AgentStarter()
    # A runtime whose provider calls through LiteLLM (warming loads what the provider needs).
    choice = ProviderChoice(spec, "anthropic", "anthropic/claude-x", None)
    starter.runtime = SimpleNamespace(provider=LiteLLMProvider(choice))  # type: ignore[assignment]
    starter.warm_up()
    starter.runtime = None
    warm = starter._warm
    assert warm is not None
    assert not starter.tasks.tasks
    starter.warm_up()  # once only
    assert starter._warm is warm
    run_async(qtbot, qloop, starter.stop())
    pending = [t for t in asyncio.all_tasks(qloop) if "warm" in t.get_name()]
    assert pending == []
    warm.result(timeout=60)
    assert "litellm" in sys.modules
    starter.warm_up()  # a stopped starter starts nothing new
    assert starter._warm is warm
