"""``nanobot-desktop agent -m`` handing its message to a running app: the terminal's side.

The runtime runs in this process as the app runs it (``start_runtime`` serves the socket) on
the scripted model server; ``agent -m`` runs as a real subprocess. A terminal that leaves
before its message's turn began (Ctrl-C, ``timeout``) takes the message back; a turn that
needs an approval asks in the terminal too (a real pseudo-terminal here), the first answer
wins, and a terminal that cannot answer says it waits for the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.cli.chat import CLOSED, WAITING
from desktop.core.agent.approval import ApprovalPolicy, ApprovalRequest, Decision
from desktop.core.agent.context import RUNTIME_CLOSE
from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.bus.events import InboundMessage, RunEvent, TurnStarted
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.ipc.client import socket_path
from desktop.core.runtime import Runtime
from tests.conftest import cli_env, custom_config
from tests.core.tools.exec_output import unframe
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

pytestmark = pytest.mark.skipif(
    not hasattr(asyncio, "start_unix_server"), reason="the agent socket needs Unix sockets"
)

WAIT_S = 60.0


def user_text(body: dict[str, Any]) -> str:
    """What the person wrote, from a chat-completion request (the last user message)."""
    content = next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return str(content).split(RUNTIME_CLOSE, 1)[-1].strip()


class Served:
    """The runtime serving the socket, its run events, and the config the CLI is pointed at."""

    def __init__(self, runtime: Runtime, events: list[RunEvent], config: Path) -> None:
        self.runtime = runtime
        self.events = events
        self.config = config

    def started(self) -> list[str]:
        """The requests of the turns that began."""
        return [e.content for e in self.events if isinstance(e, TurnStarted)]

    def saved(self, key: str) -> list[tuple[str, str]]:
        path = self.runtime.sessions.path_for(key)
        lines = [json.loads(line) for line in path.read_text().splitlines()][1:]
        return [(m["role"], str(m.get("content"))) for m in lines if m["role"] != "tool"]


@pytest.fixture
async def served(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, memory_keyring: object
) -> AsyncIterator[Served]:
    config_file = custom_config(tmp_path, scripted_server.url)
    runtime = await start_runtime(
        load_config(config_file), StartOptions(secrets=SecretStore(), approval=ApprovalPolicy())
    )
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    assert runtime.ipc is not None and runtime.ipc.path == socket_path(config_file.parent)
    try:
        yield Served(runtime, events, config_file)
    finally:
        await runtime.stop()


async def agent_m(
    served: Served, home: Path, text: str, *, session: str = "cli:direct", stdin: Any = None
) -> asyncio.subprocess.Process:
    """``nanobot-desktop agent -m text`` as a real subprocess."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop", "agent", "-m", text, "--session", session,
        "--config", str(served.config),
        stdin=stdin if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=cli_env(home),
    )  # fmt: skip


async def read_until(stream: asyncio.StreamReader | None, text: str, seen: bytearray) -> str:
    """Read ``stream`` into ``seen`` until it holds ``text``; everything read so far."""
    assert stream is not None
    async with asyncio.timeout(WAIT_S):
        while text.encode() not in seen:
            chunk = await stream.read(4096)
            assert chunk, f"the stream ended before {text!r}: {seen.decode()!r}"
            seen += chunk
    return seen.decode()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "timeout"])
