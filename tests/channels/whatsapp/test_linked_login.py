"""``nanobot-desktop channels login whatsapp`` for the linked device: the CLI's login run with
neonize's real event types and a fake at its client boundary (the QR codes and the scan), and
the real CLI in a subprocess with the real neonize, offline (it cannot reach WhatsApp)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.cli.channel_login import _login
from desktop.core.config.loader import load_config
from tests.channels.whatsapp.conftest import until
from tests.channels.whatsapp.neonize_fake import FakeWhatsApp, install
from tests.conftest import REPO, cli_env, write_config


def config_path(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "nanobot" / "config.json",
        {"channels": {"whatsapp": {"enabled": False, "allowFrom": ["*"]}}},
    )


@pytest.mark.usefixtures("memory_keyring")
async def test_login_prints_each_qr_code_and_ends_when_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = FakeWhatsApp(linked=False)
    install(monkeypatch, world)
    config = load_config(config_path(tmp_path))
    login = asyncio.ensure_future(_login(config, "json", None))
    try:
        # neonize shows its first code once its connection runs (not when the handler is set)
        await until(lambda: world.clients and world.client.offered, what="the first QR code")
        await world.client.offer_qr("2@second-code")
        await world.client.scan()
        assert await login == 0
    finally:
        await asyncio.gather(login, return_exceptions=True)
    out, err = capsys.readouterr()
    assert [json.loads(line) for line in out.splitlines()] == [
        {"event": "qr", "qr": "2@first-code,abc,def"},
        {"event": "qr", "qr": "2@second-code"},
        {"event": "linked"},
    ]
    session = tmp_path / "nanobot" / "whatsapp-auth" / "neonize.db"
    assert f"session: {session}" in err and session.stat().st_size > 0
    assert world.client.task is not None and world.client.task.done(), "neonize stopped"


@pytest.mark.usefixtures("memory_keyring")
async def test_a_saved_session_needs_no_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install(monkeypatch, FakeWhatsApp(linked=True))
    assert await _login(load_config(config_path(tmp_path)), "text", None) == 0
    out, _ = capsys.readouterr()
    assert out.strip() == "WhatsApp is linked. (The saved session was accepted: no code needed.)"


def test_offline_the_real_cli_says_it_cannot_reach_whatsapp(
    tmp_path: Path, isolated_env: Path
) -> None:
    config = config_path(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "channels", "login", "--config", str(config), "--json"],
        capture_output=True, text=True, env=cli_env(isolated_env), cwd=REPO, timeout=180,
        check=False,
    )  # fmt: skip
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "cannot reach WhatsApp" in done.stderr and done.stdout == ""
    assert (tmp_path / "nanobot" / "whatsapp-auth" / "neonize.db").is_file(), "neonize's own"
