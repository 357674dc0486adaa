"""The local socket through which ``nanobot-desktop agent`` hands its message to a running app
or gateway (:mod:`desktop.core.ipc`).

The real runtime, started in this process the way the app starts it (``start_runtime``, which
serves the socket), answers through the scripted server on the real LiteLLM path. The tests
speak the JSON-lines protocol on a real Unix socket; the last one runs ``agent -m`` as a real
subprocess against it.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.bus.events import RunEvent
from desktop.core.bus.queue import MessageBus
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.ipc.client import AgentConnection, socket_path
from desktop.core.ipc.server import AgentSocketServer
from desktop.core.runtime import Runtime
from desktop.core.utils.tasks import TaskOwner
from tests.conftest import cli_env, custom_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

pytestmark = pytest.mark.skipif(
    not hasattr(asyncio, "start_unix_server"), reason="the agent socket needs Unix sockets"
)

READ_TIMEOUT_S = 30.0


class Served:
    """A runtime serving the socket, the run events it emitted, and its socket's path."""

    def __init__(self, runtime: Runtime, events: list[RunEvent], path: Path) -> None:
        self.runtime = runtime
        self.events = events
        self.path = path

    def ended(self) -> list[RunEvent]:
        """The turn ends seen so far."""
        return [e for e in self.events if e.kind in ("turn_finished", "turn_failed")]

    def saved(self, key: str) -> list[dict[str, Any]]:
        """The messages of session ``key`` as its file holds them (the metadata line dropped)."""
        path = self.runtime.sessions.path_for(key)
        return [json.loads(line) for line in path.read_text().splitlines()][1:]


@pytest.fixture
async def served(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, memory_keyring: object
) -> AsyncIterator[Served]:
    """The runtime started as the app starts it: ``start_runtime`` serves the socket."""
    config = load_config(custom_config(tmp_path, scripted_server.url))
    runtime = await start_runtime(
        config, StartOptions(secrets=SecretStore(), approval=ApprovalPolicy())
    )
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    path = socket_path(tmp_path / "config")
    assert runtime.ipc is not None and runtime.ipc.serving and runtime.ipc.path == path
    try:
        yield Served(runtime, events, path)
    finally:
        await runtime.stop()