async def test_a_terminal_gone_before_its_turn_began_has_its_message_dropped(
    served: Served,
    scripted_server: ScriptedOpenAIServer,
    isolated_env: Path,
    sig: signal.Signals,
) -> None:
    """A turn runs in ``cli:q``; ``agent -m`` sends to the same chat, so its message waits.
    The terminal is interrupted (Ctrl-C's SIGINT, or the SIGTERM ``timeout`` sends) while it
    waits: when the running turn ends, the waiting message is not run — no turn, no request,
    nothing saved — and the socket serves the next terminal."""
    hold = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        asked = user_text(body)
        if asked == "first":
            hold.wait(WAIT_S)  # the model is busy with the first message until released
        return Reply(f"answer to {asked}")

    scripted_server.route = route
    ipc = served.runtime.ipc
    assert ipc is not None
    try:
        first = InboundMessage("cli", "user", "q", "first", session_key_override="cli:q")
        await served.runtime.bus.publish_inbound(first)
        await until(lambda: scripted_server.chat_requests(), what="the first turn's call")
        process = await agent_m(served, isolated_env, "queued", session="cli:q")
        await until(lambda: ipc.waiting == 1, timeout=WAIT_S, what="the message waits")
        process.send_signal(sig)
        await asyncio.wait_for(process.communicate(), WAIT_S)
        assert process.returncode != 0
        await until(lambda: ipc.waiting == 0, what="the server saw the terminal leave")
    finally:
        hold.set()
    await until(lambda: len(served.saved("cli:q")) == 2, what="the first turn saved")
    await served.runtime.agent.idle()
    assert served.started() == ["first"]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["first"]
    assert served.saved("cli:q") == [("user", "first"), ("assistant", "answer to first")]
    again = await agent_m(served, isolated_env, "still here?", session="cli:q")
    out, err = await asyncio.wait_for(again.communicate(), WAIT_S)
    assert again.returncode == 0, err.decode()
    assert out.decode() == "answer to still here?\n"


def _exec_then_answer(scripted_server: ScriptedOpenAIServer) -> None:
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("All done."),
    )


def _tool_result(scripted_server: ScriptedOpenAIServer) -> str:
    """The exec call's result the model got, without its untrusted frame."""
    messages = scripted_server.chat_requests()[-1].body["messages"]
    return unframe(str(next(m for m in messages if m["role"] == "tool")["content"]))


@contextlib.contextmanager
def terminal() -> Any:
    """A pseudo-terminal: ``(the child's stdin, what the person types into)``."""
    controller, child = os.openpty()
    try:
        yield child, controller
    finally:
        for fd in (controller, child):
            with contextlib.suppress(OSError):
                os.close(fd)


