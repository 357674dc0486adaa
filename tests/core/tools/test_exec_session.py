"""Exec sessions against real processes in the real bubblewrap sandbox.

An interactive program (``python3 -i``, ``bash``) is driven over several ``exec_session``
calls; the session runs in the same sandbox as ``exec`` (the app's processes out of sight,
protected files read-only, the resource limits); and no process outlives its session: not
after ``terminate``, the time limit, an idle timeout, ``/stop`` (the chat's work), the
runtime's close, or a ``kill -9`` of the app.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.work import SessionWork
from desktop.core.config.sandbox_settings import SandboxPlaces
from desktop.core.config.schema import ExecToolConfig
from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.exec_session import session_in
from desktop.core.tools.registry import ToolRegistry
from desktop.core.tools.shell import exec_tools
from desktop.core.tools.shell_sessions import ExecSessions
from desktop.core.utils.tasks import TaskOwner
from tests.core.tools.exec_output import unframe
from tests.core.tools.sandbox_support import (
    PY,
    REPO,
    Scene,
    alive,
    kill_all,
    make_scene,
    pids_with,
    require_sandbox,
    scene_root,
    sleeper,
)
from tests.typed import present
from tests.waiting import until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

SANDBOXED = {"sandbox": "bwrap"}  # required: a silent fallback would make these tests lie
PLAIN = {"sandbox": "none"}
LIMITS = {"processes": 64, "memoryMb": 256, "fileSizeMb": 64, "tmpSizeMb": 32, "cpuSeconds": 20}


@dataclass
class Shells:
    """The exec tools on one registry with their sessions, in a scene."""

    scene: Scene
    sessions: ExecSessions
    registry: ToolRegistry
    work: SessionWork

    def ctx(self, key: str = "cli:direct") -> ToolContext:
        base = self.scene.ctx()
        return ToolContext(
            workspace=base.workspace, protected_paths=base.protected_paths, session_key=key
        )

    async def call(self, tool: str, key: str = "cli:direct", **arguments: Any) -> ToolResult:
        return await self.registry.execute(tool, arguments, self.ctx(key))

    async def start(self, command: str, key: str = "cli:direct", **arguments: Any) -> str:
        """Start ``command`` as a session, without waiting for it to do anything; its id."""
        result = await self.call("exec", key, command=command, yield_time_ms=0, **arguments)
        found = session_in(result.text)
        assert found is not None and found[1], result.text
        return found[0]

    async def send(self, sid: str, key: str = "cli:direct", **arguments: Any) -> str:
        result = await self.call("exec_session", key, session_id=sid, **arguments)
        assert not result.is_error, result.text
        return unframe(result.text)

    async def send_quiet(self, sid: str, text: str) -> None:
        """Send input that prints nothing, without waiting (a plain call would wait its whole
        second for output); the test then waits for what the input does."""
        result = await self.call("exec_session", session_id=sid, input=text, timeout_ms=0)
        assert not result.is_error, result.text


@pytest.fixture
def scene(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    with scene_root() as root:
        yield make_scene(root, monkeypatch)


async def _shells(scene: Scene, exec_config: dict[str, Any], **options: Any) -> Shells:
    owner = TaskOwner("test-exec-sessions")
    work = SessionWork()
    sessions = ExecSessions(owner, work.add_child, **options)
    places = SandboxPlaces(scene.root / "cfg")
    (scene.root / "cfg" / "desktop.json").write_text(json.dumps({"sandbox": {"limits": LIMITS}}))
    registry = ToolRegistry()
    for tool in exec_tools(ExecToolConfig(**exec_config), places=places, sessions=sessions):
        registry.register(tool)
    shells = Shells(scene, sessions, registry, work)
    shells.owner = owner  # type: ignore[attr-defined]
    return shells


@pytest.fixture
async def shells(scene: Scene) -> AsyncIterator[Shells]:
    require_sandbox()
    made = await _shells(scene, SANDBOXED)
    try:
        yield made
    finally:
        await made.owner.aclose()  # type: ignore[attr-defined]


async def test_python_is_driven_over_several_calls(shells: Shells) -> None:
    """A Python prompt keeps its state between calls; output, errors and the exit code of
    each exchange come back; the session then ends and is gone."""
    sid = await shells.start(f"{PY} -u -q -i")
    assert ">>>" in await shells.send(sid, input="word = 'sand' + 'box'\n")
    out = await shells.send(sid, input="print(word.upper()[::-1])\n")
    assert "XOBDNAS" in out
    out = await shells.send(sid, input="1/0\n")
    assert "ZeroDivisionError" in out and "still running" in out
    out = await shells.send(
        sid, input="import time; time.sleep(0.3); print('late answer')\n", wait_for="late answer"
    )
    assert "late answer" in out
    out = await shells.send(sid, input="raise SystemExit(7)\n", until_exit=True)
    assert f"[session_id={sid}: ended]" in out and "[exit code: 7]" in out
    listed = await shells.call("list_exec_sessions")
    assert listed.text == "No exec sessions in this conversation."
    gone = await shells.call("exec_session", session_id=sid)
    assert gone.is_error and "there is no exec session" in gone.text


async def test_a_bash_session_keeps_its_folder_and_closes_on_end_of_input(
    shells: Shells,
) -> None:
    (shells.scene.ws / "sub").mkdir()
    sid = await shells.start("bash")
    await shells.send_quiet(sid, "cd sub; X=41\n")  # the shell reads its input in order
    assert "/sub" in await shells.send(sid, input="pwd\n")
    assert "42" in await shells.send(sid, input="echo $((X + 1))\n")
    out = await shells.send(sid, input="echo bye\n", close_stdin=True, until_exit=True)
    assert "bye" in out and "[exit code: 0]" in out


async def test_the_session_runs_in_the_sandbox(shells: Shells) -> None:
    """The app's processes are out of sight, its own PID namespace is tiny, the protected
    state is read-only and the home folder is the scratch one, exactly as for exec."""
    sid = await shells.start("bash")
    out = await shells.send(
        sid,
        input=f"kill -0 {os.getpid()} && echo APP-SEEN || echo APP-UNSEEN; ls /proc | grep -c '^[0-9]'\n",
    )
    assert "APP-UNSEEN" in out and "APP-SEEN" not in out, out
    count = int(out.split("APP-UNSEEN", 1)[1].split()[0])
    assert count < 10, out
    before = shells.scene.snapshot()
    out = await shells.send(  # spelt so that the textual guard lets it through to the mount
        sid, input='f=memory/hist; echo x >> "${f}ory.jsonl" && echo WROTE || echo REFUSED\n'
    )
    assert "REFUSED" in out, out
    assert shells.scene.snapshot() == before
    out = await shells.send(sid, input="ls ~/.ssh 2>&1; echo HOME=$HOME\n")
    assert "id_ed25519" not in out
    assert shells.scene.home.joinpath(".ssh", "id_ed25519").read_text() == "decoy private key\n"


async def test_a_file_too_large_meets_the_limit_inside_a_session(shells: Shells) -> None:
    sid = await shells.start("bash")
    out = await shells.send(
        sid, input="head -c 200M /dev/zero > big.bin; echo rc=$?\n", wait_for="rc="
    )
    assert "rc=" in out and "rc=0" not in out, out
    assert (shells.scene.ws / "big.bin").stat().st_size == 64 << 20


async def test_memory_of_the_sessions_processes_together_is_limited(shells: Shells) -> None:
    """Four processes of 120 MiB (each under the per-process limit, together over 256 MiB):
    the session is stopped by the sandbox, with the limit named."""
    token = "HOG" + secrets.token_hex(4)
    sid = await shells.start("bash")
    hog = f"{PY} -c 'import time; x = b\"x\" * (120 << 20); time.sleep(60)' {token}"
    try:
        result = await shells.call(
            "exec_session",
            session_id=sid,
            input=f"for i in 1 2 3 4; do {hog} & done; wait\n",
            until_exit=True,
            timeout_ms=60_000,
        )
        assert result.is_error, result.text
        assert "memory limit of 256 MiB" in result.text, result.text
        await until(lambda: not pids_with(token), timeout=10, what="no hog left")
    finally:
        kill_all(token)


async def test_the_time_limit_ends_a_session(shells: Shells) -> None:
    token = "SLOW" + secrets.token_hex(4)
    sid = await shells.start(sleeper(token), timeout=1)
    try:
        result = await shells.call("exec_session", session_id=sid, until_exit=True)
        assert result.is_error and "reached its time limit of 1 s" in result.text, result.text
        assert not pids_with(token)
    finally:
        kill_all(token)


async def test_terminate_ends_everything_the_session_started(shells: Shells) -> None:
    token = "TERM" + secrets.token_hex(4)
    sid = await shells.start("bash")
    try:
        await shells.send_quiet(sid, f"{sleeper(token + '-a')} & setsid {sleeper(token)} &\n")
        await until(lambda: len(pids_with(token, sleepers_only=True)) == 2, timeout=10)
        out = await shells.send(sid, terminate=True)
        assert f"[session_id={sid}: terminated]" in out
        assert not pids_with(token)
    finally:
        kill_all(token)


async def test_a_session_of_one_chat_is_invisible_in_another(shells: Shells) -> None:
    sid = await shells.start("bash", key="desktop:a")
    other = await shells.call("exec_session", key="desktop:b", session_id=sid, input="id\n")
    assert other.is_error and "there is no exec session" in other.text
    assert (await shells.call("list_exec_sessions", key="desktop:b")).text.startswith("No exec")
    listed = (await shells.call("list_exec_sessions", key="desktop:a")).text
    assert listed.startswith(f"{sid} | running | elapsed=") and listed.endswith("| bash"), listed
    assert f"| cwd={shells.scene.ws} |" in listed


async def test_input_passes_the_safety_guard(shells: Shells) -> None:
    sid = await shells.start("bash")
    refused = await shells.call("exec_session", session_id=sid, input="rm -rf ~\n")
    assert refused.is_error and "refused by the safety guard" in refused.text, refused.text
    refused = await shells.call(
        "exec_session", session_id=sid, input="echo x > memory/history.jsonl\n"
    )
    assert refused.is_error and "refused" in refused.text


async def test_at_most_max_sessions_at_once(scene: Scene) -> None:
    require_sandbox()
    shells = await _shells(scene, SANDBOXED, max_sessions=2)
    try:
        first = await shells.start("cat")
        await shells.start("cat")
        third = await shells.call("exec", command="cat", yield_time_ms=0)
        assert third.is_error and "2 exec sessions are open" in third.text, third.text
        await shells.send(first, terminate=True)
        assert session_in((await shells.call("exec", command="cat", yield_time_ms=0)).text)
    finally:
        await shells.owner.aclose()  # type: ignore[attr-defined]


async def test_an_idle_session_ends(scene: Scene) -> None:
    require_sandbox()
    token = "IDLE" + secrets.token_hex(4)
    shells = await _shells(scene, SANDBOXED, idle_timeout=0.5)
    try:
        await shells.start(sleeper(token))
        await until(lambda: pids_with(token), timeout=10, what="the sleeper")
        await until(lambda: len(shells.sessions) == 0, timeout=10, what="the idle session ended")
        assert not pids_with(token)
    finally:
        kill_all(token)
        await shells.owner.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize("how", ["stop", "close", "subagent-end"])
async def test_no_process_outlives_its_owner(shells: Shells, how: str) -> None:
    """``/stop`` of the chat (its work), the runtime's close (the owner), a subagent's end."""
    token = "OWNED" + secrets.token_hex(4)
    key = "desktop:x#sub-1" if how == "subagent-end" else "desktop:x"
    try:
        await shells.start(sleeper(token), key=key)
        await shells.start(sleeper(token + "-other"), key="desktop:y")
        await until(lambda: len(pids_with(token, sleepers_only=True)) == 2, timeout=10)
        if how == "stop":
            assert await shells.work.stop("desktop:x")
        elif how == "close":
            await shells.owner.aclose()  # type: ignore[attr-defined]
        else:
            assert await shells.sessions.end_owner(key) == 1
        assert not [p for p in pids_with(token) if p not in pids_with(token + "-other")]
        assert (how == "close") != bool(pids_with(token + "-other"))
    finally:
        kill_all(token)


async def test_unsandboxed_sessions_get_their_input_too(scene: Scene) -> None:
    """Without the sandbox the command still reads the pipe (the parent-death guard runs it
    in the background, where a shell would hand it /dev/null)."""
    shells = await _shells(scene, PLAIN)
    try:
        sid = await shells.start(f"{PY} -u -q -i")
        assert "1764" in await shells.send(sid, input="print(42 * 42)\n")
    finally:
        await shells.owner.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize("config", [SANDBOXED, PLAIN], ids=["sandboxed", "plain"])
async def test_what_a_session_left_running_ends_with_it(
    scene: Scene, config: dict[str, Any]
) -> None:
    """The shell reads end of file (as when the app dies and its pipe closes) and exits: the
    job it left in the background ends too, sandboxed or not (unsandboxed, the app's death
    could otherwise end the shell before the parent-death signal armed its guard)."""
    if config is SANDBOXED:
        require_sandbox()
    token = "LEFT" + secrets.token_hex(4)
    shells = await _shells(scene, config)
    try:
        sid = await shells.start("bash")
        await shells.send_quiet(sid, f"{sleeper(token)} &\n")
        await until(lambda: pids_with(token, sleepers_only=True), timeout=10)
        out = await shells.send(sid, close_stdin=True, until_exit=True)
        assert "[exit code: 0]" in out, out
        await until(lambda: not pids_with(token), timeout=10, what="the background job's end")
    finally:
        kill_all(token)
        await shells.owner.aclose()  # type: ignore[attr-defined]


# --- dying with the app -------------------------------------------------------------------------


@pytest.mark.parametrize("config", [SANDBOXED, PLAIN], ids=["sandboxed", "plain"])
async def test_kill_9_of_the_app_leaves_no_session_process(
    tmp_path: Path, scene: Scene, config: dict[str, Any]
) -> None:
    if config is SANDBOXED:
        require_sandbox()
    token = "SESSKILL" + secrets.token_hex(4)
    state = tmp_path / "state"
    state.mkdir()
    spec = {
        "state": str(state),
        "workspace": str(scene.ws),
        "exec": config,
        "command": "bash",
        "input": f"nohup {sleeper(token + '-a')} >/dev/null 2>&1 & {sleeper(token + '-b')} &\n",
    }
    (state / "spec.json").write_text(json.dumps(spec))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.core.tools.session_app", str(state / "spec.json")],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        await until(lambda: (state / "results.json").exists(), timeout=60, what="the session")
        await until(lambda: len(pids_with(token, sleepers_only=True)) == 2, timeout=20)
        app = int((state / "app.pid").read_text())
        os.kill(app, signal.SIGKILL)
        await until(lambda: not alive(app), timeout=10)
        await until(lambda: not pids_with(token), timeout=10, what="every session process gone")
    finally:
        kill_all(token)
        proc.kill()
        proc.wait(timeout=30)


async def test_a_cancelled_wait_leaves_the_session_running(shells: Shells) -> None:
    """A call cancelled while it waits (its turn stopped elsewhere) does not end the session;
    the output it had not collected is there for the next call."""
    sid = await shells.start("bash")
    waiting = asyncio.ensure_future(
        shells.call("exec_session", session_id=sid, input="echo one\n", until_exit=True)
    )
    await until(lambda: "one" in present(shells.sessions.get(sid, "cli:direct")).output.recent)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert "one" in await shells.send(sid, input="echo two\n")
