"""The headless commands, run as a user would.

Most run in this process through ``desktop.cli.main`` (``tests/cli_runner.py``: the
environment, standard streams and exit code a subprocess would have); the console script
itself, the gateway and the import-time check run as real subprocesses.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop import __version__
from desktop.core.providers import litellm_provider
from desktop.core.session.manager import SessionManager
from tests.cli_runner import run_cli
from tests.conftest import CLI, cli_env, custom_config, write_config
from tests.core.short_retries import SHORT_DELAYS
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer


def run(
    args: list[str], home: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run the CLI with an isolated environment, in this process (see the module docstring)."""
    return run_cli(args, home, stdin, **env)


def run_process(
    args: list[str], home: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script as a subprocess with an isolated environment."""
    return subprocess.run(
        [CLI, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
        env=cli_env(home, **env),
    )


def _session_file(workspace: Path, key: str, config_dir: Path) -> Path:
    """Where the app keeps ``key`` of ``workspace`` (nanobot 0.3.5's folder)."""
    return SessionManager(workspace, config_dir=config_dir).path_for(key)


def _session_lines(tmp_path: Path, key: str = "cli:direct") -> list[dict[str, Any]]:
    path = _session_file(tmp_path / "workspace", key, tmp_path / "config")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_version(isolated_env: Path) -> None:
    """--version prints the package version."""
    result = run_process(["--version"], isolated_env)  # the console script itself
    assert result.returncode == 0 and result.stdout.strip() == f"nanobot-desktop {__version__}"


def test_agent_message_streams_and_saves(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """agent -m: streamed to stdout in several chunks, the turn saved in nanobot's format."""
    scripted_server.push(Reply("The quick brown fox jumps over the lazy dog.", chunk=3))
    config = custom_config(tmp_path, scripted_server.url)
    result = run(["agent", "-m", "hello there", "--config", str(config)], isolated_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The quick brown fox jumps over the lazy dog.\n"
    body = scripted_server.chat_requests()[0].body
    assert body["stream"] is True and body["model"] == "any-name"
    assert body["messages"][0]["role"] == "system" and body["messages"][-1]["role"] == "user"
    assert body["messages"][-1]["content"].endswith("\n\nhello there")
    meta, user, assistant = _session_lines(tmp_path)
    assert (
        meta["_type"] == "metadata"
        and meta["key"] == "cli:direct"
        and meta["last_consolidated"] == 0
    )
    assert (user["role"], user["content"]) == ("user", "hello there")
    assert (assistant["role"], assistant["content"]) == (
        "assistant",
        "The quick brown fox jumps over the lazy dog.",
    )


def test_second_turn_sends_history_and_session_flag(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """--session picks the conversation; the next turn carries the history."""
    config = custom_config(tmp_path, scripted_server.url)
    scripted_server.push(Reply("first answer"), Reply("second answer"))
    assert (
        run(
            ["agent", "--session", "cli:work", "-m", "one", "--config", str(config)], isolated_env
        ).returncode
        == 0
    )
    assert (
        run(
            ["--config", str(config), "agent", "--session", "cli:work", "-m", "two"], isolated_env
        ).returncode
        == 0
    )
    sent = scripted_server.chat_requests()[1].body["messages"]
    assert [(m["role"], m["content"]) for m in sent[1:-1]] == [
        ("user", "one"),
        ("assistant", "first answer"),
    ]
    assert sent[-1]["content"].endswith("two")
    assert len(_session_lines(tmp_path, "cli:work")) == 5


def test_interactive_prompt(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """Without -m: a prompt loop until end of input."""
    scripted_server.push(Reply("answer one"), Reply("answer two"))
    config = custom_config(tmp_path, scripted_server.url)
    result = run(["agent", "--config", str(config)], isolated_env, stdin="first\n\nsecond\n")
    assert result.returncode == 0, result.stderr
    assert "answer one" in result.stdout and "answer two" in result.stdout
    assert len(scripted_server.chat_requests()) == 2


def test_provider_failure_keeps_the_user_message(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """A failed call exits 1 with a short message; the user's message is already saved."""
    scripted_server.push(Fail(400, "model does not exist"))
    config = custom_config(tmp_path, scripted_server.url)
    result = run(["agent", "-m", "keep me", "--config", str(config)], isolated_env)
    assert result.returncode == 1
    assert "rejected the request" in result.stderr and "Traceback" not in result.stderr
    meta, user = _session_lines(tmp_path)
    assert user["content"] == "keep me"
    assert meta["metadata"]["pending_user_turn"] == {"index": 0}


def test_missing_key_is_explained(tmp_path: Path, isolated_env: Path) -> None:
    """A provider that needs a key, without one: how to add it, exit 2, no model call."""
    config = write_config(
        tmp_path / "c.json",
        {"agents": {"defaults": {"model": "deepseek-chat", "workspace": str(tmp_path / "ws")}}},
    )
    result = run(["agent", "-m", "hi", "--config", str(config)], isolated_env)
    assert result.returncode == 2
    assert "No API key for DeepSeek" in result.stderr and "keys set deepseek" in result.stderr
    assert "DEEPSEEK_API_KEY" in result.stderr


def test_malformed_config_is_reported_and_untouched(tmp_path: Path, isolated_env: Path) -> None:
    """Broken JSON: file and line named, exit 2, the file byte-identical."""
    path = tmp_path / "config.json"
    broken = b'{\n  "agents": {\n    "defaults": {"model": }\n  }\n}\n'
    path.write_bytes(broken)
    for args in (["agent", "-m", "hi"], ["status"], ["keys", "list"]):
        result = run([*args, "--config", str(path)], isolated_env)
        assert result.returncode == 2
        assert f"{path}, line 3" in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == broken


def test_status_names_everything_but_the_key(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """status: config, workspace, model, provider and where the key comes from."""
    config = write_config(
        tmp_path / "c.json",
        {
            "agents": {"defaults": {"model": "gpt-4o-mini", "workspace": str(tmp_path / "ws")}},
        },
    )
    result = run(
        ["status", "--config", str(config)],
        isolated_env,
        OPENAI_API_KEY="sk-status-test-0123456789",
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert str(config) in out and str(tmp_path / "ws") in out and "gpt-4o-mini" in out
    assert "OpenAI" in out and "environment variable OPENAI_API_KEY" in out
    assert "keyring" in out
    assert "sk-status-test" not in out + result.stderr


def test_workspace_flag_overrides_for_the_run(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """--workspace puts the session elsewhere and leaves the config file alone."""
    config = custom_config(tmp_path, scripted_server.url)
    before = config.read_bytes()
    other = tmp_path / "elsewhere"
    result = run(
        ["agent", "-m", "hi", "--config", str(config), "--workspace", str(other)], isolated_env
    )
    assert result.returncode == 0, result.stderr
    assert _session_file(other, "cli:direct", config.parent).is_file()
    assert not (tmp_path / "workspace" / ".nanobot").exists()  # no session was made there
    assert config.read_bytes() == before


def test_logs_go_beside_the_config(
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A retried failure is logged to <config dir>/logs/nanobot-desktop.log."""
    # The retry is the point, not its back-off (1 s): the provider the CLI builds waits 10 ms.
    monkeypatch.setattr(litellm_provider, "DEFAULT_DELAYS", SHORT_DELAYS)
    scripted_server.push(Fail(503, "busy"), Reply("fine"))
    config = custom_config(tmp_path, scripted_server.url)
    result = run(["agent", "-m", "hi", "--config", str(config)], isolated_env)
    assert result.returncode == 0, result.stderr
    log = (config.parent / "logs" / "nanobot-desktop.log").read_text()
    assert "attempt 1 failed (server)" in log


def test_agent_prints_the_message_tool_and_waits_for_subagent_reports(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """agent -m: what the ``message`` tool sends to the terminal is printed, and a subagent it
    started reports back before the command exits (regression: both were lost)."""
    main = [
        Reply(
            tool_calls=[
                ("message", json.dumps({"content": "Working on it, one moment."})),
                ("spawn", json.dumps({"task": "count to three", "label": "counting"})),
            ]
        ),
        Reply("I started a background task."),
        Reply("The background task counted to three."),
    ]

    def route(body: dict[str, object]) -> Reply:
        messages = body["messages"]
        assert isinstance(messages, list)
        if "background worker" in str(messages[0].get("content")):
            return Reply("one, two, three")
        return main.pop(0)

    scripted_server.route = route
    config = custom_config(tmp_path, scripted_server.url)
    result = run(["agent", "-m", "count in the background", "--config", str(config)], isolated_env)
    assert result.returncode == 0, result.stderr
    assert "[message] Working on it, one moment." in result.stdout
    assert "I started a background task." in result.stdout
    assert "[background task] The background task counted to three." in result.stdout


def test_agent_hands_its_message_to_a_running_gateway(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """With a gateway running on the same config, ``agent -m`` streams the answer from the
    gateway's agent (one session writer) and imports no LiteLLM of its own; commands work too;
    a run for another workspace keeps to itself."""
    import signal
    import sys
    import time

    config = custom_config(tmp_path, scripted_server.url)
    socket = config.parent / "run" / "agent.sock"
    gateway = subprocess.Popen(
        [CLI, "gateway", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(isolated_env),
    )
    try:
        deadline = time.monotonic() + 60
        while not socket.exists():
            assert gateway.poll() is None, gateway.communicate()
            assert time.monotonic() < deadline, "the gateway did not open its socket"
            time.sleep(0.1)
        assert (socket.parent.stat().st_mode & 0o777) == 0o700
        scripted_server.push(Reply("Answered by the gateway.", chunk=4))
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "desktop", "agent", "-m", "hi",
             "--config", str(config)],
            capture_output=True, text=True, check=False, timeout=120, env=cli_env(isolated_env),
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert result.stdout == "Answered by the gateway.\n"
        imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
        assert "litellm" not in imported and "pydantic" not in imported
        lines = _session_lines(tmp_path)
        assert [m.get("role") for m in lines[1:]] == ["user", "assistant"]
        status = run(["agent", "-m", "/status", "--config", str(config)], isolated_env)
        assert status.returncode == 0 and "Messages: 2" in status.stdout, status.stderr
        other = tmp_path / "other-ws"
        scripted_server.push(Reply("Answered here."))
        own = run(["agent", "-m", "hi", "--config", str(config), "--workspace", str(other)],
                  isolated_env)  # fmt: skip
        assert own.returncode == 0 and own.stdout == "Answered here.\n", own.stderr
        assert _session_file(other, "cli:direct", config.parent).is_file()
    finally:
        gateway.send_signal(signal.SIGINT)
        _out, err = gateway.communicate(timeout=30)
    assert gateway.returncode == 0, err
    assert not socket.exists(), "the socket is removed on exit"
