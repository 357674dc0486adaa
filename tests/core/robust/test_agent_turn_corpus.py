"""A real agent still answers whatever the model (or anyone) did to the files the app reads.

Each case damages one file of a fresh workspace or config, then starts the runtime the way the
app and ``gateway`` do (:func:`start_runtime`: agent, system jobs, scheduler) on the scripted
OpenAI server through the real LiteLLM path, and runs a turn in the damaged conversation. The
turn must answer, be saved, and the next turn must work too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.config.loader import config_origin, load_config
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.core.robust.corpus import BOMB, make_fifo
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = "desktop:damaged"
META = {"_type": "metadata", "key": KEY, "metadata": {}, "last_consolidated": 0}
HELLO = {"role": "user", "content": "earlier question"}
ANSWER = {"role": "assistant", "content": "earlier answer"}
GOOD_ENTRY = {"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "remembered fact"}

Damage = Callable[[Path, Path], None]


def _session(ws: Path, *lines: bytes) -> None:
    """A damaged conversation in the legacy folder (the app adopts it as it is)."""
    path = ws / "sessions" / "desktop_damaged.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(lines))


def _j(data: object) -> bytes:
    return json.dumps(data).encode() + b"\n"


def _history(ws: Path, bad: bytes) -> None:
    path = ws / "memory" / "history.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_j(GOOD_ENTRY) + bad)


def _file(ws: Path, name: str, data: bytes) -> None:
    path = ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _folder(ws: Path, name: str) -> None:
    (ws / name).mkdir(parents=True, exist_ok=True)


def _fifo(ws: Path, name: str) -> None:
    (ws / name).parent.mkdir(parents=True, exist_ok=True)
    make_fifo(ws / name)


def _config(cfg: Path, path: tuple[str, ...], raw: str) -> None:
    data = json.loads(cfg.read_text())
    node = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = "__X__"
    cfg.write_text(json.dumps(data).replace('"__X__"', raw))


def _jobs(ws: Path, data: bytes) -> None:
    _file(ws, "cron/jobs.json", data)


def _job(**schedule: object) -> dict[str, object]:
    return {"id": "j", "name": "j", "schedule": schedule, "payload": {"message": "m"}}


CASES: dict[str, Damage] = {
    # memory/history.jsonl: the system prompt's parser used to brick every turn
    "history_not_utf8": lambda ws, cfg: _history(ws, b"\xff\xfe\n"),
    "history_cursor_text": lambda ws, cfg: _history(ws, _j({**GOOD_ENTRY, "cursor": "x"})),
    "history_cursor_list": lambda ws, cfg: _history(ws, _j({**GOOD_ENTRY, "cursor": [1]})),
    "history_bomb": lambda ws, cfg: _history(ws, b"[" * BOMB + b"\n"),
    "history_nan": lambda ws, cfg: _history(
        ws, b'{"cursor": NaN, "timestamp": "t", "content": "c"}\n'
    ),
    "history_folder": lambda ws, cfg: _folder(ws, "memory/history.jsonl"),
    "history_fifo": lambda ws, cfg: _fifo(ws, "memory/history.jsonl"),
    "dream_cursor_garbage": lambda ws, cfg: _file(ws, "memory/.dream_cursor", b"\xffx"),
    "cursor_folder": lambda ws, cfg: _folder(ws, "memory/.cursor"),
    "memory_is_a_file": lambda ws, cfg: _file(ws, "memory", b"not a folder"),
    # Markdown
    "soul_not_utf8": lambda ws, cfg: _file(ws, "SOUL.md", b"# Soul\n\xff\xfe\n"),
    "memory_md_folder": lambda ws, cfg: _folder(ws, "memory/MEMORY.md"),
    "user_md_fifo": lambda ws, cfg: _fifo(ws, "USER.md"),
    "agents_md_huge": lambda ws, cfg: _file(ws, "AGENTS.md", b"x" * (9 * 1024 * 1024)),
    # the conversation itself
    "meta_last_consolidated_text": lambda ws, cfg: _session(
        ws, _j({**META, "last_consolidated": "x"}), _j(HELLO), _j(ANSWER)
    ),
    "meta_metadata_list": lambda ws, cfg: _session(
        ws, _j({**META, "metadata": [1, 2]}), _j(HELLO), _j(ANSWER)
    ),
    "meta_pending_bad": lambda ws, cfg: _session(
        ws, _j({**META, "metadata": {"pending_user_turn": {"index": "z"}}}), _j(HELLO)
    ),
    "meta_not_utf8": lambda ws, cfg: _session(ws, b"\xff\xfe\n", _j(HELLO), _j(ANSWER)),
    "message_role_bogus": lambda ws, cfg: _session(
        ws, _j(META), _j(HELLO), _j({"role": "bogus", "content": "x"}), _j(ANSWER)
    ),
    "message_content_object": lambda ws, cfg: _session(
        ws, _j(META), _j({"role": "user", "content": {"a": 1}}), _j(HELLO), _j(ANSWER)
    ),
    "message_tool_calls_text": lambda ws, cfg: _session(
        ws, _j(META), _j(HELLO), _j({"role": "assistant", "content": "x", "tool_calls": "y"})
    ),
    "message_user_with_tool_calls": lambda ws, cfg: _session(
        ws, _j(META), _j({**HELLO, "tool_calls": [{"id": "c"}]}), _j(ANSWER)
    ),
    "message_huge": lambda ws, cfg: _session(
        ws, _j(META), _j(HELLO), b'{"role": "user", "content": "' + b"x" * (17 << 20) + b'"}\n'
    ),
    "message_deep": lambda ws, cfg: _session(
        ws,
        _j(META),
        _j(HELLO),
        b'{"role": "user", "content": "x", "d": ' + b"[" * 150 + b"]" * 150 + b"}\n",
    ),
    "session_truncated": lambda ws, cfg: _session(ws, _j(META), _j(HELLO), b'{"role": "ass'),
    "session_folder": lambda ws, cfg: _folder(ws, "sessions/desktop_damaged.jsonl"),
    "sessions_is_a_file": lambda ws, cfg: _file(ws, "sessions", b"not a folder"),
    # cron/jobs.json
    "jobs_version_text": lambda ws, cfg: _jobs(ws, b'{"version": "x", "jobs": []}'),
    "jobs_folder": lambda ws, cfg: _folder(ws, "cron/jobs.json"),
    "jobs_fifo": lambda ws, cfg: _fifo(ws, "cron/jobs.json"),
    "jobs_not_a_list": lambda ws, cfg: _jobs(ws, b'{"version": 1, "jobs": {"a": 1}}'),
    "jobs_top_array": lambda ws, cfg: _jobs(ws, b"[1, 2]"),
    "jobs_bad_kind": lambda ws, cfg: _jobs(ws, _j({"jobs": [_job(kind="sometimes")]})),
    "jobs_every_nan": lambda ws, cfg: _jobs(
        ws, b'{"jobs": [{"id": "j", "schedule": {"kind": "every", "everyMs": NaN}}]}'
    ),
    "jobs_at_huge": lambda ws, cfg: _jobs(ws, _j({"jobs": [_job(kind="at", atMs=10**20)]})),
    "jobs_bad_tz": lambda ws, cfg: _jobs(
        ws, _j({"jobs": [_job(kind="at", atMs=1000, tz="Mars/Base")]})
    ),
    "cron_is_a_file": lambda ws, cfg: _file(ws, "cron", b"not a folder"),
    "cron_lock_folder": lambda ws, cfg: _folder(ws, "cron.lock"),
    # config.json (field-level: the rest of the config stays in force)
    "config_max_tokens_text": lambda ws, cfg: _config(
        cfg, ("agents", "defaults", "maxTokens"), '"lots"'
    ),
    "config_temperature_nan": lambda ws, cfg: _config(
        cfg, ("agents", "defaults", "temperature"), "NaN"
    ),
    "config_timezone_bogus": lambda ws, cfg: _config(
        cfg, ("agents", "defaults", "timezone"), '"Mars/Base"'
    ),
    "config_dream_deep": lambda ws, cfg: _config(
        cfg, ("agents", "defaults", "dream"), "[" * 150 + "]" * 150
    ),
    "config_heartbeat_text": lambda ws, cfg: _config(cfg, ("gateway", "heartbeat"), '"on"'),
    # skills: parsed for the system prompt
    "skill_yaml_bomb": lambda ws, cfg: _file(
        ws, "skills/bomb/SKILL.md", b"---\nname: bomb\ndescription: " + b"[" * BOMB + b"\n---\n"
    ),
    "skill_metadata_bomb": lambda ws, cfg: _file(
        ws,
        "skills/meta/SKILL.md",
        b"---\nname: meta\ndescription: d\nmetadata: '" + b"[" * BOMB + b"'\n---\n",
    ),
    "skill_not_utf8": lambda ws, cfg: _file(ws, "skills/bad/SKILL.md", b"---\n\xff\n---\n"),
    "skill_md_folder": lambda ws, cfg: _folder(ws, "skills/dir/SKILL.md"),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_real_turn_answers_despite_the_damage(
    case: str, scripted_server: ScriptedOpenAIServer, tmp_path: Path, no_keyring: None
) -> None:
    """Start the runtime on the damaged files, run two turns in the damaged conversation."""
    ws = tmp_path / "ws"
    ws.mkdir()
    cfg = write_config(
        tmp_path / "cfg" / "config.json",
        {"agents": {"defaults": {"workspace": str(ws), "model": "m", "timezone": "UTC"}}},
    )
    CASES[case](ws, cfg)
    config = load_config(cfg, environ={})
    if case.startswith("config_"):
        assert config_origin(config).warnings, "the bad field was reported"
    scripted_server.push(Reply("first answer"), Reply("second answer"))
    runtime = await start_runtime(
        config, StartOptions(provider=make_provider(scripted_server.url), serve_socket=False)
    )
    try:
        agent = runtime.agent
        first = await agent.process_direct("hello", session_key=KEY, channel="desktop", chat_id="d")
        second = await agent.process_direct(
            "again", session_key=KEY, channel="desktop", chat_id="d"
        )
        jobs = runtime.cron.list_jobs()
    finally:
        await runtime.stop()
    assert (first, second) == ("first answer", "second answer")
    body = scripted_server.chat_requests()[-1].body
    assert body["messages"][0]["role"] == "system"
    contents = [m.get("content") for m in body["messages"]]
    assert any(isinstance(c, str) and c.endswith("hello") for c in contents)
    assert {"dream", "heartbeat"} <= {job.id for job in jobs}
    saved = runtime.sessions.path_for(KEY).read_text().splitlines()  # adopted, or new
    assert json.loads(saved[-1]) == {**json.loads(saved[-1]), "content": "second answer"}
