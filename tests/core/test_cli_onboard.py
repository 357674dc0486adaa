"""``nanobot-desktop onboard`` run as a person would (subprocesses of the script)."""

from __future__ import annotations

import json
import os
import pty
import select
import stat
import subprocess
import time
from pathlib import Path
from typing import cast

import pytest

from desktop.core.config.secrets import SERVICE_ENV
from desktop.core.utils.resources import data_path
from tests.conftest import CLI, cli_env, write_config
from tests.core.test_cli import run
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.real_keyring import RealKeyring


def _config(home: Path) -> dict[str, object]:
    return cast(
        "dict[str, object]",
        json.loads((home / ".nanobot" / "config.json").read_text(encoding="utf-8")),
    )


def _git_subjects(workspace: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(workspace), "log", "--format=%s"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    return out.splitlines()


def test_first_run_writes_defaults_and_the_workspace(isolated_env: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "my-ws"
    result = run(["onboard", "--workspace", str(workspace)], isolated_env)
    assert result.returncode == 0, result.stderr
    path = isolated_env / ".nanobot" / "config.json"
    assert f"✓ Created config at {path}" in result.stdout
    assert f"✓ Created workspace at {workspace}" in result.stdout
    assert "  Created SOUL.md" in result.stdout
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    defaults = _config(isolated_env)["agents"]["defaults"]  # type: ignore[index]
    # nanobot 0.3.5's defaults, with the workspace given on the command line saved.
    assert defaults["model"] == "anthropic/claude-opus-4-5" and defaults["provider"] == "auto"
    assert defaults["workspace"] == str(workspace)
    assert defaults["dream"]["intervalH"] == 2
    for name in ("AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "HEARTBEAT.md"):
        text = (workspace / name).read_text(encoding="utf-8")
        assert text == data_path("templates", name).read_text(encoding="utf-8")
    assert _git_subjects(workspace) == ["init: memory repository"]
    assert "nanobot-desktop agent" in result.stdout


def test_an_existing_config_is_refreshed_not_overwritten_without_a_terminal(
    isolated_env: Path, tmp_path: Path
) -> None:
    """No terminal to ask on: the answer is nanobot's default, No — values kept, new fields
    added, unknown keys kept; even a piped "y" does not overwrite."""
    path = write_config(
        isolated_env / ".nanobot" / "config.json",
        {
            "agents": {"defaults": {"model": "my-model", "workspace": str(tmp_path / "ws")}},
            "myOwnSection": {"keep": True},
        },
    )
    before = path.read_text(encoding="utf-8")
    result = run(["onboard"], isolated_env, stdin="y\n")
    assert result.returncode == 0, result.stderr
    assert f"Config already exists at {path}" in result.stdout
    assert "Overwrite? [y/N]: N" in result.stdout and "refreshed" in result.stdout
    data = _config(isolated_env)
    assert data["agents"]["defaults"]["model"] == "my-model"  # type: ignore[index]
    assert data["myOwnSection"] == {"keep": True}
    assert "tools" in data and "tools" not in json.loads(before)  # new fields were added
    assert not path.with_name("config.json.bak").exists()


def _on_a_terminal(args: list[str], home: Path, answer: str) -> tuple[int, str]:
    """Run the CLI with a pseudo-terminal as stdin/stdout; answer the first question."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [CLI, *args], stdin=follower, stdout=follower, stderr=follower, env=cli_env(home)
    )
    os.close(follower)
    output = b""
    answered = False
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, output.decode(errors="replace")
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
            if not answered and b"Overwrite? [y/N]: " in output:
                os.write(leader, answer.encode() + b"\n")
                answered = True
        elif proc.poll() is not None:
            break
    os.close(leader)
    return proc.wait(timeout=60), output.decode(errors="replace")


@pytest.mark.parametrize("answer", ["y", "n"])
def test_a_person_is_asked_before_an_overwrite(
    isolated_env: Path, tmp_path: Path, answer: str
) -> None:
    path = write_config(
        isolated_env / ".nanobot" / "config.json",
        {"agents": {"defaults": {"model": "my-model", "workspace": str(tmp_path / "ws")}}},
    )
    before = path.read_text(encoding="utf-8")
    code, output = _on_a_terminal(["onboard"], isolated_env, answer)
    assert code == 0, output
    model = _config(isolated_env)["agents"]["defaults"]["model"]  # type: ignore[index]
    if answer == "y":
        assert "Config reset to defaults" in output
        assert model == "anthropic/claude-opus-4-5"
        assert path.with_name("config.json.bak").read_text(encoding="utf-8") == before
    else:
        assert "refreshed" in output and model == "my-model"
        assert not path.with_name("config.json.bak").exists()


def test_force_overwrites_without_asking_and_keeps_a_copy(
    isolated_env: Path, tmp_path: Path
) -> None:
    path = write_config(
        isolated_env / ".nanobot" / "config.json",
        {"agents": {"defaults": {"model": "my-model", "workspace": str(tmp_path / "ws")}}},
    )
    before = path.read_text(encoding="utf-8")
    result = run(["onboard", "--force", "--workspace", str(tmp_path / "ws")], isolated_env)
    assert result.returncode == 0, result.stderr
    assert "Overwrite?" not in result.stdout and "Config reset to defaults" in result.stdout
    assert path.with_name("config.json.bak").read_text(encoding="utf-8") == before
    defaults = _config(isolated_env)["agents"]["defaults"]  # type: ignore[index]
    assert defaults["model"] == "anthropic/claude-opus-4-5"


def test_onboarded_provider_answers_the_first_message(
    isolated_env: Path, tmp_path: Path, scripted_server: ScriptedOpenAIServer
) -> None:
    """``--provider custom --api-base --model``: the next ``agent -m`` reaches that server."""
    result = run(
        ["onboard", "--provider", "custom", "--api-base", scripted_server.url,
         "--model", "scripted-model", "--workspace", str(tmp_path / "ws")],
        isolated_env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    scripted_server.push(Reply("Ready when you are."))
    chat = run(["agent", "-m", "hello"], isolated_env)
    assert chat.returncode == 0 and chat.stdout == "Ready when you are.\n", chat.stderr
    assert scripted_server.chat_requests()[0].body["model"] == "scripted-model"


def test_usage_errors_write_nothing(isolated_env: Path) -> None:
    bad = run(["onboard", "--provider", "no-such-provider"], isolated_env)
    assert bad.returncode == 2 and "unknown provider" in bad.stderr
    orphan = run(["onboard", "--api-base", "http://127.0.0.1:9/v1"], isolated_env)
    assert orphan.returncode == 2 and "--provider" in orphan.stderr
    assert not (isolated_env / ".nanobot").exists()


@pytest.mark.keyring_real
def test_the_key_goes_to_the_keyring_not_the_file(
    real_keyring: RealKeyring, isolated_env: Path, tmp_path: Path
) -> None:
    key = "sk-onboard-" + os.urandom(8).hex()
    result = subprocess.run(
        [CLI, "onboard", "--provider", "openai", "--model", "gpt-4o-mini", "--key-stdin",
         "--workspace", str(tmp_path / "ws")],
        input=key + "\n", capture_output=True, text=True, check=False, timeout=180,
        env=cli_env(isolated_env, **{SERVICE_ENV: real_keyring.service}),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Stored the OpenAI key in the OS keyring" in result.stdout
    assert real_keyring.get("openai") == key
    text = (isolated_env / ".nanobot" / "config.json").read_text(encoding="utf-8")
    assert key not in text and key not in result.stdout + result.stderr
    assert json.loads(text)["agents"]["defaults"]["provider"] == "openai"