class Line:
    """A raw protocol client: writes lines, reads JSON lines."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, path: Path) -> Line:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=1 << 22)
        return cls(reader, writer)

    async def send(self, data: dict[str, Any] | bytes) -> None:
        raw = data if isinstance(data, bytes) else json.dumps(data).encode() + b"\n"
        self.writer.write(raw)
        await self.writer.drain()

    async def read(self) -> dict[str, Any]:
        line = await asyncio.wait_for(self.reader.readline(), READ_TIMEOUT_S)
        assert line, "the server closed the connection"
        event = json.loads(line)
        assert isinstance(event, dict)
        return event

    async def turn(self, content: str, session: str = "cli:direct") -> list[dict[str, Any]]:
        """Send a message; every event up to and including ``done``."""
        await self.send({"op": "turn", "session": session, "content": content})
        events = [await self.read()]
        while events[-1]["event"] != "done":
            events.append(await self.read())
        return events

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except (ConnectionError, OSError):
            pass


def _text(events: list[dict[str, Any]]) -> str:
    return "".join(e["text"] for e in events if e["event"] == "text_delta")


async def test_hello_answers_the_workspace_and_the_model(served: Served, tmp_path: Path) -> None:
    """``hello``: the workspace and the (routed) model of the running agent, as often as asked
    on one connection, and the model in use now after a switch from the model picker; the
    library client reads the same."""
    client = await Line.open(served.path)
    for _ in range(2):
        await client.send({"op": "hello"})
        assert await client.read() == {
            "event": "hello",
            "workspace": str(tmp_path / "workspace"),
            "model": "openai/any-name",
        }
    await served.runtime.use_model("another-model", SecretStore())
    await client.send({"op": "hello"})
    assert (await client.read())["model"] == "openai/another-model"
    await client.close()
    connection = await AgentConnection.open(served.path)
    assert connection is not None
    assert (await connection.hello() or {}).get("model") == "openai/another-model"
    await connection.close()


@pytest.mark.parametrize(
    "line",
    [
        b"not json\n",
        b"[1, 2]\n",
        b'"a string"\n',
        b"null\n",
        b"\n",
        b'{"op": "turn", "content": "cut off\n',
        b"\xff\xfe invalid utf-8\n",
        b"[" * 100_000 + b"\n",
    ],
    ids=["text", "array", "string", "null", "empty", "cut-off", "bad-utf8", "deep"],
)
async def test_a_line_that_is_not_a_json_object_gets_an_error_and_the_connection_works_on(
    served: Served, scripted_server: ScriptedOpenAIServer, line: bytes
) -> None:
    """An error event for the line; the same connection then says hello and runs a turn."""
    client = await Line.open(served.path)
    await client.send(line)
    assert await client.read() == {"event": "error", "message": "not a JSON object"}
    await client.send({"op": "hello"})
    assert (await client.read())["event"] == "hello"
    scripted_server.push(Reply("Still here."))
    assert (await client.turn("hi"))[-1]["content"] == "Still here."
    await client.close()
    assert not scripted_server.chat_requests()[1:], "the bad line reached the model"


@pytest.mark.parametrize(
    "request_",
    [
        {"op": "dance"},
        {"op": "turn", "content": "hi", "media": 5},
        {"op": "turn", "content": {"text": "hi"}},
        {"op": "turn", "content": "hi", "session": ["cli", "x"]},
        {"op": "turn", "content": "hi", "media": [1, None]},
        {"op": "turn", "content": ""},
    ],
    ids=["unknown-op", "media-number", "content-object", "session-list", "media-items", "empty"],
)
async def test_a_malformed_request_gets_an_error_and_the_connection_works_on(
    served: Served, scripted_server: ScriptedOpenAIServer, request_: dict[str, Any]
) -> None:
    """A JSON object that is not a valid request: an error event, nothing reaches the agent,
    and the connection keeps working."""
    client = await Line.open(served.path)
    await client.send(request_)
    answer = await client.read()
    assert answer["event"] == "error" and answer["message"], answer
    scripted_server.push(Reply("Fine."))
    assert (await client.turn("hi"))[-1] == {
        "event": "done",
        "status": "finished",
        "content": "Fine.",
        "message": "",
    }
    await client.close()
    assert len(scripted_server.chat_requests()) == 1
    assert [m["content"] for m in served.saved("cli:direct")] == ["hi", "Fine."]


async def test_a_message_is_run_and_its_events_and_answer_stream_back(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """The turn's events in order (started, several deltas, finished), then ``done`` with the
    answer; the turn is saved under the client's session."""
    answer = "The quick brown fox jumps over the lazy dog."
    scripted_server.push(Reply(answer, chunk=5))
    client = await Line.open(served.path)
    events = await client.turn("tell me", session="cli:story")
    await client.close()
    kinds = [e["event"] for e in events]
    assert kinds[0] == "turn_started" and kinds[-2:] == ["turn_finished", "done"]
    assert kinds.count("text_delta") >= 5 and _text(events) == answer
    assert events[0]["session_key"] == "cli:story" and events[0]["content"] == "tell me"
    assert {e["turn_id"] for e in events[:-1]} == {events[0]["turn_id"]}
    assert events[-1] == {"event": "done", "status": "finished", "content": answer, "message": ""}
    saved = served.saved("cli:story")
    assert [(m["role"], m["content"]) for m in saved] == [
        ("user", "tell me"),
        ("assistant", answer),
    ]


def _echo_slowly(body: dict[str, Any]) -> Reply:
    """Answers "echo: <message>" in small, slow pieces (so two turns would overlap)."""
    asked = body["messages"][-1]["content"]
    text = asked if isinstance(asked, str) else ""
    return Reply(f"echo: {text.rsplit(chr(10), 1)[-1]}", chunk=2, delay=0.01)


