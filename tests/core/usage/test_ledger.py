"""The usage ledger: what a real runtime records, and what a crash or a second writer cannot break."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage
from desktop.core.config.schema import Config
from desktop.core.memory.store import MemoryStore
from desktop.core.usage.ledger import UsageLedger, read_file
from desktop.core.usage.place import LedgerPlace
from desktop.core.usage.record import UsageRecord
from tests.core.agent.conftest import make_provider
from tests.core.usage.helpers import only_file, place_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

REPO = Path(__file__).resolve().parents[3]


def _config(tmp_path: Path) -> Config:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})


def _kind(body: dict[str, Any]) -> tuple[str, int]:
    """The (source, Dream phase) a request belongs to, judged from what was sent."""
    system = body["messages"][0]["content"]
    if "background worker" in system:
        return "subagent", 0
    if "decide what belongs in its long-term memory" in system:
        return "dream", 1
    if "You maintain an assistant's long-term memory files" in system:
        return "dream", 2
    if "Write a short title" in system:
        return "title", 0
    users = [json.dumps(m["content"]) for m in body["messages"] if m["role"] == "user"]
    if any("Background task" in text for text in users):
        return "report", 0  # the main agent's turn on a subagent's report
    return "chat", 0


async def test_counts_match_the_servers_usage_for_a_turn_a_subagent_and_dream(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Every call of a chat turn with a tool call, its subagent, and a two-phase Dream run is
    one ledger line tagged with its source, session and phase, with the tokens the server sent."""
    config = _config(tmp_path)
    workspace = config.workspace_path
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    sent: list[tuple[str, int, int, int]] = []  # (source, phase, prompt, completion)

    def route(body: dict[str, Any]) -> Reply:
        source, phase = _kind(body)
        n = len(sent) + 1
        usage = (100 * n + 7, 10 * n + 3)  # distinct per call: a swapped record shows
        sent.append((source, phase, *usage))
        last = body["messages"][-1]
        if source == "report":
            source = "subagent"  # it counts as the subagent's spend
            sent[-1] = (source, *sent[-1][1:])
            if last["role"] == "user":
                return Reply("Your count finished: 2 lines.", usage=usage)
        if source == "subagent":
            if last["role"] == "user":
                return Reply(tool_calls=[("read_file", '{"path": "notes.txt"}')], usage=usage)
            return Reply("notes.txt has 2 lines.", usage=usage)
        if source == "dream" and phase == 1:
            return Reply("[MEMORY] Ada lives in Lisbon", usage=usage)
        if source == "dream":
            if last["role"] == "user":
                edit = {
                    "path": "memory/MEMORY.md",
                    "old_text": "- fact 1\n",
                    "new_text": "- fact 1\n- Ada lives in Lisbon\n",
                }
                return Reply(tool_calls=[("edit_file", json.dumps(edit))], usage=usage)
            return Reply("Updated MEMORY.md.", usage=usage)
        if source == "title":
            return Reply("Counting lines", usage=usage)
        if last["role"] == "user":
            spawn = '{"task": "Count the lines of notes.txt", "label": "count"}'
            return Reply(tool_calls=[("list_dir", "{}"), ("spawn", spawn)], usage=usage)
        return Reply("I started a background count.", usage=usage)

    scripted_server.route = route
    runtime = build_runtime(config, make_provider(scripted_server.url))
    loop = runtime.agent
    loop.start()
    try:
        await loop.bus.publish_inbound(InboundMessage("telegram", "u1", "c1", "count lines"))
        async with asyncio.timeout(60):
            assert (await loop.bus.consume_outbound()).content == "I started a background count."
            assert (await loop.bus.consume_outbound()).content == "Your count finished: 2 lines."
        (workspace / "memory" / "MEMORY.md").write_text("- fact 1\n")
        await asyncio.to_thread(MemoryStore(workspace).append_history, "Ada moved to Lisbon.")
        result = await runtime.memory.dream().run()
        assert result.status == "changed", result
    finally:
        await runtime.stop()

    place = place_of(config)
    records = await asyncio.to_thread(lambda: read_file(only_file(place), root=place.root))
    assert len(records) == len(sent) >= 7
    assert Counter((r.source, r.phase, r.prompt_tokens, r.completion_tokens) for r in records) == (
        Counter(sent)
    )
    by_source = Counter(r.source for r in records)
    assert by_source["chat"] == 2 and by_source["subagent"] == 3
    assert by_source["dream"] == 3  # phase 1, then phase 2's tool call and its answer
    chat = [r for r in records if r.source in ("chat", "subagent")]
    assert {r.session for r in chat} == {"telegram:c1"}
    assert {r.channel for r in records if r.source == "chat"} == {"telegram"}
    assert {r.run for r in records if r.source == "subagent"} == {"sub-1", ""}  # worker, report
    assert all(r.model and r.duration_s >= 0 and r.time > 0 for r in records)
    dream_runs = {r.run for r in records if r.source == "dream"}
    assert len(dream_runs) == 1 and "" not in dream_runs


