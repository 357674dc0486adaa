"""The interactive ``agent`` in a real pseudo-terminal, against the scripted server (real
LiteLLM path): ``/stop`` and Ctrl-C during an answer stop that turn, not the CLI."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import select
import subprocess
import termios
import time
from pathlib import Path
from typing import Any

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.session.manager import SessionManager
from tests.conftest import CLI, cli_env, custom_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

#: Streams a few words, then nothing for a minute: stopped long before it would end.
STALLED = Reply("slow " * 200, chunk=5, stall_after=8, stall_for=60)


def _controlling_terminal() -> None:
    """In the child: its stdin (the pty) becomes its controlling terminal, so Ctrl-C typed
    there is a SIGINT, as in a real terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """The CLI on a pseudo-terminal: type into it, wait for what it prints."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.leader, follower = pty.openpty()
        self.proc = subprocess.Popen(
            args,
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env=env,
            start_new_session=True,
            preexec_fn=_controlling_terminal,
        )
        os.close(follower)
        self.output = ""
        self.seen = 0  # what expect() has consumed

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.leader], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self.leader, 4096)
        except OSError:  # the child closed the terminal
            return False
        self.output += chunk.decode(errors="replace")
        return bool(chunk)

    def expect(self, text: str, timeout: float = 90) -> None:
        """Wait until ``text`` is printed after what was expected before."""
        deadline = time.monotonic() + timeout
        while (found := self.output.find(text, self.seen)) < 0:
            assert time.monotonic() < deadline, f"no {text!r} in:\n{self.output[self.seen :]}"
            assert self._read(0.5) or self.output.find(text, self.seen) >= 0, self.output
        self.seen = found + len(text)

    def type(self, keys: str) -> None:
        os.write(self.leader, keys.encode())

    def wait(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(0.2)
        code = self.proc.wait(timeout=5)
        os.close(self.leader)
        return code


def _stop_twice_then_quit(term: Terminal) -> int:
    """``/stop`` while an answer streams, a normal turn, Ctrl-C while an answer streams, a
    normal turn, Ctrl-C at the prompt; the exit code."""
    try:
        term.expect("you> ")
        term.type("first\n")
        term.expect("slow slow")
        term.type("/stop\n")
        term.expect("[stopped]", timeout=40)  # the stream stalls for 60 s: the stop ended it
        term.expect("you> ")
        term.type("second\n")
        term.expect("Second answer.")
        term.expect("you> ")
        term.type("third\n")
        term.expect("slow slow")
        term.type("\x03")  # Ctrl-C
        term.expect("[stopped]", timeout=40)
        term.expect("you> ")
        term.type("fourth\n")
        term.expect("Fourth answer.")
        term.expect("you> ")
        term.type("\x03")  # Ctrl-C at the prompt
        return term.wait()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()


def _check_session(messages: list[dict[str, Any]]) -> None:
    """Four turns; the two stopped ones keep their streamed text, marked stopped."""
    assert [m["content"] for m in messages if m["role"] == "user"] == [
        "first",
        "second",
        "third",
        "fourth",
    ]
    stopped = [m for m in messages if m.get("stopped")]
    assert len(stopped) == 2 and all(m["content"].startswith("slow") for m in stopped)
    assert messages[-1]["content"] == "Fourth answer."


def test_stop_and_ctrl_c_stop_the_answer_not_the_chat(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """The agent of the CLI's own process: ``/stop`` typed while the answer streams stops it,
    the prompt comes back and the chat goes on; Ctrl-C does the same; Ctrl-C at the prompt
    quits (130)."""
    config = custom_config(tmp_path, scripted_server.url)
    scripted_server.push(STALLED, Reply("Second answer."), STALLED, Reply("Fourth answer."))
    term = Terminal([CLI, "agent", "--config", str(config)], cli_env(isolated_env))
    code = _stop_twice_then_quit(term)
    assert code == 130 and "Traceback" not in term.output, term.output
    manager = SessionManager(tmp_path / "workspace", config_dir=config.parent)
    _check_session(manager.get_or_create("cli:direct").messages)


async def test_stop_and_ctrl_c_reach_the_running_app(
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
    memory_keyring: object,
) -> None:
    """With the app's runtime serving its socket (started here as the app starts it), the
    terminal chats with that agent: ``/stop`` and Ctrl-C stop the app's turn the same way."""
    config = custom_config(tmp_path, scripted_server.url)
    runtime = await start_runtime(
        load_config(config), StartOptions(secrets=SecretStore(), approval=ApprovalPolicy())
    )
    try:
        assert runtime.ipc is not None and runtime.ipc.serving
        scripted_server.push(STALLED, Reply("Second answer."), STALLED, Reply("Fourth answer."))
        term = Terminal([CLI, "agent", "--config", str(config)], cli_env(isolated_env))
        code = await asyncio.to_thread(_stop_twice_then_quit, term)
        assert "in the running app" in term.output
        assert code == 130 and "Traceback" not in term.output, term.output
        _check_session(runtime.sessions.get_or_create("cli:direct").messages)
    finally:
        await runtime.stop()
