"""``status`` and ``channels status`` say whether commands run in the sandbox, and say it
plainly, with how to install bubblewrap, when they do not.

Each command runs in its own process forked from the pre-imported zygote
(``tests.cli_runner.fork_cli``; the detection runs there, with the command's environment);
"no bubblewrap" is a ``PATH`` without ``bwrap`` (the real detection then finds none). The gateway's start-up says it too
(``tests/channels/telegram/test_gateway_unsandboxed.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import fork_cli
from tests.conftest import cli_env, write_config
from tests.core.tools.sandbox_support import require_sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

WARNING = "Commands run without the sandbox: bubblewrap (bwrap) is not installed; install it ("


def _config(tmp_path: Path, sandbox: str = "") -> Path:
    return write_config(
        tmp_path / "cfg" / "config.json",
        {
            "agents": {"defaults": {"model": "gpt-4o-mini", "workspace": str(tmp_path / "ws")}},
            "tools": {"exec": {"sandbox": sandbox}},
        },
    )


def _run(
    args: list[str], home: Path, *, bwrap: bool, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    env = cli_env(home)
    if not bwrap:
        empty = tmp_path / "empty-bin"
        empty.mkdir(exist_ok=True)
        env["PATH"] = str(empty)
    return fork_cli(args, env, timeout=180)


def _row(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(name + " ")).split(None, 1)[1]


def test_status_without_bubblewrap_says_so_and_how_to_install(
    tmp_path: Path, isolated_env: Path
) -> None:
    result = _run(
        ["status", "--config", str(_config(tmp_path))], isolated_env, bwrap=False, tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr
    row = _row(result.stdout, "sandbox")
    assert row.startswith("NONE — " + WARNING), row
    assert "sudo apt install bubblewrap" in row and "then restart nanobot Desktop" in row
    assert f"warning: {WARNING}" in result.stderr


def test_status_with_bubblewrap_names_the_home_folder_and_limits(
    tmp_path: Path, isolated_env: Path
) -> None:
    require_sandbox()
    config = _config(tmp_path)
    write_config(config.parent / "desktop.json", {"sandbox": {"limits": {"processes": 128}}})
    result = _run(["status", "--config", str(config)], isolated_env, bwrap=True, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    row = _row(result.stdout, "sandbox")
    assert row.startswith("bubblewrap, active"), row
    assert "home folder: a scratch folder" in row and "128 processes, 2 GiB memory" in row
    assert "without the sandbox" not in result.stdout + result.stderr


def test_status_with_the_sandbox_turned_off(tmp_path: Path, isolated_env: Path) -> None:
    config = _config(tmp_path, sandbox="none")
    result = _run(["status", "--config", str(config)], isolated_env, bwrap=False, tmp_path=tmp_path)
    assert _row(result.stdout, "sandbox").startswith('off (tools.exec.sandbox is "none")')
    assert "warning:" not in result.stderr


def test_channels_status_without_bubblewrap_warns(tmp_path: Path, isolated_env: Path) -> None:
    result = _run(
        ["channels", "status", "--config", str(_config(tmp_path))],
        isolated_env,
        bwrap=False,
        tmp_path=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    channels, _, sandbox = result.stdout.partition("\n\n")
    assert "Telegram" in channels
    assert sandbox.startswith("WARNING: " + WARNING), sandbox
    assert "Commands asked for in a chat run with your full rights." in sandbox
