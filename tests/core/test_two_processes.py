"""Two real processes on one workspace: nothing either of them writes is lost.

* Two ``nanobot-desktop agent`` processes (the interactive prompt, so each keeps its session
  cached between turns) run 10 turns each on the same session, through the scripted server,
  every turn calling a tool before answering; and two workers each run ``agent -m`` three
  times in a row (a fresh process per turn) on one session.
* Two processes append 300 entries each to ``memory/history.jsonl``.

The agents are forked from the pre-imported zygote (``tests.cli_runner.fork_cli``): each is
its own process with its own session cache, file descriptors and locks, as a fresh
``nanobot-desktop`` would be, without importing LiteLLM again (what is on trial is two
processes writing one session, not the interpreter's start).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from desktop.core.session.manager import SessionManager
from tests.cli_runner import fork_cli
from tests.conftest import REPO, cli_env, custom_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

TURNS = 10
APPENDS = 300


def _answer_or_call(body: dict[str, Any]) -> Reply:
    """A tool call for a new user message, the answer once the tool result is in."""
    last = body["messages"][-1]
    if last["role"] == "user":
        return Reply(tool_calls=[("list_dir", "{}")])
    asked = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    text = asked["content"] if isinstance(asked["content"], str) else ""
    return Reply(f"done: {text.rsplit(chr(10), 1)[-1]}")


def test_two_agents_alternating_on_one_session_lose_nothing(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """20 turns from two processes: every user message saved once, each turn whole and in one
    piece, the file valid JSONL."""
    scripted_server.route = _answer_or_call
    config = custom_config(tmp_path, scripted_server.url)
    command = ["agent", "--config", str(config), "--session", "cli:shared"]

    def agent(name: str) -> subprocess.CompletedProcess[str]:
        lines = "".join(f"{name}-{n}\n" for n in range(TURNS))
        return fork_cli(command, cli_env(isolated_env), stdin=lines)

    with ThreadPoolExecutor(2) as pool:  # both processes at once
        results = list(pool.map(agent, "ab"))
    for result in results:
        assert result.returncode == 0, result.stderr
    path = SessionManager(tmp_path / "workspace", config_dir=config.parent).path_for("cli:shared")
    _check_turns(path, [f"{name}-{n}" for name in "ab" for n in range(TURNS)])
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    users = [row["content"] for row in rows if row.get("role") == "user"]
    for name in "ab":  # each process's turns in its own order
        assert [u for u in users if u[0] == name] == [f"{name}-{n}" for n in range(TURNS)]


def _check_turns(path: Path, expected: list[str]) -> None:
    """Every expected user message once, each turn whole: user, call, result, answer."""
    meta, *messages = [json.loads(line) for line in path.read_text().splitlines()]
    assert meta["_type"] == "metadata" and "pending_user_turn" not in meta["metadata"]
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert sorted(users) == sorted(expected), f"lost or repeated: {users}"
    assert len(messages) == 4 * len(expected)
    for start in range(0, len(messages), 4):
        user, call, result, answer = messages[start : start + 4]
        assert user["role"] == "user" and call["role"] == "assistant"
        assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
        assert answer["role"] == "assistant" and answer["content"] == f"done: {user['content']}"


def test_two_workers_running_agent_m_on_one_session(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """``agent -m`` three times in each of two concurrent workers: six whole turns."""
    scripted_server.route = _answer_or_call
    config = custom_config(tmp_path, scripted_server.url)
    command = ["agent", "--config", str(config), "--session", "cli:oneshot", "-m"]

    def worker(name: str) -> None:
        for n in range(3):  # a fresh process per turn
            result = fork_cli([*command, f"{name}-{n}"], cli_env(isolated_env))
            assert result.returncode == 0, result.stderr

    with ThreadPoolExecutor(2) as pool:  # the two workers at once
        list(pool.map(worker, "xy"))
    path = SessionManager(tmp_path / "workspace", config_dir=config.parent).path_for("cli:oneshot")
    _check_turns(path, [f"{name}-{n}" for name in "xy" for n in range(3)])


_APPENDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from desktop.core.memory.store import MemoryStore

    workspace, name, count, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    deadline = time.monotonic() + 60
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.001)
    store = MemoryStore(workspace)
    for n in range(count):
        store.append_history(f"{name} {n}")
    """
)


def test_two_processes_appending_history_get_unique_increasing_cursors(tmp_path: Path) -> None:
    """2 × 300 appends at once: 600 entries, cursors 1..600 in file order, .cursor = 600."""
    workspace = tmp_path / "ws"
    go = tmp_path / "go"
    with contextlib.ExitStack() as stack:  # each Popen closes its pipe on exit
        procs = [
            stack.enter_context(
                subprocess.Popen(
                    [sys.executable, "-c", _APPENDER, str(workspace), name, str(APPENDS), str(go)],
                    cwd=REPO,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            for name in ("a", "b")
        ]
        go.touch()  # both start appending at the same moment
        for proc in procs:
            assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    lines = (workspace / "memory" / "history.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    cursors = [e["cursor"] for e in entries]
    assert len(entries) == 2 * APPENDS
    assert cursors == list(range(1, 2 * APPENDS + 1)), "duplicate or out-of-order cursors"
    assert sorted(e["content"] for e in entries) == sorted(
        f"{name} {n}" for name in "ab" for n in range(APPENDS)
    )
    assert (workspace / "memory" / ".cursor").read_text() == str(2 * APPENDS)
