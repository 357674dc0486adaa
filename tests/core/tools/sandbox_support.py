"""Shared set-up for the sandbox tests: a disposable scene, snapshots, host process scans.

The scene puts everything an attack could damage in a fresh folder under ``/var/tmp`` (not
``/tmp``: the sandbox replaces ``/tmp`` wholesale, which would hide the decoys instead of
testing the read-only mounts that guard a real home): the workspace with the
agent's state files (sessions, memory history and cursors, cron jobs, the memory repo's
``.git``), a decoy home (``HOME`` points there, so ``~`` and ``$HOME`` expand to it), a
config file holding a key, and an "outside" folder. Attacks are aimed at these, never at the
real system, so even a broken sandbox cannot hurt the machine running the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop.core.security.paths import default_protected_paths
from desktop.core.security.sandbox import SandboxStatus, sandbox_status
from desktop.core.tools.base import ToolContext

PY = shlex.quote(sys.executable)
REPO = Path(__file__).resolve().parents[3]


@dataclass
class Scene:
    """One disposable set-up (see the module docstring)."""

    root: Path
    ws: Path
    home: Path
    outside: Path
    config: Path
    key: str

    def ctx(self) -> ToolContext:
        """The context the app would build for this workspace."""
        return ToolContext(
            workspace=self.ws, protected_paths=default_protected_paths(self.ws, self.config)
        )

    def guarded(self) -> list[Path]:
        """Everything an attack must not change."""
        ws = self.ws
        return [
            ws / "sessions",
            ws / ".git",
            ws / "memory" / "history.jsonl",
            ws / "memory" / ".cursor",
            ws / "memory" / ".dream_cursor",
            ws / "cron",
            ws / ".nanobot",
            self.home,
            self.outside,
            self.config,
        ]

    def snapshot(self) -> dict[str, str]:
        """Path → content hash (or ``dir`` / ``link→target``) for every guarded path."""
        state: dict[str, str] = {}
        for top in self.guarded():
            items = [top, *sorted(top.rglob("*"))] if top.is_dir() else [top]
            for path in items:
                key = str(path)
                if path.is_symlink():
                    state[key] = f"link→{os.readlink(path)}"
                elif path.is_dir():
                    state[key] = "dir"
                elif path.is_file():
                    state[key] = hashlib.sha256(path.read_bytes()).hexdigest()
                else:
                    state[key] = "missing"
        return state


@contextlib.contextmanager
def scene_root() -> Iterator[Path]:
    """A fresh folder under ``/var/tmp`` (see the module docstring), removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="nanobot-scene-", dir="/var/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def make_scene(root: Path, monkeypatch: pytest.MonkeyPatch) -> Scene:
    """Build a scene under ``root`` and point ``HOME`` (and the XDG data folder) at its decoy."""
    ws, home, outside = root / "ws", root / "home", root / "outside"
    for folder in (ws / "sessions", ws / "memory", ws / "cron", ws / ".nanobot", outside):
        folder.mkdir(parents=True)
    (ws / "sessions" / "cli_direct.jsonl").write_text(
        '{"_type": "metadata", "key": "cli:direct"}\n{"role": "user", "content": "hi"}\n'
    )
    (ws / "memory" / "history.jsonl").write_text('{"cursor": 1, "content": "x"}\n')
    (ws / "memory" / ".cursor").write_text("1")
    (ws / "memory" / ".dream_cursor").write_text("1")
    (ws / "memory" / "MEMORY.md").write_text("# Memory\n")
    (ws / "cron" / "jobs.json").write_text('{"version": 1, "jobs": []}')
    (ws / ".nanobot" / "workspace-id").write_text("scene")
    (ws / "SOUL.md").write_text("soul\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("decoy private key\n")
    (home / ".bashrc").write_text("# decoy bashrc\n")
    (home / "notes.txt").write_text("decoy notes\n")
    (home / ".local" / "share" / "keyrings").mkdir(parents=True)
    (home / ".local" / "share" / "keyrings" / "login.keyring").write_text("decoy keyring\n")
    (outside / "keep.txt").write_text("outside the workspace\n")
    key = "sk-scene-" + secrets.token_hex(12)
    config = root / "cfg" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"providers": {"openai": {"apiKey": key}}}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    assert Path(os.environ["HOME"]).is_relative_to(root)
    return Scene(root, ws.resolve(), home, outside, config, key)


def require_sandbox() -> SandboxStatus:
    """The sandbox status; the test is skipped (with the reason) when there is none, and
    fails instead when ``NANOBOT_TEST_REQUIRE_SANDBOX`` is set (``scripts/test.sh``)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the sandbox is Linux-only")
    status = sandbox_status()
    if not status.available:
        message = f"no sandbox here: {status.reason}"
        if os.environ.get("NANOBOT_TEST_REQUIRE_SANDBOX"):
            pytest.fail(message)
        pytest.skip(message)
    return status


# -- host processes ----------------------------------------------------------------------------


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def pids_with(token: str, *, sleepers_only: bool = False) -> list[int]:
    """Live host processes whose command line contains ``token`` (host PIDs, never guesses).

    With ``sleepers_only``, only the :func:`sleeper` processes themselves count (not the
    shells or sandbox whose command lines carry the token too).
    """
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if sleepers_only and not cmdline.startswith(sys.executable.encode() + b"\0-c\0"):
            continue
        if token.encode() in cmdline and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def kill_all(token: str) -> None:
    """SIGKILL every live process carrying ``token`` (clean-up after a failed test)."""
    for pid in pids_with(token):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


async def wait_until(
    predicate: Callable[[], object], within: float = 10.0, step: float = 0.05
) -> bool:
    """Poll ``predicate()`` until it is true or ``within`` seconds pass."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(step)
    return bool(predicate())


def sleeper(token: str, seconds: int = 300) -> str:
    """A shell word list for a process that sleeps and carries ``token`` in its argv."""
    return f"{PY} -c 'import time; time.sleep({seconds})' {token}"
