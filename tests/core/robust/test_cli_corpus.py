"""``cron list``, ``status``, ``agent -m`` and ``gateway`` on damaged files, as a user runs them.

Each command runs in this process as the console script would run it
(``tests.cli_runner``), the gateway in its own process forked from the pre-imported zygote. Whatever is damaged: never a traceback; a damaged
file gives one clear ``warning:`` line on stderr and the command does its job; a config that
cannot be used at all gives one ``nanobot-desktop: cannot use the config`` line and exit 2.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import start_cli
from tests.conftest import cli_env, custom_config
from tests.core.robust.corpus import BOMB
from tests.core.test_cli import run
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import present

Setup = Callable[[Path, Path], object]  # what it returns is ignored


def _ws(tmp_path: Path) -> Path:
    return tmp_path / "workspace"


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _file_at_workspace(ws: Path, cfg: Path) -> None:
    ws.parent.mkdir(parents=True, exist_ok=True)
    ws.write_text("a file, not a folder")


def _folder_at_config(ws: Path, cfg: Path) -> None:
    cfg.unlink()
    cfg.mkdir()


def _edit_config(config: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(config.read_text())
    change(data)
    config.write_text(json.dumps(data))


GOOD_JOB = {
    "id": "keepme",
    "name": "Keep me",
    "schedule": {"kind": "every", "everyMs": 3_600_000},
    "payload": {"message": "still here"},
}

# name -> (damage, text the notice must contain, usable config?)
CASES: dict[str, tuple[Setup, str, bool]] = {
    "jobs_version_text": (
        lambda ws, cfg: _write(
            ws / "cron" / "jobs.json", json.dumps({"version": "x", "jobs": [GOOD_JOB]}).encode()
        ),
        "version",
        True,
    ),
    "jobs_bad_job": (
        lambda ws, cfg: _write(
            ws / "cron" / "jobs.json",
            json.dumps(
                {"jobs": [GOOD_JOB, {**GOOD_JOB, "id": "bad", "schedule": {"kind": 5}}]}
            ).encode(),
        ),
        "set aside",
        True,
    ),
    "jobs_folder": (
        lambda ws, cfg: (ws / "cron" / "jobs.json").mkdir(parents=True),
        "folder",
        True,
    ),
    "jobs_not_utf8": (
        lambda ws, cfg: _write(ws / "cron" / "jobs.json", b"\xff\xfe"),
        "UTF-8",
        True,
    ),
    "cron_is_a_file": (lambda ws, cfg: _write(ws / "cron", b"x"), "not a folder", True),
    "config_field": (
        lambda ws, cfg: _edit_config(
            cfg, lambda d: d["agents"]["defaults"].__setitem__("maxTokens", "lots")
        ),
        "maxTokens",
        True,
    ),
    "workspace_is_a_file": (_file_at_workspace, "is a file", False),
    "config_bomb": (lambda ws, cfg: cfg.write_bytes(b'{"a":' * BOMB), "nested too deeply", False),
    "config_folder": (_folder_at_config, "folder", False),
    "config_not_utf8": (lambda ws, cfg: cfg.write_bytes(b"\xff{}"), "UTF-8", False),
}


def _setup(tmp_path: Path, url: str, case: str) -> str:
    config = custom_config(tmp_path, url)
    CASES[case][0](_ws(tmp_path), config)
    return str(config)


def _assert_clean(result: subprocess.CompletedProcess[str] | tuple[str, str], needle: str) -> None:
    out, err = (result.stdout, result.stderr) if not isinstance(result, tuple) else result
    assert "Traceback" not in out + err, err
    lines = [line for line in err.splitlines() if needle in line]
    assert lines, f"no notice containing {needle!r} in:\n{err}"
    assert all(line.startswith(("warning:", "nanobot-desktop:")) for line in lines), lines


@pytest.mark.parametrize("command", [["cron", "list"], ["status"]], ids=["cron_list", "status"])
@pytest.mark.parametrize("case", list(CASES))
def test_commands_on_damaged_files(
    tmp_path: Path, isolated_env: Path, case: str, command: list[str]
) -> None:
    """A one-line notice, never a traceback; the command still works when the config does."""
    config = _setup(tmp_path, "http://127.0.0.1:9/v1", case)
    _, needle, usable = CASES[case]
    result = run([*command, "--config", config], isolated_env)
    if not usable:
        assert result.returncode == 2
        _assert_clean(result, needle)
        assert "cannot use the config" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    if command == ["cron", "list"] or case == "config_field":
        _assert_clean(result, needle)
    if command == ["cron", "list"]:
        assert "dream (id: dream" in result.stdout
        if case.startswith("jobs_") and case not in ("jobs_folder", "jobs_not_utf8"):
            assert "Keep me (id: keepme" in result.stdout


@pytest.mark.parametrize(
    "damage",
    [
        lambda ws: _write(ws / "memory" / "history.jsonl", b'\xff\n{"cursor": "x"}\n'),
        lambda ws: _write(
            ws / "sessions" / "cli_direct.jsonl",
            b'{"_type": "metadata", "metadata": [1], "last_consolidated": "x"}\n'
            b'{"role": "user", "content": {"a": 1}}\n',
        ),
    ],
    ids=["history", "session"],
)
def test_agent_message_answers_with_a_notice(
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
    damage: Callable[[Path], object],
) -> None:
    """``agent -m`` on a damaged history or conversation: a notice, then the answer."""
    config = custom_config(tmp_path, scripted_server.url)
    damage(_ws(tmp_path))
    scripted_server.push(Reply("Still answering."))
    result = run(["agent", "-m", "hi", "--config", str(config)], isolated_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Still answering."
    _assert_clean(result, "copied")


def _gateway(config: str, home: Path) -> tuple[int, str, str]:
    """Start the gateway, wait until it runs (or exits), stop it with Ctrl-C."""
    process = start_cli(["gateway", "--config", config], cli_env(home))
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 90
        seen = []
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            seen.append(line)
            if "running; Ctrl-C to stop" in line:
                process.send_signal(signal.SIGINT)
                break
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    return present(process.returncode), "".join(seen) + out, err


@pytest.mark.parametrize(
    "case",
    ["jobs_version_text", "jobs_folder", "cron_is_a_file", "workspace_is_a_file", "config_bomb"],
)
def test_gateway_starts_or_refuses_clearly(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path, case: str
) -> None:
    """The gateway runs on damaged state files and stops cleanly; an unusable config is one
    line and exit 2."""
    config = _setup(tmp_path, scripted_server.url, case)
    _, needle, usable = CASES[case]
    code, out, err = _gateway(config, isolated_env)
    _assert_clean((out, err), needle)
    if usable:
        assert code == 0 and "running; Ctrl-C to stop" in out and "stopped" in out, err
        assert "scheduler: " in out
    else:
        assert code == 2 and "cannot use the config" in err
