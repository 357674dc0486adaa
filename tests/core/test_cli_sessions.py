"""``nanobot-desktop sessions list|export`` as a user runs it (a subprocess of the script)."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.session.manager import SessionManager
from tests.conftest import custom_config
from tests.core.test_cli import run


def test_list_and_export(tmp_path: Path, isolated_env: Path) -> None:
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    sessions = SessionManager(tmp_path / "workspace", config_dir=config.parent)
    session = sessions.get_or_create("desktop:abc")
    session.add_message("user", "Plan a trip to Lisbon")
    session.add_message("assistant", "Day one: Alfama.")
    sessions.save(session)

    listed = run(["sessions", "list", "--config", str(config)], isolated_env)
    assert listed.returncode == 0, listed.stderr
    assert "desktop:abc" in listed.stdout and "Plan a trip to Lisbon" in listed.stdout

    md = run(["sessions", "export", "desktop:abc", "--config", str(config)], isolated_env)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# Plan a trip to Lisbon") and "Day one: Alfama." in md.stdout

    out = tmp_path / "chat.json"
    exported = run(
        [
            "sessions",
            "export",
            "desktop:abc",
            "--format",
            "json",
            "-o",
            str(out),
            "--config",
            str(config),
        ],
        isolated_env,
    )
    assert exported.returncode == 0, exported.stderr
    data = json.loads(out.read_text())
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]

    missing = run(["sessions", "export", "desktop:nope", "--config", str(config)], isolated_env)
    assert missing.returncode == 2 and "sessions list" in missing.stderr
