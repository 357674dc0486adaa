"""The frozen-app tests wait for scripts/test.sh's background build (tests/packaging/frozen.py)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.packaging import frozen


def _build_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "build"
    folder.mkdir()
    (folder / "log").write_text("step one\nPyInstaller: the last line\n")
    monkeypatch.setenv(frozen.BUILD_DIR_ENV, str(folder))
    return folder


def test_no_background_build_means_no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(frozen.BUILD_DIR_ENV, raising=False)
    started = time.monotonic()
    frozen.wait_for_build(timeout=5)
    assert time.monotonic() - started < 1


@pytest.fixture
def running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The folder of a build that runs: a process group of its own, alive until the test ends."""
    folder = _build_dir(tmp_path, monkeypatch)
    build = subprocess.Popen(["sleep", "30"], start_new_session=True)
    (folder / "pid").write_text(str(build.pid))
    try:
        yield folder
    finally:
        build.kill()
        build.wait()


def test_the_tests_wait_until_the_build_says_it_succeeded(running: Path) -> None:
    timer = threading.Timer(1.5, lambda: (running / "status").write_text("0\n"))
    timer.start()
    started = time.monotonic()
    frozen.wait_for_build(timeout=20)
    assert time.monotonic() - started >= 1.4
    timer.join()


def test_a_failed_build_fails_the_tests_with_the_end_of_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _build_dir(tmp_path, monkeypatch)
    (folder / "status").write_text("2\n")
    with pytest.raises(pytest.fail.Exception, match="exit status 2") as failure:
        frozen.wait_for_build(timeout=5)
    assert "PyInstaller: the last line" in str(failure.value)


def test_a_build_gone_without_a_status_fails_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _build_dir(tmp_path, monkeypatch)
    gone = subprocess.Popen(["true"], start_new_session=True)
    gone.wait()
    (folder / "pid").write_text(str(gone.pid))
    started = time.monotonic()
    with pytest.raises(pytest.fail.Exception, match="ended without a status"):
        frozen.wait_for_build(timeout=20)
    assert time.monotonic() - started < 5


def test_a_build_that_outlasts_the_wait_fails_the_tests(running: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match="still runs after 1 s"):
        frozen.wait_for_build(timeout=1)
