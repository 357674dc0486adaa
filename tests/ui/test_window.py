"""The application window as a person starts it: `nanobot-desktop` with no arguments."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from tests.conftest import CLI, cli_env
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.waiting import wait_for

# Modules that must not load before the first paint (DESIGN §4: litellm costs seconds; pydantic
# ≈0.2 s). (asyncio is not listed: the CLI parser's cron module imports it.)
HEAVY = (
    "litellm",
    "desktop.core.agent",
    "desktop.core.providers",
    "desktop.core.assembly",
    "desktop.core.config.loader",
    "desktop.core.config.schema",
    "pydantic",
    "qasync",
    "keyring",
    "desktop.ui.shell",
    "desktop.ui.startup",
    # Math in answers: ziamath costs ≈0.4 s and ≈26 MB; loaded with the first "$".
    "ziamath",
    "mdit_py_plugins",
    "desktop.ui.chat.math_render",
    "desktop.ui.chat.context_dialog",
)


def test_main_window_title(qtbot: QtBot) -> None:
    """The window's title names nanobot and it shows at a comfortable size."""
    window = build_main_window()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert "nanobot" in window.windowTitle()
    area = window.screen().availableGeometry()
    assert window.width() >= min(760, area.width()) and area.contains(window.geometry())
    window.allow_close()


def _launch(home: Path, **extra: str) -> subprocess.Popen[str]:
    env = cli_env(
        home,
        QT_QPA_PLATFORM="offscreen",
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        **extra,
    )
    return subprocess.Popen(
        [CLI], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_startup(home: Path, process: subprocess.Popen[str]) -> None:
    """Until the app's start-up has run to its end: with no key set up (these tests), the
    shell logs that the agent did not start."""
    log = home / ".nanobot" / "logs" / "nanobot-desktop.log"

    def done() -> bool:
        assert process.poll() is None, process.communicate()
        return log.exists() and "agent not started" in log.read_text(errors="replace")

    wait_for(done, 60, "the start-up to finish")


def test_no_arguments_opens_the_window(isolated_env: Path, tmp_path: Path) -> None:
    """`nanobot-desktop` with no arguments runs the GUI until interrupted, then exits cleanly."""
    env = cli_env(isolated_env, QT_QPA_PLATFORM="offscreen")
    process = subprocess.Popen(
        [CLI], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for_startup(isolated_env, process)
        assert process.poll() is None, process.communicate()
        process.send_signal(2)  # Ctrl-C
        _, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err


def test_window_paints_before_heavy_imports(isolated_env: Path) -> None:
    """At the first paint neither litellm, the agent, the config schema nor pydantic is loaded."""
    process = _launch(isolated_env, NANOBOT_DESKTOP_BENCH="modules")
    try:
        assert process.stdout is not None
        painted = process.stdout.readline()
        modules = process.stdout.readline()
        assert painted.startswith("first-paint "), painted
        assert modules.startswith("first-paint-modules "), modules
        loaded = set(modules.split(" ", 1)[1].strip().split(","))
        assert "PySide6.QtWidgets" in loaded
        early = sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY))
        assert early == []
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err


def test_sigterm_quits_cleanly_and_saves_geometry(isolated_env: Path) -> None:
    """SIGTERM (logout, system shutdown) runs the same clean shutdown: exit 0, prefs written."""
    process = _launch(isolated_env, NANOBOT_DESKTOP_BENCH="1")
    try:
        assert process.stdout is not None and process.stdout.readline().startswith("first-paint")
        _wait_for_startup(isolated_env, process)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    prefs = json.loads((isolated_env / ".nanobot" / "desktop.json").read_text())
    assert prefs["windowGeometry"]


@pytest.mark.parametrize(
    ("content", "logged"),
    [
        ('{"agents": ', "cannot be used"),
        # A field of the wrong type is not fatal: its default applies, with a warning.
        ('{"agents": {"defaults": {"maxToolIterations": "many"}}}', "the default is used"),
    ],
)
def test_broken_config_is_a_message_not_a_crash(
    isolated_env: Path, content: str, logged: str
) -> None:
    """A config that cannot be used keeps the window up (the message is logged and shown)."""
    config = isolated_env / ".nanobot" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(content)
    process = _launch(isolated_env)
    try:
        log = isolated_env / ".nanobot" / "logs" / "nanobot-desktop.log"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (log.exists() and logged in log.read_text()):
            time.sleep(0.1)
        assert logged in log.read_text()
        time.sleep(0.5)  # the test: the window stays up after the message
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert config.read_text() == content  # never rewritten


def test_ready_and_idle_without_litellm(isolated_env: Path) -> None:
    """A usable config: the agent gets ready, and the app then waits, without LiteLLM in memory
    (≈200 MB; it loaded 5 s after ready to warm up, and for the context-window table). It loads
    for the first model call, or when the person starts typing."""
    with ScriptedOpenAIServer() as server:  # knows no context window: the table would be asked
        config = isolated_env / ".nanobot" / "config.json"
        config.parent.mkdir(parents=True)
        config.write_text(
            json.dumps(
                {
                    "agents": {
                        "defaults": {
                            "model": "scripted-model",
                            "provider": "custom",
                            "workspace": str(isolated_env / "ws"),
                        }
                    },
                    "providers": {"custom": {"apiBase": server.url, "apiKey": "sk-test"}},
                }
            )
        )
        process = _launch(isolated_env, NANOBOT_DESKTOP_BENCH="modules")
        try:
            assert process.stdout is not None
            lines = {}
            while "agent-ready-modules" not in lines:
                line = process.stdout.readline()
                assert line, process.communicate(timeout=30)
                name, _, rest = line.strip().partition(" ")
                lines[name] = rest
            assert "litellm" not in lines["agent-ready-modules"].split(",")
            # The context-window probe asked the server (which knew nothing) ...
            wait_for(
                lambda: any(r.path.endswith("/models") for r in server.requests),
                30,
                "the context-window probe",
            )
            # ... and an absence can only be watched over a span: past the old warm-up (5 s
            # after ready; the probe came after ready, so this span ends a second past it),
            # nothing may load LiteLLM while the app waits.
            time.sleep(6)
        finally:
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    exit_modules = next(
        line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("exit-modules ")
    )
    assert "litellm" not in exit_modules.strip().split(",")
    assert "openai" not in exit_modules.strip().split(",")
    # httpx's command-line tool (click, rich: ≈6 MB) stays out; pygments comes with the chat's
    # code highlighting, not here.
    assert {"click", "rich"}.isdisjoint(exit_modules.strip().split(","))