async def test_an_approval_is_asked_in_the_terminal_and_its_answer_taken(
    served: Served, scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    """No window here: the turn's exec call is asked in the terminal, the person types "y",
    the command runs and the answer is printed."""
    _exec_then_answer(scripted_server)
    with terminal() as (child, typing):
        process = await agent_m(served, isolated_env, "run it", stdin=child)
        os.close(child)
        err = bytearray()
        shown = await read_until(process.stderr, "Allow?", err)
        assert "Allow the tool exec? It runs a shell command." in shown
        assert "approved-run" in shown and "or answer in the window" not in shown
        os.write(typing, b"y\n")
        out, rest = await asyncio.wait_for(process.communicate(), WAIT_S)
    assert process.returncode == 0, (err + rest).decode()
    assert out.decode().endswith("All done.\n")
    assert _tool_result(scripted_server).startswith("approved-run")


class Window:
    """Stands in for the app's window as an approver: the test answers for the person."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []
        self.answer: asyncio.Future[Decision] | None = None

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        self.answer = asyncio.get_running_loop().create_future()
        return await self.answer


async def test_the_window_answering_first_closes_the_terminals_question(
    served: Served, scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    """Asked in the window and the terminal at once; the window answers first: the terminal
    stops asking and says so, and the turn goes on with the window's answer."""
    window = Window()
    gate = served.runtime.approval
    assert gate is not None
    remove = gate.add_approver(window)
    _exec_then_answer(scripted_server)
    try:
        with terminal() as (child, _typing):
            process = await agent_m(served, isolated_env, "run it", stdin=child)
            os.close(child)
            err = bytearray()
            shown = await read_until(process.stderr, "Allow?", err)
            assert "(or answer in the window)" in shown
            await until(lambda: window.answer is not None, what="the window asked too")
            assert window.answer is not None
            window.answer.set_result(Decision.ALLOW_ONCE)
            out, rest = await asyncio.wait_for(process.communicate(), WAIT_S)
    finally:
        remove()
    assert process.returncode == 0, (err + rest).decode()
    assert CLOSED in (err + rest).decode()
    assert out.decode().endswith("All done.\n")
    assert _tool_result(scripted_server).startswith("approved-run")


async def test_a_terminal_that_cannot_answer_says_it_waits_for_the_window(
    served: Served, scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    """Standard input is not a terminal (a script, ``< /dev/null``): the question is shown
    with where to answer it; the window's "deny" is the answer."""
    window = Window()
    gate = served.runtime.approval
    assert gate is not None
    remove = gate.add_approver(window)
    _exec_then_answer(scripted_server)
    try:
        process = await agent_m(served, isolated_env, "run it")
        err = bytearray()
        shown = await read_until(process.stderr, WAITING, err)
        assert "Allow the tool exec?" in shown and "Allow?" not in shown
        await until(lambda: window.answer is not None, what="the window asked")
        assert window.answer is not None
        window.answer.set_result(Decision.DENY)
        out, rest = await asyncio.wait_for(process.communicate(), WAIT_S)
    finally:
        remove()
    assert process.returncode == 0, (err + rest).decode()
    assert out.decode().endswith("All done.\n")
    assert _tool_result(scripted_server).startswith("Denied by the user")


async def test_a_message_over_the_limit_is_refused_at_the_socket(
    served: Served, scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    """``channels.maxInboundKb`` holds for a terminal too: nothing published, a clear error."""
    served.runtime.config.channels.max_inbound_kb = 1
    process = await agent_m(served, isolated_env, "z" * 3000)
    out, err = await asyncio.wait_for(process.communicate(), WAIT_S)
    assert process.returncode != 0 and out == b""
    assert "Your message is too long (3 KB); I read messages up to 1 KB." in err.decode()
    assert served.started() == [] and scripted_server.chat_requests() == []


async def test_a_request_sent_during_a_turn_is_served_after_it(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """While its turn runs the server reads the connection (for approval answers); a second
    message sent ahead on the same connection is not lost: it is run once the first ends."""
    scripted_server.push(Reply("one", delay=0.05, chunk=1), Reply("two"))
    ipc = served.runtime.ipc
    assert ipc is not None
    reader, writer = await asyncio.open_unix_connection(str(ipc.path))
    try:
        for text in ("first", "second"):
            request = {"op": "turn", "session": "cli:ahead", "content": text}
            writer.write(json.dumps(request).encode() + b"\n")
        await writer.drain()
        done: list[str] = []
        async with asyncio.timeout(WAIT_S):
            while len(done) < 2:
                event = json.loads(await reader.readline())
                if event["event"] == "done":
                    done.append(event["content"])
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
    assert done == ["one", "two"]
    assert served.started() == ["first", "second"]


async def test_the_interactive_chat_takes_an_approval_answer_typed_in_it(
    served: Served, scripted_server: ScriptedOpenAIServer, isolated_env: Path
) -> None:
    """The interactive ``agent`` (no ``-m``) reads the terminal all the time; the "y" typed
    at the question answers it (it is not queued as the next message), the command runs and
    the chat goes on."""
    _exec_then_answer(scripted_server)
    with terminal() as (child, typing):
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "desktop", "agent", "--session", "cli:talk",
            "--config", str(served.config), stdin=child,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=cli_env(isolated_env),
        )  # fmt: skip
        os.close(child)
        out, err = bytearray(), bytearray()
        await read_until(process.stdout, "you> ", out)
        os.write(typing, b"run it\n")
        await read_until(process.stderr, "Allow?", err)
        os.write(typing, b"y\n")
        await read_until(process.stdout, "All done.", out)
        os.write(typing, b"/exit\n")
        _, rest_err = await asyncio.wait_for(process.communicate(), WAIT_S)
    assert process.returncode == 0, (err + rest_err).decode()
    assert _tool_result(scripted_server).startswith("approved-run")
    assert served.started() == ["run it"]  # "y" answered the question; it was no message
