"""One instance per config folder: the lock, the activation message, stale locks after a crash.

The last two tests run the real ``nanobot-desktop`` (offscreen) as subprocesses.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.ui.single_instance import LOCK_FILE_NAME, SingleInstance, server_name
from tests.conftest import CLI, cli_env, custom_config

LOG = Path(".nanobot") / "logs" / "nanobot-desktop.log"


def test_second_lock_fails_and_activation_reaches_the_first(tmp_path: Path, qtbot: QtBot) -> None:
    """The lock is exclusive; a second launch's 'activate' arrives as a signal; release frees it."""
    first = SingleInstance(tmp_path)
    assert first.acquire()
    assert first.listen()
    second = SingleInstance(tmp_path)
    try:
        assert not second.acquire()
        with qtbot.waitSignal(first.activateRequested, timeout=5000):
            assert second.activate_running(timeout_ms=3000)
    finally:
        first.release()
    third = SingleInstance(tmp_path)
    assert third.acquire()
    third.release()


def test_activation_without_a_listener_gives_up(tmp_path: Path) -> None:
    """A held lock whose owner does not answer: activate_running returns False after the timeout."""
    first = SingleInstance(tmp_path)
    assert first.acquire()
    try:
        started = time.monotonic()
        assert not SingleInstance(tmp_path).activate_running(timeout_ms=600)
        assert time.monotonic() - started < 5
    finally:
        first.release()


def test_names_differ_per_config_folder(tmp_path: Path) -> None:
    """Two config folders (two nanobot homes) can each run their own window."""
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")
    assert server_name(tmp_path / "a") == server_name(tmp_path / "a")


_HOLDER = """
import sys, time
from PySide6.QtCore import QCoreApplication
from desktop.ui.single_instance import SingleInstance
app = QCoreApplication([])
lock = SingleInstance(__import__("pathlib").Path(sys.argv[1]))
assert lock.acquire()
print("locked", flush=True)
time.sleep(60)  # holds the lock until the test kills it
"""


def test_stale_lock_after_kill_is_taken_over(tmp_path: Path) -> None:
    """A process holding the lock is SIGKILLed; the lock file stays; the next acquire succeeds."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    with holder:  # closes the pipe at the end
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
            assert not SingleInstance(tmp_path).acquire()
            holder.kill()
            holder.wait(10)
            assert (tmp_path / LOCK_FILE_NAME).exists()
            instance = SingleInstance(tmp_path)
            assert instance.acquire()
            instance.release()
        finally:
            if holder.poll() is None:
                holder.kill()


# -- the real application -----------------------------------------------------------------------
@pytest.fixture
def app_env(isolated_env: Path, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Environment for the app: offscreen, isolated HOME with a usable config, no keyring."""
    from tests.fakes.openai_server import ScriptedOpenAIServer

    with ScriptedOpenAIServer() as server:
        config = custom_config(tmp_path, server.url)
        nanobot = isolated_env / ".nanobot"
        nanobot.mkdir(parents=True, exist_ok=True)
        (nanobot / "config.json").write_text(config.read_text())
        yield cli_env(
            isolated_env,
            QT_QPA_PLATFORM="offscreen",
            PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        )


def _wait_for_log(
    home: Path, text: str, process: subprocess.Popen[str], timeout: float = 30
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        path = home / LOG
        if path.exists() and text in path.read_text(encoding="utf-8", errors="replace"):
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not logged within {timeout} s")


def _interrupt(process: subprocess.Popen[str]) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    return process.returncode, err


def test_second_launch_brings_the_first_to_front_and_exits(
    isolated_env: Path, app_env: dict[str, str]
) -> None:
    """The second `nanobot-desktop` exits 0 at once; the first logs the activation request."""
    first = subprocess.Popen(
        [CLI], env=app_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for_log(isolated_env, "system tray", first)
        second = subprocess.run(
            [CLI], check=False, env=app_env, capture_output=True, text=True, timeout=30
        )
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stdout
        _wait_for_log(isolated_env, "another launch asked for the window", first, timeout=10)
        assert first.poll() is None
        code, err = _interrupt(first)
        assert code == 0, err
        assert "Traceback" not in err
    finally:
        if first.poll() is None:
            first.kill()


def test_app_recovers_the_lock_after_kill_9(isolated_env: Path, app_env: dict[str, str]) -> None:
    """After SIGKILL the lock file remains; the next launch takes it over and runs normally."""
    crashed = subprocess.Popen(
        [CLI], env=app_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True
    )
    try:
        _wait_for_log(isolated_env, "system tray", crashed)
    finally:
        os.kill(crashed.pid, signal.SIGKILL)
        crashed.wait(10)
    assert (isolated_env / ".nanobot" / LOCK_FILE_NAME).exists()
    (isolated_env / LOG).unlink()
    again = subprocess.Popen(
        [CLI], env=app_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for_log(isolated_env, "system tray", again)
        time.sleep(0.5)  # the test: it stays up (a stale lock would make it exit now)
        assert again.poll() is None
        code, err = _interrupt(again)
        assert code == 0, err
        assert not (isolated_env / ".nanobot" / LOCK_FILE_NAME).exists()
    finally:
        if again.poll() is None:
            again.kill()
