"""nanobot's own Dream (nanobot-ai 0.3.5) on the shared workspace: its commit is one of ours.

nanobot's ``/dream`` runs in the background of its process (a one-shot ``agent -m`` exits
first), so the test drives an interactive ``nanobot agent`` through a pipe: ``/dream``, then
wait for nanobot's "Dream completed … (commit …)" line, then end the session.
"""

from __future__ import annotations

import io
import json
import os
import selectors
import subprocess
import time
from typing import Any

from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from tests import nanobot_zygote
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared
from tests.nanobot_zygote import NanobotProcess


def _read_until(
    process: subprocess.Popen[bytes] | NanobotProcess, marker: bytes, timeout: float
) -> bytes:
    """Everything the process wrote until ``marker`` appeared (or the timeout ran out)."""
    assert isinstance(process.stdout, io.BufferedReader), process.stdout
    seen = b""
    os.set_blocking(process.stdout.fileno(), False)
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while marker not in seen and time.monotonic() < deadline:
            if selector.select(timeout=0.5):
                chunk = process.stdout.read() or b""
                if not chunk and process.poll() is not None:
                    break
                seen += chunk
    return seen


def test_nanobots_dream_commit_shows_in_our_memory_history(shared: Shared) -> None:
    """nanobot → us: a Dream run by nanobot edits MEMORY.md and commits to the shared memory
    repository; our timeline (``memory log`` and the GitStore the Memory tab reads) lists that
    commit with nanobot's diff, and our next Dream starts after the entries nanobot consumed."""
    shared.server.push(Reply("Hi."))
    shared.ok("nanobot", "agent", "-m", "hi")  # nanobot's workspace, templates and repository
    store = MemoryStore(shared.workspace)
    store.append_history("The user's favourite tea is genmaicha.")
    memory = shared.workspace / "memory" / "MEMORY.md"
    anchor = memory.read_text(encoding="utf-8").splitlines()[0]

    def route(body: dict[str, Any]) -> Reply | None:
        return None  # every answer is queued below, in order

    shared.server.route = route
    edit = {
        "path": "memory/MEMORY.md",
        "old_text": anchor,
        "new_text": anchor + "\n\n- Favourite tea: genmaicha (interop 5521)",
    }
    shared.server.push(
        Reply(tool_calls=[("read_file", json.dumps({"path": "memory/MEMORY.md"}))]),
        Reply(tool_calls=[("edit_file", json.dumps(edit))]),
        Reply("Memory updated."),
    )
    args = ["agent", "--classic", "--no-markdown"]
    process: subprocess.Popen[bytes] | NanobotProcess
    if nanobot_zygote.forking():
        process = nanobot_zygote.start(
            shared.python, args, env=shared.env, stdin=True, merge_stderr=True, text=False
        )
    else:
        process = subprocess.Popen(
            [str(shared.nanobot), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=shared.env,
        )
    with process:  # closes the pipes however the test ends
        try:
            assert isinstance(process.stdin, io.BufferedWriter), process.stdin
            process.stdin.write(b"/dream\n")
            process.stdin.flush()
            out = _read_until(process, b"(commit ", timeout=120)
        finally:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    text = out.decode(errors="replace")
    assert "Dream completed" in text and "(commit " in text, text
    sha = text.split("(commit ", 1)[1].split(")", 1)[0].strip()
    assert "Favourite tea: genmaicha (interop 5521)" in memory.read_text(encoding="utf-8")

    ours = shared.ok("nanobot-desktop", "memory", "log")
    first = ours.splitlines()[0]
    assert first.startswith(sha[:7]) and "dream" in first, (sha, ours)
    commits = GitStore(shared.workspace).log()
    assert commits[0].sha.startswith(sha[:7]), commits
    diff = GitStore(shared.workspace).show(commits[0].sha)
    changed = {d.path: d for d in diff}
    assert "memory/MEMORY.md" in changed, changed
    assert "+- Favourite tea: genmaicha (interop 5521)" in changed["memory/MEMORY.md"].patch, diff
    assert MemoryStore(shared.workspace).dream_cursor == 1  # nanobot consumed the entry