def _record(n: int, when: float | None = None) -> UsageRecord:
    return UsageRecord(
        time=when or time.time(),
        source="cron",
        model="m",
        prompt_tokens=n,
        completion_tokens=1,
        job=f"job{n}",
    )


def test_a_line_cut_short_by_a_crash_costs_only_itself(tmp_path: Path) -> None:
    """A fragment at the end (a crash mid-append) is isolated by the next append, kept aside
    by the reader and skipped; every other record survives; old bytes are never changed."""
    place = LedgerPlace.in_workspace(tmp_path)
    ledger = UsageLedger(place)
    now = time.time()
    path = ledger.append(_record(1, now))
    ledger.append(_record(2, now))
    with path.open("ab") as handle:
        handle.write(_record(99, now).to_line()[:25])  # what a power cut can leave
    before = path.read_bytes()
    ledger.append(_record(3, now))
    ledger.append(_record(4, now))
    assert path.read_bytes().startswith(before)
    records = read_file(path, root=place.root)
    assert [r.prompt_tokens for r in records] == [1, 2, 3, 4]
    aside = list(path.parent.glob(f"{path.name}.damaged*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b'{"v": 1')
    assert read_file(path, root=place.root) == records  # a second read sets nothing aside
    assert len(list(path.parent.glob(f"{path.name}.damaged*"))) == 1


def test_garbage_lines_are_skipped_never_fatal(tmp_path: Path) -> None:
    place = LedgerPlace.in_workspace(tmp_path)
    ledger = UsageLedger(place)
    path = ledger.append(_record(1))
    with path.open("ab") as handle:
        handle.write(b'[1, 2]\n{"time": "not a time"}\n\xff\xfe\n')
    ledger.append(_record(2))
    assert [r.prompt_tokens for r in read_file(path, root=place.root)] == [1, 2]


WRITER = """
import sys, time
from pathlib import Path
from desktop.core.usage.ledger import UsageLedger
from desktop.core.usage.record import UsageRecord
from desktop.core.usage.place import LedgerPlace
from tests.waiting import until
ledger = UsageLedger(LedgerPlace.in_workspace(Path(sys.argv[1])))
count = int(sys.argv[2])
tag = sys.argv[3]
i = 0
while count < 0 or i < count:
    i += 1
    ledger.append(UsageRecord(time=time.time(), source=tag, model="m", prompt_tokens=i))
"""


def _writer(workspace: Path, count: int, tag: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(workspace), str(count), tag], env=env, cwd=REPO
    )


def _lines(workspace: Path) -> int:
    folder = LedgerPlace.in_workspace(workspace).folder
    return sum(p.read_bytes().count(b"\n") for p in folder.glob("ledger-*.jsonl"))


def test_a_killed_writer_loses_nothing_and_two_processes_interleave_whole_lines(
    tmp_path: Path,
) -> None:
    """A process killed while appending leaves only whole records (each one numbered in
    order, none missing); two processes appending at once (app and gateway) lose nothing."""
    killed = _writer(tmp_path, -1, "killed")
    deadline = time.monotonic() + 60
    while _lines(tmp_path) < 200:
        assert time.monotonic() < deadline and killed.poll() is None
        time.sleep(0.01)
    killed.send_signal(signal.SIGKILL)
    killed.wait(30)
    place = LedgerPlace.in_workspace(tmp_path)
    first = [r.prompt_tokens for r in read_file(only_file(place), root=place.root)]
    assert first == list(range(1, len(first) + 1))  # no hole, no damaged line

    writers = [_writer(tmp_path, 150, tag) for tag in ("app", "gateway")]
    for writer in writers:
        assert writer.wait(120) == 0
    records = read_file(only_file(place), root=place.root)
    for tag in ("app", "gateway"):
        assert [r.prompt_tokens for r in records if r.source == tag] == list(range(1, 151))
    assert [r.prompt_tokens for r in records if r.source == "killed"] == first
