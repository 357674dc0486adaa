"""``nanobot-desktop plugins list|enable|disable`` and ``sessions restore-workspace``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.core.session.location import storage_name
from desktop.core.session.manager import SessionManager
from tests.conftest import custom_config
from tests.core.test_cli import run


def _channels(config: Path) -> dict[str, dict[str, object]]:
    data = json.loads(config.read_text())
    channels: dict[str, dict[str, object]] = data["channels"]
    return channels


def test_plugins_list_enable_disable(
    tmp_path: Path,
    isolated_env: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    monkeypatch.setitem(sys.modules, "lark_oapi", None)  # Feishu's SDK "not installed"

    assert main(["plugins", "list", "--config", str(config)]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    assert rows["Name"] == ["Type", "Installed", "Enabled"]
    assert rows["telegram"] == ["channel", "yes", "no"]
    assert rows["feishu"] == ["channel", "no", "no"]
    assert set(rows) - {"Name"} == {
        "telegram", "email", "matrix", "slack", "discord", "feishu", "dingtalk", "qq",
        "whatsapp", "mochat", "websocket", "signal", "napcat", "mattermost", "msteams", "wecom", "weixin",
    }  # fmt: skip

    assert main(["plugins", "enable", "feishu", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert f"Enabled channel 'feishu' in {config}" in out
    assert 'install it with: pip install "nanobot-desktop[feishu]"' in out
    assert _channels(config)["feishu"]["enabled"] is True

    assert main(["plugins", "enable", "telegram", "--config", str(config)]) == 0
    assert "not installed" not in capsys.readouterr().out
    assert main(["plugins", "list", "--config", str(config)]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    assert rows["telegram"] == ["channel", "yes", "yes"]

    assert main(["plugins", "disable", "telegram", "--config", str(config)]) == 0
    assert "Disabled channel 'telegram'" in capsys.readouterr().out
    assert _channels(config)["telegram"]["enabled"] is False
    assert _channels(config)["feishu"]["enabled"] is True

    before = config.read_bytes()
    assert main(["plugins", "enable", "nosuch", "--config", str(config)]) == 2
    assert "Unknown feature: nosuch. Available: dingtalk, discord" in capsys.readouterr().err
    assert config.read_bytes() == before


def test_sessions_restore_workspace(tmp_path: Path, isolated_env: Path) -> None:
    """Copies the id folder's sessions to ``<workspace>/sessions`` byte for byte; a second run
    finds them matching; a different file in the way is a conflict, never overwritten."""
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    workspace = tmp_path / "workspace"
    sessions = SessionManager(workspace, config_dir=config.parent)
    for key, text in (("desktop:abc", "Plan a trip"), ("telegram:42", "Buy oat milk")):
        session = sessions.get_or_create(key)
        session.add_message("user", text)
        sessions.save(session)
    legacy = workspace / "sessions"
    assert not legacy.exists()

    first = run(["sessions", "restore-workspace", "--config", str(config)], isolated_env)
    assert first.returncode == 0, first.stderr
    assert f"Restored 2 session file(s) to {legacy}; 0 already matched." in first.stdout
    for key in ("desktop:abc", "telegram:42"):
        name = storage_name(key)
        assert (legacy / name).read_bytes() == sessions.path_for(key).read_bytes()
        assert sessions.path_for(key).exists()  # the id folder keeps its files

    again = run(["sessions", "restore-workspace", "--config", str(config)], isolated_env)
    assert again.returncode == 0, again.stderr
    assert "Restored 0 session file(s)" in again.stdout and "2 already matched." in again.stdout

    edited = legacy / storage_name("telegram:42")
    edited.write_text(edited.read_text() + '{"role": "user", "content": "older"}\n')
    kept = edited.read_bytes()
    third = run(["sessions", "restore-workspace", "--config", str(config)], isolated_env)
    assert third.returncode == 1
    assert "1 already matched." in third.stdout
    assert "Rollback is incomplete" in third.stdout and f"- {edited}" in third.stdout
    assert edited.read_bytes() == kept
