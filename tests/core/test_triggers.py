"""Local triggers (nanobot 0.3.5's ``/trigger <name>`` and ``trigger <id> "message"``).

``/trigger`` is answered by the real agent loop; ``nanobot-desktop trigger`` runs as a real
subprocess handing the delivery to a runtime serving the socket (as the app and the gateway
run it), and in its own process forked from the pre-imported zygote
(``tests.cli_runner.fork_cli``) when it runs the agent itself or refuses (what those show
does not depend on a fresh interpreter); every model call goes through LiteLLM to the
scripted OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.runtime import Runtime
from desktop.core.triggers.store import TriggerStore, TriggerStoreError
from tests.cli_runner import fork_cli
from tests.conftest import cli_env, custom_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

pytestmark = pytest.mark.skipif(
    not hasattr(asyncio, "start_unix_server"), reason="the agent socket needs Unix sockets"
)

WAIT_S = 60.0
CHAT = "desktop:c1"


def saved(runtime: Runtime, key: str) -> list[tuple[str, str]]:
    """``(role, content)`` of the session's messages on disk."""
    path = runtime.sessions.path_for(key)
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines()][1:]
    return [(m["role"], str(m.get("content"))) for m in lines if m["role"] != "tool"]


def trigger_id(reply: str) -> str:
    found = re.search(r"ID: (trg_[A-Z0-9]{8})", reply)
    assert found, reply
    return found.group(1)


