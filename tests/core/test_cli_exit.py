"""How ``agent`` ends: the console script skips the interpreter's teardown; callers do not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop.cli import main
from tests.conftest import cli_env, custom_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def test_a_caller_with_arguments_gets_the_code_back(capsys: pytest.CaptureFixture[str]) -> None:
    """``main(argv)`` returns (the test process would end here otherwise)."""
    assert main(["agent", "-m", "   "]) == 2
    assert "the message is empty" in capsys.readouterr().err


def test_the_script_exits_after_flushing_and_running_atexit(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """Run as the command line does (``argv`` from ``sys.argv``) with an ``atexit`` handler
    registered first: the answer is complete on a pipe, the handler ran, the code is 0."""
    config = custom_config(tmp_path, scripted_server.url)
    marker = tmp_path / "atexit-ran"
    scripted_server.push(Reply("A complete answer, flushed before the exit."))
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('yes'))\n"
        f"sys.argv = ['nanobot-desktop', 'agent', '-m', 'hi', '--config', {str(config)!r}]\n"
        "from desktop.cli import main\n"
        "sys.exit(main())\n"
        "print('not reached')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, check=False, timeout=180, env=cli_env(isolated_env),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "A complete answer, flushed before the exit.\n"
    assert marker.read_text() == "yes"
