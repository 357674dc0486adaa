"""The interop tier: the real ``nanobot-ai`` CLI and ours on one config and workspace.

``scripts/setup.sh --test`` installs the pinned ``nanobot-ai`` into its own venv
(``.cache/nanobot-venv``, never the app's). Without it these tests skip, unless
``NANOBOT_TEST_REQUIRE_NANOBOT=1`` (set by ``scripts/test.sh``) makes that a failure.

The commands of both programs run as processes of their own, but not as fresh interpreters:
``nanobot …`` is forked from a server in nanobot's venv with its CLI imported
(``tests/nanobot_zygote.py``), ``nanobot-desktop …`` from our zygote (``tests/cli_runner``).
Each is a real process with the test's argv, environment (``HOME``), working directory and
standard streams; what neither proves is the start of an interpreter, which no test of this
tier is about. ``NANOBOT_TEST_NANOBOT_FORK=0`` runs every command as a fresh subprocess of the
installed scripts, as before (the two ways give the same results).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests import nanobot_zygote
from tests.cli_runner import fork_cli, start_cli
from tests.conftest import CLI, REPO, cli_env, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.zygote import Forked

#: The nanobot-ai release these tests pin (README: "Supported nanobot-ai versions").
NANOBOT_VERSION = "0.3.5"
NANOBOT_VENV = Path(os.environ.get("NANOBOT_TEST_NANOBOT_VENV", REPO / ".cache" / "nanobot-venv"))


def nanobot_executable() -> Path | None:
    """The ``nanobot`` script of the scratch venv, when it holds the pinned version."""
    python = NANOBOT_VENV / "bin" / "python"
    if not python.is_file():
        return None
    found = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('nanobot-ai'))"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if found.returncode != 0 or found.stdout.strip() != NANOBOT_VERSION:
        return None
    return NANOBOT_VENV / "bin" / "nanobot"


@pytest.fixture(scope="session")
def nanobot_bin() -> Iterator[Path]:
    """The real nanobot CLI (pinned version); skip, or fail when the tier is required.

    Its forkserver (started by the first command that needs it) is stopped at the session's
    end.
    """
    found = nanobot_executable()
    if found is None:
        why = (
            f"nanobot-ai=={NANOBOT_VERSION} is not installed in {NANOBOT_VENV} "
            "(scripts/setup.sh --test installs it)"
        )
        if os.environ.get("NANOBOT_TEST_REQUIRE_NANOBOT") == "1":
            pytest.fail(why)
        pytest.skip(why)
    try:
        yield found
    finally:
        nanobot_zygote.stop()


#: What :meth:`Shared.start` returns: a running command used as ``subprocess.Popen``.
Running = subprocess.Popen[str] | nanobot_zygote.NanobotProcess | Forked


@dataclass
class Shared:
    """One person's machine: a HOME with ``~/.nanobot/config.json`` that both programs use.

    Attributes:
        home: The HOME both programs run with.
        config: ``~/.nanobot/config.json`` (the default of both programs).
        workspace: The workspace the config names.
        server: The scripted model server the ``custom`` provider points at.
        nanobot: The real nanobot CLI.
    """

    home: Path
    config: Path
    workspace: Path
    server: ScriptedOpenAIServer
    nanobot: Path

    @property
    def env(self) -> dict[str, str]:
        """The environment both programs run with (HOME isolated, no provider keys)."""
        return cli_env(self.home)

    @property
    def python(self) -> Path:
        """nanobot's venv Python."""
        return self.nanobot.parent / "python"

    def run(
        self, program: str, *args: str, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        """Run ``nanobot`` or ``nanobot-desktop`` with ``args`` and return the result."""
        if nanobot_zygote.forking():
            if program == "nanobot":
                return nanobot_zygote.run(self.python, args, env=self.env, timeout=timeout)
            return fork_cli(args, self.env, timeout=timeout)
        exe = str(self.nanobot) if program == "nanobot" else CLI
        return subprocess.run(
            [exe, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
            env=self.env,
        )

    def start(self, program: str, *args: str) -> Running:
        """Start a long-running ``nanobot`` or ``nanobot-desktop`` command (``gateway``,
        ``serve``), its output and error as text pipes; used as ``subprocess.Popen``."""
        if nanobot_zygote.forking():
            if program == "nanobot":
                return nanobot_zygote.start(self.python, args, env=self.env)
            return start_cli(args, self.env)
        exe = str(self.nanobot) if program == "nanobot" else CLI
        return subprocess.Popen(
            [exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env
        )

    def nanobot_python(
        self, code: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``python -c CODE ARGS`` in nanobot's venv (its own library), with the shared
        environment (or ``env``)."""
        return nanobot_python(self.python, code, *args, env=env or self.env)

    def ok(self, program: str, *args: str) -> str:
        """Run and assert success; return stdout."""
        result = self.run(program, *args)
        assert result.returncode == 0, (program, args, result.stdout, result.stderr)
        return result.stdout

    def last_messages(self) -> list[dict[str, Any]]:
        """The messages of the newest chat-completion request the model server received."""
        requests = self.server.chat_requests()
        assert requests, "the model server received no request"
        messages: list[dict[str, Any]] = requests[-1].body["messages"]
        return messages


@pytest.fixture
def shared(
    nanobot_bin: Path,
    isolated_env: Path,
    scripted_server: ScriptedOpenAIServer,
) -> Iterator[Shared]:
    """A config in nanobot's default place with the ``custom`` provider on the scripted server."""
    workspace = isolated_env / "workspace"
    config = write_config(
        isolated_env / ".nanobot" / "config.json",
        {
            "agents": {
                "defaults": {
                    "model": "scripted-model",
                    "provider": "custom",
                    "workspace": str(workspace),
                }
            },
            # nanobot's custom provider wants a key; it is sent to the local server only.
            "providers": {"custom": {"apiBase": scripted_server.url, "apiKey": "sk-interop"}},
        },
    )
    yield Shared(isolated_env, config, workspace, scripted_server, nanobot_bin)


def nanobot_python(
    python: Path, code: str, *args: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``python -c CODE ARGS`` in nanobot's venv: forked from its server, or a subprocess."""
    if nanobot_zygote.forking():
        return nanobot_zygote.run(python, args, env=env, code=code, timeout=120)
    return subprocess.run(
        [str(python), "-c", code, *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )


def texts(messages: list[dict[str, Any]], role: str) -> list[str]:
    """The text of every message of ``role`` (content parts joined)."""
    out: list[str] = []
    for message in messages:
        if message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        out.append(str(content or ""))
    return out


def dump(path: Path) -> str:
    """A file's text for an assertion message."""
    return path.read_text(encoding="utf-8") if path.exists() else f"<{path} missing>"


def jsonl(path: Path) -> list[dict[str, Any]]:
    """Parse a JSON-lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
