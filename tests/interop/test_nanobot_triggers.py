"""Local triggers both ways against the real ``nanobot`` CLI (nanobot-ai 0.3.5): a trigger made
by ``/trigger`` in either program is fired by the other's ``trigger`` command, and the message
reaches the chat the trigger is bound to (one ``triggers/`` store in the shared workspace)."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

from desktop.core.session.location import storage_name
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, dump, jsonl, texts


def _trigger_id(reply: str) -> str:
    found = re.search(r"ID: (trg_[A-Z0-9]{8})", reply)
    assert found, reply
    return found.group(1)


def _session(shared: Shared, key: str) -> Path:
    workspace_id = (shared.workspace / ".nanobot" / "workspace-id").read_text().strip()
    return shared.home / ".nanobot" / "sessions" / workspace_id / storage_name(key)


def _store(shared: Shared) -> dict[str, dict[str, object]]:
    data = json.loads((shared.workspace / "triggers" / "triggers.json").read_text())
    return {t["id"]: t for t in data["triggers"]}


def test_trigger_made_by_nanobot_fires_in_ours(shared: Shared) -> None:
    """``/trigger deploy`` in nanobot's terminal chat; ``nanobot-desktop trigger`` delivers into
    that chat (no app running: our command runs the agent) and records it in nanobot's store."""
    made = shared.ok("nanobot", "agent", "-m", "/trigger deploy")
    tid = _trigger_id(made)
    assert not shared.server.chat_requests()

    shared.server.push(Reply("Deploy news received."))
    out = shared.ok("nanobot-desktop", "trigger", tid, "release 3.1 is live")
    assert f"Queued {tid} (tdl_" in out and "Deploy news received." in out
    user = texts(shared.last_messages(), "user")[-1]
    assert "Local trigger received: deploy\n\nrelease 3.1 is live" in user

    path = _session(shared, "cli:direct")
    lines = [x for x in jsonl(path) if x.get("_type") != "metadata"]
    assert [(x["role"], x["content"]) for x in lines[-2:]] == [
        ("user", "Local trigger received: deploy\n\nrelease 3.1 is live"),
        ("assistant", "Deploy news received."),
    ], dump(path)
    trigger = _store(shared)[tid]
    assert trigger["lastStatus"] == "ok" and trigger["sessionKey"] == "cli:direct"
    assert [r["status"] for r in trigger["runHistory"]] == ["ok"]  # type: ignore[attr-defined]


def test_trigger_made_by_us_is_fired_by_nanobot_and_delivered_by_our_gateway(
    shared: Shared,
) -> None:
    """``/trigger nightly`` in our terminal chat; ``nanobot trigger`` queues into our store
    (it reads our ``triggers.json``), and our running gateway delivers it to the chat."""
    made = shared.ok("nanobot-desktop", "agent", "--session", "cli:ops", "-m", "/trigger nightly")
    tid = _trigger_id(made)
    assert f'nanobot-desktop trigger {tid} "message"' in made

    gateway = shared.start("nanobot-desktop", "gateway")
    try:
        shared.server.push(Reply("Backup acknowledged."))
        queued = shared.ok("nanobot", "trigger", tid, "backup finished at 02:00")
        assert f"Queued {tid}" in queued
        path = _session(shared, "cli:ops")
        want = ("assistant", "Backup acknowledged.")
        deadline = time.monotonic() + 90
        while not (
            path.exists()
            and want in [(x.get("role"), x.get("content")) for x in jsonl(path) if "role" in x]
        ):
            assert gateway.poll() is None, gateway.communicate()
            assert time.monotonic() < deadline, "our gateway never delivered nanobot's message"
            time.sleep(0.2)
    finally:
        gateway.send_signal(signal.SIGINT)
        _out, err = gateway.communicate(timeout=60)
    assert gateway.returncode == 0, err
    user = texts(shared.last_messages(), "user")[-1]
    assert "Local trigger received: nightly\n\nbackup finished at 02:00" in user
    assert _store(shared)[tid]["lastStatus"] == "ok"
    assert not list((shared.workspace / "triggers" / "inbox").glob("*.json"))
