"""Both directions against the real ``nanobot`` CLI (nanobot-ai 0.3.5) on one machine.

Each test runs the two programs as a person would — ``nanobot agent -m`` and
``nanobot-desktop …`` as subprocesses, with one HOME, the default ``~/.nanobot/config.json``
and one workspace — against the scripted model server, and asserts on what the model was sent
and on the shared files.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from desktop.core.memory.store import MemoryStore
from desktop.core.session.location import storage_name
from desktop.core.utils.resources import data_path
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, dump, jsonl, texts


def git_log(workspace: Path) -> list[str]:
    """Commit subjects of the workspace's repository, newest first (the real git)."""
    out = subprocess.run(
        ["git", "-C", str(workspace), "log", "--format=%s"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    return out.splitlines()


def git_show(workspace: Path, spec: str) -> str:
    """``git show SPEC`` in the workspace."""
    return subprocess.run(
        ["git", "-C", str(workspace), "show", spec],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip


def _id_folder(shared: Shared) -> Path:
    """nanobot 0.3.5's session folder of the shared workspace."""
    workspace_id = (shared.workspace / ".nanobot" / "workspace-id").read_text().strip()
    return shared.home / ".nanobot" / "sessions" / workspace_id


def _roles_and_texts(path: Path) -> list[tuple[str, str]]:
    """``(role, content)`` of every message line of a session file."""
    return [
        (line["role"], str(line.get("content")))
        for line in jsonl(path)
        if line.get("_type") != "metadata"
    ]


def test_conversation_started_in_nanobot_continues_in_ours(shared: Shared) -> None:
    """nanobot → us: our next turn sends nanobot's turns to the model, in the same file."""
    shared.server.push(Reply("Noted: the code word is BANANA-7."))
    shared.ok("nanobot", "agent", "-m", "Remember the code word BANANA-7.")
    shared.server.push(Reply("It was BANANA-7."))
    out = shared.ok("nanobot-desktop", "agent", "-m", "Which code word did I give you?")
    assert "It was BANANA-7." in out

    messages = shared.last_messages()
    assert any("Remember the code word BANANA-7." in t for t in texts(messages, "user"))
    assert "Noted: the code word is BANANA-7." in texts(messages, "assistant")
    assert "Which code word did I give you?" in texts(messages, "user")[-1]
    # One conversation, one file, under nanobot's name for ``cli:direct``.
    files = sorted(p.name for p in _id_folder(shared).glob("*.jsonl"))
    assert files == [storage_name("cli:direct")] == ["Y2xpOmRpcmVjdA.jsonl"]
    assert [role for role, _ in _roles_and_texts(_id_folder(shared) / files[0])] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_conversation_started_in_ours_continues_in_nanobot(shared: Shared) -> None:
    """us → nanobot: nanobot's next turn on the same session key carries our turns."""
    shared.server.push(Reply("Your parcel number is PX-4411."))
    shared.ok("nanobot-desktop", "agent", "--session", "cli:parcel", "-m", "Track PX-4411.")
    shared.server.push(Reply("Still PX-4411."))
    out = shared.ok("nanobot", "agent", "-s", "cli:parcel", "-m", "What was my parcel?")
    assert "Still PX-4411." in out

    messages = shared.last_messages()
    assert "Track PX-4411." in texts(messages, "user")
    assert "Your parcel number is PX-4411." in texts(messages, "assistant")
    assert "What was my parcel?" in texts(messages, "user")[-1]
    path = _id_folder(shared) / storage_name("cli:parcel")
    assert [text for role, text in _roles_and_texts(path) if role == "assistant"] == [
        "Your parcel number is PX-4411.",
        "Still PX-4411.",
    ], dump(path)


def _legacy_session(folder: Path, name: str, key: str, question: str, answer: str) -> None:
    """A session file as older nanobot (and this app before 0.3.5's layout) wrote it."""
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = [
        {
            "_type": "metadata",
            "key": key,
            "created_at": "2026-01-02T10:00:00",
            "updated_at": "2026-01-02T10:01:00",
            "metadata": {},
            "last_consolidated": 0,
        },
        {"role": "user", "content": question, "timestamp": "2026-01-02T10:00:00"},
        {"role": "assistant", "content": answer, "timestamp": "2026-01-02T10:01:00"},
    ]
    (folder / name).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def test_nanobots_migration_of_legacy_sessions_strands_nothing(shared: Shared) -> None:
    """nanobot moves ``<workspace>/sessions/*`` into its folder on start; our chat list
    still shows every conversation, and each continues in both programs."""
    legacy = shared.workspace / "sessions"
    _legacy_session(legacy, "cli_old.jsonl", "cli:old", "Plan the Lisbon trip", "Day one: Alfama.")
    _legacy_session(
        legacy, "telegram_42.jsonl", "telegram:42", "Buy oat milk", "Added to the list."
    )

    shared.server.push(Reply("Hello from nanobot."))
    shared.ok("nanobot", "agent", "-m", "hello")
    # nanobot really migrated: the legacy folder is empty, its old names sit in the id folder.
    assert sorted(p.name for p in legacy.glob("*.jsonl")) == []
    moved = {p.name for p in _id_folder(shared).glob("*.jsonl")}
    assert {"cli_old.jsonl", "telegram_42.jsonl", storage_name("cli:direct")} <= moved, moved

    listed = shared.ok("nanobot-desktop", "sessions", "list")
    for key, title in (
        ("cli:old", "Plan the Lisbon trip"),
        ("telegram:42", "Buy oat milk"),
        ("cli:direct", "hello"),
    ):
        assert any(line.startswith(key + "\t") and title in line for line in listed.splitlines()), (
            listed
        )

    shared.server.push(Reply("Day two: Belém."))
    shared.ok("nanobot-desktop", "agent", "--session", "cli:old", "-m", "And day two?")
    assert "Plan the Lisbon trip" in texts(shared.last_messages(), "user")
    assert "Day one: Alfama." in texts(shared.last_messages(), "assistant")
    shared.server.push(Reply("Day three: Sintra."))
    shared.ok("nanobot", "agent", "-s", "cli:old", "-m", "And day three?")
    assert texts(shared.last_messages(), "assistant") == ["Day one: Alfama.", "Day two: Belém."]
    # Exactly one file per conversation remains (no duplicate under a second name).
    names = sorted(p.name for p in _id_folder(shared).glob("*.jsonl"))
    keys = sorted(jsonl(_id_folder(shared) / n)[0]["key"] for n in names)
    assert keys == sorted({"cli:old", "telegram:42", "cli:direct"}), names


def _user_texts_seen(shared: Shared) -> list[str]:
    return [t for r in shared.server.chat_requests() for t in texts(r.body["messages"], "user")]


def test_cron_job_queued_by_nanobot_is_listed_and_fires_in_ours(shared: Shared) -> None:
    """nanobot's cron tool, with no nanobot gateway running, queues the job in
    ``cron/action.jsonl``; ``cron list`` shows it, our gateway runs it, and nanobot's own
    cron tool then reads the job back from the ``jobs.json`` we wrote."""
    add = json.dumps({"action": "add", "message": "interop ping 5521", "every_seconds": 2})
    shared.server.push(Reply(tool_calls=[("cron", add)]), Reply("Scheduled."))
    shared.ok("nanobot", "agent", "-m", "Ping me every two seconds.")
    queued = jsonl(shared.workspace / "cron" / "action.jsonl")
    assert [a["action"] for a in queued] == ["add"], queued
    job_id = queued[0]["params"]["id"]

    listed = shared.ok("nanobot-desktop", "cron", "list")
    assert f"(id: {job_id}, every 2s)" in listed and "interop ping 5521" in listed, listed

    def route(body: dict[str, Any]) -> Reply | None:
        if any("interop ping 5521" in t for t in texts(body["messages"], "user")):
            return Reply("pong 5521")
        return None

    def run_recorded() -> bool:
        """Our scheduler wrote the finished run to ``jobs.json`` (a run that a stop cuts short
        is not recorded, in nanobot either: stopping as soon as the request is out raced it)."""
        try:
            stored = json.loads((shared.workspace / "cron" / "jobs.json").read_text("utf-8"))
        except (OSError, ValueError):  # not written yet
            return False
        return any(j["id"] == job_id and j["state"].get("lastRunAtMs") for j in stored["jobs"])

    shared.server.route = route
    gateway = shared.start("nanobot-desktop", "gateway")
    try:
        deadline = time.monotonic() + 90
        while not run_recorded():
            assert gateway.poll() is None, gateway.communicate()
            assert time.monotonic() < deadline, "our scheduler never ran nanobot's job"
            time.sleep(0.2)
    finally:
        gateway.send_signal(signal.SIGINT)
        _out, err = gateway.communicate(timeout=60)
    assert gateway.returncode == 0, err
    assert any("interop ping 5521" in t for t in _user_texts_seen(shared))
    assert not (shared.workspace / "cron" / "action.jsonl").exists() or not jsonl(
        shared.workspace / "cron" / "action.jsonl"
    )

    shared.server.route = None
    shared.server.push(
        Reply(tool_calls=[("cron", json.dumps({"action": "list"}))]), Reply("Listed.")
    )
    shared.ok("nanobot", "agent", "-m", "Which jobs are there?")
    tool_results = texts(shared.last_messages(), "tool")
    assert any(job_id in t and "interop ping" in t for t in tool_results), tool_results


def test_our_dream_commit_shows_in_nanobots_dream_log(shared: Shared) -> None:
    """A Dream run of ours commits to the memory repository nanobot created; nanobot's
    ``/dream-log`` (typed as a message to ``nanobot agent``) shows that commit and its diff."""
    shared.server.push(Reply("Hi."))
    shared.ok("nanobot", "agent", "-m", "hi")  # nanobot syncs the templates and makes the repo
    empty = shared.ok("nanobot", "agent", "-m", "/dream-log")
    assert "no saved versions yet" in empty, empty

    store = MemoryStore(shared.workspace)
    store.append_history("- 2026-11-20: The user said their favourite fruit is the mango.")
    memory = (shared.workspace / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    anchor = memory.splitlines()[0]
    assert anchor.strip(), memory

    def route(body: dict[str, Any]) -> Reply | None:
        if not body.get("tools"):  # phase 1: the analysis
            return Reply("[MEMORY] Favourite fruit: mango")
        return None

    shared.server.route = route
    edit = {
        "path": "memory/MEMORY.md",
        "old_text": anchor,
        "new_text": anchor + "\n\n- Favourite fruit: mango (interop 8830)",
    }
    shared.server.push(Reply(tool_calls=[("edit_file", json.dumps(edit))]), Reply("Done."))
    shared.ok("nanobot-desktop", "cron", "run", "dream")
    ours = shared.ok("nanobot-desktop", "memory", "log")
    assert "dream:" in ours, ours

    log = shared.ok("nanobot", "agent", "-m", "/dream-log")
    assert "Dream Update" in log and "+- Favourite fruit: mango (interop 8830)" in log, log
    sha = log.split("Commit: `", 1)[1].split("`", 1)[0]
    assert len(sha) == 8 and ours.splitlines()[0].startswith(sha[:7] + " "), (sha, ours)


def test_the_repository_we_create_on_template_sync_is_nanobots_too(shared: Shared) -> None:
    """us → nanobot: our first run creates the memory repository with the untouched templates
    as its first commit; nanobot adopts it (no second init commit; ``/dream-log`` finds it)."""
    shared.server.push(Reply("Hi."))
    shared.ok("nanobot-desktop", "agent", "-m", "hi")
    # Read with the real git, before any memory command of ours could create the repository.
    log = git_log(shared.workspace)
    assert log == ["init: memory repository"], log
    shipped = data_path("templates", "SOUL.md").read_text(encoding="utf-8")
    assert git_show(shared.workspace, "HEAD:SOUL.md") == shipped

    dream_log = shared.ok("nanobot", "agent", "-m", "/dream-log")
    # "not initialized" / "has not run yet" would mean nanobot did not see our repository.
    assert "no saved versions yet" in dream_log, dream_log
    assert git_log(shared.workspace) == log  # nanobot adopted it: no second init commit


def test_our_onboarded_config_runs_nanobot_and_back(shared: Shared) -> None:
    """config.json both ways: the file our ``onboard`` writes is one nanobot runs with (it
    refused ``"timezone": null`` before), and after nanobot refreshes it we still run."""
    shared.config.unlink()
    shared.ok(
        "nanobot-desktop", "onboard", "--provider", "custom", "--api-base", shared.server.url,
        "--model", "scripted-model", "--workspace", str(shared.workspace),
    )  # fmt: skip
    shared.server.push(Reply("nanobot runs on your config."))
    out = shared.ok("nanobot", "agent", "-m", "hi")
    assert "nanobot runs on your config." in out
    assert shared.server.chat_requests()[-1].body["model"] == "scripted-model"

    shared.ok("nanobot", "onboard", "--refresh")
    refreshed = json.loads(shared.config.read_text(encoding="utf-8"))
    assert "timezoneMode" in refreshed["agents"]["defaults"]  # nanobot rewrote the file
    shared.server.push(Reply("And we run on nanobot's."))
    assert shared.ok("nanobot-desktop", "agent", "-m", "hi again") == "And we run on nanobot's.\n"
    assert texts(shared.last_messages(), "assistant") == ["nanobot runs on your config."]


def _nanobot_python(shared: Shared, code: str) -> str:
    """Run ``code`` with nanobot's own library (its venv's Python); return stdout."""
    result = shared.nanobot_python(code)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_history_and_dream_cursor_both_ways(shared: Shared) -> None:
    """``memory/history.jsonl`` and ``memory/.dream_cursor`` through nanobot's own
    ``MemoryStore`` (nanobot writes these only from long chats and its Dream, so its library
    stands in for them): cursors continue across the programs, our Dream reads nanobot's
    entries, and nanobot reads the cursor our Dream left."""
    shared.server.push(Reply("Hi."))
    shared.ok("nanobot", "agent", "-m", "hi")  # nanobot's workspace
    ws = str(shared.workspace)
    _nanobot_python(
        shared,
        "from pathlib import Path\nfrom nanobot.agent.memory import MemoryStore\n"
        f"s = MemoryStore(Path({ws!r}))\n"
        "s.append_history('The user adopted a cat called Miso.')\n"
        "s.append_history('The user moved to Porto.')\n",
    )
    ours = MemoryStore(shared.workspace)
    assert [e.content for e in ours.entries()] == [
        "The user adopted a cat called Miso.",
        "The user moved to Porto.",
    ]
    assert ours.append_history("The user prefers metric units.") == 3

    def route(body: dict[str, Any]) -> Reply | None:
        return None if body.get("tools") else Reply("[SKIP]")

    shared.server.route = route
    shared.ok("nanobot-desktop", "cron", "run", "dream")
    analysis = next(r.body for r in shared.server.chat_requests() if not r.body.get("tools"))
    prompt = " ".join(texts(analysis["messages"], "user"))
    assert "called Miso" in prompt and "moved to Porto" in prompt and "metric units" in prompt
    assert ours.dream_cursor == 3

    seen = json.loads(
        _nanobot_python(
            shared,
            "import json\nfrom pathlib import Path\nfrom nanobot.agent.memory import MemoryStore\n"
            f"s = MemoryStore(Path({ws!r}))\n"
            "print(json.dumps([s.get_last_dream_cursor(), s.get_latest_cursor(),"
            " [e['content'] for e in s.read_unprocessed_history(0)]]))\n",
        )
    )
    assert seen[:2] == [3, 3], seen
    assert seen[2][-1] == "The user prefers metric units.", seen


def test_a_workspace_skill_is_offered_by_both(shared: Shared) -> None:
    """``skills/<name>/SKILL.md`` (YAML front matter) in the shared workspace is listed in the
    system prompt of both programs."""
    skill = shared.workspace / "skills" / "tide-tables"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tide-tables\ndescription: Look up tide tables for a harbour (interop 4417).\n"
        "---\n\n# Tide tables\n\nAsk the harbour master.\n",
        encoding="utf-8",
    )
    for program in ("nanobot", "nanobot-desktop"):
        shared.server.push(Reply("Ok."))
        shared.ok(program, "agent", "-m", "hi")
        system = " ".join(texts(shared.last_messages(), "system"))
        assert "tide-tables" in system and "interop 4417" in system, (program, system[-3000:])
