"""The interop tier: the real ``nanobot-ai`` CLI and ours on one config and workspace.

``scripts/setup.sh --test`` installs the pinned ``nanobot-ai`` into its own venv
(``.cache/nanobot-venv``, never the app's). Without it these tests skip, unless
``NANOBOT_TEST_REQUIRE_NANOBOT=1`` (set by ``scripts/test.sh``) makes that a failure.
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

from tests.conftest import CLI, REPO, cli_env, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer

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
def nanobot_bin() -> Path:
    """The real nanobot CLI (pinned version); skip, or fail when the tier is required."""
    found = nanobot_executable()
    if found is None:
        why = (
            f"nanobot-ai=={NANOBOT_VERSION} is not installed in {NANOBOT_VENV} "
            "(scripts/setup.sh --test installs it)"
        )
        if os.environ.get("NANOBOT_TEST_REQUIRE_NANOBOT") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return found


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

    def run(
        self, program: str, *args: str, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        """Run ``nanobot`` or ``nanobot-desktop`` with ``args`` and return the result."""
        exe = str(self.nanobot) if program == "nanobot" else CLI
        return subprocess.run(
            [exe, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
            env=self.env,
        )

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