async def test_two_clients_in_one_session_are_served_one_turn_at_a_time(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """Two connections send to the same session at once: each gets its own turn's events and
    answer only, the turns run one after the other (the second sees the first in its
    history), and the session holds both turns whole."""
    scripted_server.route = _echo_slowly
    clients = [await Line.open(served.path) for _ in range(2)]
    results = await asyncio.gather(
        clients[0].turn("from A", session="cli:shared"),
        clients[1].turn("from B", session="cli:shared"),
    )
    for client in clients:
        await client.close()
    for events, name in zip(results, "AB", strict=True):
        assert events[0]["event"] == "turn_started" and events[0]["content"] == f"from {name}"
        assert _text(events) == f"echo: from {name}"
        assert events[-1]["content"] == f"echo: from {name}"
        assert {e["turn_id"] for e in events[:-1]} == {events[0]["turn_id"]}
    assert results[0][0]["turn_id"] != results[1][0]["turn_id"]
    first, second = scripted_server.chat_requests()
    history = [m.get("content") for m in second.body["messages"][1:-1]]
    earlier = "A" if any(str(c).endswith("from A") for c in history) else "B"
    assert f"echo: from {earlier}" in history, "the second turn did not wait for the first"
    later = "B" if earlier == "A" else "A"
    assert not any(f"from {later}" in str(m.get("content")) for m in first.body["messages"])
    assert [(m["role"], m["content"].rsplit("\n", 1)[-1]) for m in served.saved("cli:shared")] == [
        ("user", f"from {earlier}"),
        ("assistant", f"echo: from {earlier}"),
        ("user", f"from {later}"),
        ("assistant", f"echo: from {later}"),
    ]


def _handlers() -> list[asyncio.Task[Any]]:
    """This loop's unfinished connection handlers of the socket server."""
    return [
        task
        for task in asyncio.all_tasks()
        if not task.done()
        and getattr(task.get_coro(), "__qualname__", "").startswith(AgentSocketServer.__name__)
    ]


async def test_a_client_gone_mid_turn_leaves_the_turn_saved_and_the_server_serving(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """The client hangs up after the first piece of the answer: the turn runs to its end and
    is saved, nothing is left waiting for the departed client, and the next client is
    served."""
    answer = "a long answer, " * 20
    scripted_server.push(Reply(answer, chunk=5, delay=0.01), Reply("Next one."))
    client = await Line.open(served.path)
    await client.send({"op": "turn", "session": "cli:gone", "content": "talk"})
    while (await client.read())["event"] != "text_delta":
        pass
    await client.close()
    await until(lambda: served.ended())
    assert served.ended()[0].kind == "turn_finished"
    saved = served.saved("cli:gone")
    assert [(m["role"], m["content"]) for m in saved] == [("user", "talk"), ("assistant", answer)]
    await until(lambda: not _handlers(), timeout=5)
    again = await Line.open(served.path)
    events = await again.turn("and now?", session="cli:gone")
    assert events[-1]["content"] == "Next one."
    await again.close()


async def test_a_client_that_stops_reading_does_not_hold_up_the_agent(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """A terminal that sends a message and then reads nothing (suspended, piped into a pager):
    its turn and another chat's turn still finish and are saved, the agent does not wait on
    that terminal's socket, and once it lags far behind its connection is closed."""
    pieces = [f"{n:05d}{'x' * 1994} " for n in range(1500)]  # each different (LiteLLM
    answer = "".join(pieces)  # stops a stream repeating a chunk): 3 MB, far beyond the buffers
    scripted_server.push(Reply(answer, chunk=len(pieces[0])), Reply("Meanwhile, answered."))
    stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stuck.connect(str(served.path))  # a plain socket: nothing reads on its behalf
    request = {"op": "turn", "session": "cli:stuck", "content": "say a lot"}
    stuck.sendall(json.dumps(request).encode() + b"\n")
    try:
        await until(lambda: served.ended(), timeout=60)
        other = await Line.open(served.path)
        events = await other.turn("hello?", session="cli:other")
        assert events[-1]["content"] == "Meanwhile, answered."
        await other.close()
        received = await asyncio.to_thread(_read_to_end, stuck)
    finally:
        stuck.close()
    assert [e.kind for e in served.ended()] == ["turn_finished", "turn_finished"]
    assert served.saved("cli:stuck")[-1]["content"] == answer
    assert received.startswith(b'{"turn_id"') and b'"event": "done"' not in received
    assert len(received) < 2 * len(answer), "the lagging terminal was buffered without end"
    await until(lambda: not _handlers(), timeout=5)


def _read_to_end(sock: socket.socket) -> bytes:
    """Everything the server sent before closing the connection."""
    sock.settimeout(READ_TIMEOUT_S)
    chunks = []
    while chunk := sock.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


async def test_the_socket_is_private_to_the_user(tmp_path: Path) -> None:
    """The socket file is 0600 in a 0700 folder, even when the folder existed with looser
    permissions; and opening it leaves the permissions of folders that other work creates
    meanwhile alone (no process-wide umask in effect across a yield)."""
    run = tmp_path / "config" / "run"
    run.mkdir(parents=True)
    run.chmod(0o755)
    made = tmp_path / "made"
    made.mkdir()
    stop = asyncio.Event()

    async def other_work() -> None:  # makes a folder on every turn of the loop
        n = 0
        while not stop.is_set():
            (made / f"d{n}").mkdir()
            n += 1
            await asyncio.sleep(0)

    path = socket_path(tmp_path / "config")
    server = AgentSocketServer(path, MessageBus(), TaskOwner("test"), workspace=tmp_path, model="m")
    umask = os.umask(0o022)
    try:
        worker = asyncio.get_running_loop().create_task(other_work())
        await asyncio.sleep(0)
        assert await server.start()
        stop.set()
        await worker
    finally:
        os.umask(umask)
    try:
        mode = os.lstat(path).st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
        assert stat.S_IMODE(os.lstat(run).st_mode) == 0o700
        assert os.lstat(path).st_uid == os.getuid()
    finally:
        await server.stop()
    assert not path.exists()
    modes = {oct(stat.S_IMODE(p.stat().st_mode)) for p in made.iterdir()}
    assert modes == {oct(0o755)}, f"folders made while the socket opened: {modes}"


async def test_agent_m_hands_its_message_to_the_runtime_started_in_process(
    served: Served, scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """``nanobot-desktop agent -m`` as a real subprocess, with the runtime running in this
    process as the app runs it: the answer is printed, the subprocess imports no LiteLLM (it
    ran no agent), the in-process runtime ran the turn, and one session file is written."""
    scripted_server.push(Reply("Answered by the app.", chunk=4))
    config = tmp_path / "config" / "config.json"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-X", "importtime", "-m", "desktop", "agent", "-m", "hi from a terminal",
        "--config", str(config),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=cli_env(isolated_env),
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, err.decode()
    assert out.decode() == "Answered by the app.\n"
    imported = {line.rsplit("|", 1)[-1].strip() for line in err.decode().splitlines()}
    assert "litellm" not in imported and "desktop.core.agent.loop" not in imported
    assert len(scripted_server.chat_requests()) == 1
    started = [e for e in served.events if e.kind == "turn_started"]
    assert [(e.session_key, e.content) for e in started] == [("cli:direct", "hi from a terminal")]
    assert [e.kind for e in served.ended()] == ["turn_finished"]
    files = sorted(p for p in tmp_path.rglob("*.jsonl") if "sessions" in p.parts)
    files += sorted(p for p in isolated_env.rglob("*.jsonl") if "sessions" in p.parts)
    assert files == [served.runtime.sessions.path_for("cli:direct")]
    assert [(m["role"], m["content"]) for m in served.saved("cli:direct")] == [
        ("user", "hi from a terminal"),
        ("assistant", "Answered by the app."),
    ]