async def cli(
    config: Path, home: Path, *args: str, stdin: bytes | None = None
) -> tuple[int, str, str]:
    """``nanobot-desktop ARGS --config CONFIG`` as a real subprocess."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop", *args, "--config", str(config),
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=cli_env(home),
    )  # fmt: skip
    async with asyncio.timeout(WAIT_S):
        out, err = await process.communicate(stdin)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def forked_cli(
    config: Path, home: Path, *args: str, stdin: str | None = None
) -> tuple[int, str, str]:
    """``nanobot-desktop ARGS --config CONFIG`` in its own process, forked from the zygote."""
    result = await asyncio.to_thread(
        fork_cli, [*args, "--config", str(config)], cli_env(home), stdin, WAIT_S
    )
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
async def served(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, memory_keyring: object
) -> AsyncIterator[tuple[Runtime, Path]]:
    config_file = custom_config(tmp_path, scripted_server.url)
    runtime = await start_runtime(load_config(config_file), StartOptions(secrets=SecretStore()))
    try:
        yield runtime, config_file
    finally:
        await runtime.stop()


async def test_trigger_fired_from_the_cli_reaches_the_chat_of_the_running_app(
    served: tuple[Runtime, Path], scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    """``/trigger deploy`` in a window chat makes a trigger; ``nanobot-desktop trigger <id>``
    hands its message to the running runtime, which answers it in that chat."""
    runtime, config = served
    reply = await runtime.agent.process_direct(
        "/trigger  deploy   watcher", session_key=CHAT, channel="desktop", chat_id="c1"
    )
    assert reply.startswith("Trigger created: deploy watcher\nID: trg_"), reply
    tid = trigger_id(reply)
    assert f'nanobot-desktop trigger {tid} "message"' in reply
    assert not scripted_server.chat_requests(), "a command costs no model call"

    scripted_server.push(Reply("Saw the build result."))
    code, out, err = await cli(config, isolated_env, "trigger", tid, "build 42 passed")
    assert code == 0, err
    assert f"Queued {tid} (tdl_" in out
    assert "Handed to the running nanobot Desktop" in out

    want = [
        ("user", "Local trigger received: deploy watcher\n\nbuild 42 passed"),
        ("assistant", "Saw the build result."),
    ]
    await until(lambda: saved(runtime, CHAT) == want, WAIT_S, "the trigger's turn in the chat")
    store = TriggerStore(runtime.config.workspace_path)

    def recorded() -> bool:
        trigger = store.get(tid)
        done = not any(store.processing.iterdir())
        return done and trigger is not None and trigger.last_status == "ok"

    await until(recorded, WAIT_S, "the delivery recorded ok and done")
    trigger = await asyncio.to_thread(store.get, tid)
    assert trigger is not None and trigger.channel == "desktop" and trigger.chat_id == "c1"
    assert trigger.session_key == CHAT and trigger.last_message == "build 42 passed"
    assert not list(store.inbox.iterdir()) and not list(store.processing.iterdir())
    run = json.loads(next(store.runs.glob("tdl_*.json")).read_text())
    assert run["status"] == "ok" and run["response"] == "Saw the build result."


async def test_trigger_runs_the_agent_itself_when_nothing_runs(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    """No app or gateway: the command delivers the message (standard input) and prints the
    answer."""
    config = custom_config(tmp_path, scripted_server.url)
    workspace = tmp_path / "workspace"
    store = TriggerStore(workspace)
    trigger = await asyncio.to_thread(
        store.create, name="nightly", channel="cli", chat_id="nightly", session_key="cli:nightly"
    )
    scripted_server.push(Reply("Backup noted."))
    code, out, err = await forked_cli(
        config, isolated_env, "trigger", trigger.id, stdin="backup ok\n"
    )
    assert code == 0, err
    assert "Backup noted." in out
    body = scripted_server.chat_requests()[-1].body
    last_user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    assert "Local trigger received: nightly\n\nbackup ok" in str(last_user["content"])
    assert not list(store.inbox.iterdir()) and not list(store.processing.iterdir())
    after = await asyncio.to_thread(store.get, trigger.id)
    assert after is not None and after.last_status == "ok"
    assert [r.status for r in after.run_history] == ["ok"]


async def test_trigger_refuses_unknown_disabled_and_empty(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    config = custom_config(tmp_path, scripted_server.url)
    store = TriggerStore(tmp_path / "workspace")
    trigger = await asyncio.to_thread(
        store.create, name="t", channel="cli", chat_id="x", session_key="cli:x"
    )
    await asyncio.to_thread(store.enable, trigger.id, enabled=False)
    code, _, err = await forked_cli(config, isolated_env, "trigger", "trg_NOPE2345", "hi")
    assert code == 2 and "trigger not found: trg_NOPE2345" in err
    code, _, err = await forked_cli(config, isolated_env, "trigger", trigger.id, "hi")
    assert code == 2 and f"trigger is disabled: {trigger.id}" in err
    code, _, err = await forked_cli(config, isolated_env, "trigger", trigger.id, stdin="  \n")
    assert code == 2 and "trigger message is required" in err
    assert not list(store.inbox.iterdir())
    assert not scripted_server.chat_requests()


async def test_slash_trigger_without_a_name_says_how(
    served: tuple[Runtime, Path], scripted_server: ScriptedOpenAIServer
) -> None:
    runtime, _ = served
    reply = await runtime.agent.process_direct("/trigger", session_key=CHAT)
    assert reply.startswith("Usage: /trigger <name>")
    assert not (runtime.config.workspace_path / "triggers" / "triggers.json").exists()
    assert "/trigger" in await runtime.agent.process_direct("/help", session_key=CHAT)


def test_an_unreadable_store_is_kept_and_never_overwritten(tmp_path: Path) -> None:
    store = TriggerStore(tmp_path)
    store.root.mkdir(parents=True)
    store.store_path.write_text('{"version": 1, "triggers": [')
    with pytest.raises(TriggerStoreError, match="could not be loaded"):
        store.create(name="x", channel="cli", chat_id="a", session_key="cli:a")
    assert store.store_path.read_text() == '{"version": 1, "triggers": ['
    asides = list(store.root.glob("triggers.json.corrupt*"))
    assert len(asides) == 1 and asides[0].read_text() == '{"version": 1, "triggers": ['


def test_a_delivery_that_keeps_failing_ends_in_failed(tmp_path: Path) -> None:
    store = TriggerStore(tmp_path)
    trigger = store.create(name="x", channel="cli", chat_id="a", session_key="cli:a")
    store.enqueue(trigger.id, "one")
    tries = 0
    while True:
        (delivery,) = store.claim()
        tries += 1
        if not store.retry(delivery, "boom"):
            break
    assert tries == 10
    (failed,) = store.failed.glob("*.json")
    data: dict[str, Any] = json.loads(failed.read_text())
    assert data["delivery"]["attempts"] == 10 and data["delivery"]["lastError"] == "boom"
    assert store.claim() == []
