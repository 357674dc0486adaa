"""``gateway --background|status|logs|stop|restart`` with real processes, and the systemd
user unit ``install-service`` writes, checked by ``systemd-analyze verify``.

The gateway runs against the scripted model server; ``agent -m`` handing its message to the
background gateway shows it is a working agent, not just a process."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.cli import gateway_process as proc
from tests.conftest import CLI, cli_env, custom_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import wait_for


def _run(home: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *args], capture_output=True, text=True, timeout=timeout, env=cli_env(home), check=False
    )  # fmt: skip


def _alive(pid: int) -> bool:
    return proc.process_identity(pid) is not None


@pytest.fixture
def record(tmp_path: Path) -> Iterator[proc.GatewayPaths]:
    """The paths of the test config's gateway; whatever still runs at the end is killed."""
    paths = proc.GatewayPaths.resolve(tmp_path / "config" / "config.json", None)
    yield paths
    pid = (proc.read_state(paths) or {}).get("pid")
    if isinstance(pid, int) and pid != os.getpid() and _alive(pid):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def test_background_start_status_refusal_restart_logs_and_stop(
    tmp_path: Path,
    isolated_env: Path,
    scripted_server: ScriptedOpenAIServer,
    record: proc.GatewayPaths,
) -> None:
    scripted_server.route = lambda body: Reply("Hello from the background gateway.")
    config = str(custom_config(tmp_path, scripted_server.url))
    # A stale record (a pid that now belongs to another process) must not block the start.
    record.state.parent.mkdir(parents=True)
    record.state.write_text(json.dumps({"pid": os.getpid(), "identity": "1:1"}))

    started = _run(isolated_env, "gateway", "--background", "--config", config)
    assert started.returncode == 0, (started.stdout, started.stderr)
    assert "Gateway started in the background." in started.stdout
    state = proc.read_state(record)
    assert state is not None and state["pid"] != os.getpid()
    pid = state["pid"]
    assert _alive(pid) and os.getpgid(pid) == pid, "detached: its own session"
    assert state["launch_mode"] == "background" and state["ready"] is True
    assert state["identity"] == proc.process_identity(pid)
    assert state["command"][-4:] == ["gateway", "--foreground", "--config", config]

    status = _run(isolated_env, "gateway", "status", "--config", config)
    assert f"Running: yes\nPID: {pid}\nProgram: nanobot-desktop" in status.stdout
    assert f"Logs: {record.log}" in status.stdout

    again = _run(isolated_env, "gateway", "--background", "--config", config)
    assert again.returncode == 1 and "already running" in again.stdout
    foreground = _run(isolated_env, "gateway", "--config", config)
    assert foreground.returncode == 1 and f"already runs for this config (pid {pid})" in (
        foreground.stderr
    )
    assert proc.read_state(record)["pid"] == pid  # type: ignore[index]  # unchanged

    answer = _run(isolated_env, "agent", "-m", "hi", "--config", config)
    assert "Hello from the background gateway." in answer.stdout, answer.stderr

    restarted = _run(isolated_env, "gateway", "restart", "--config", config)
    assert restarted.returncode == 0, (restarted.stdout, restarted.stderr)
    assert f"Gateway stopped (pid {pid})." in restarted.stdout
    assert not _alive(pid)
    new_pid = proc.read_state(record)["pid"]  # type: ignore[index]
    assert new_pid != pid and _alive(new_pid)

    logs = _run(isolated_env, "gateway", "logs", "--no-follow", "--config", config)
    text = logs.stdout
    assert text.count("background start") == 2 and text.count("running; Ctrl-C to stop") == 2
    assert "stopped" in text  # the first one ended cleanly on SIGTERM

    stopped = _run(isolated_env, "gateway", "stop", "--config", config)
    assert stopped.returncode == 0 and f"Gateway stopped (pid {new_pid})." in stopped.stdout
    assert not _alive(new_pid) and not record.state.exists()
    assert "Running: no" in _run(isolated_env, "gateway", "status", "--config", config).stdout
    again_stop = _run(isolated_env, "gateway", "stop", "--config", config)
    assert again_stop.returncode == 0 and "not running" in again_stop.stdout


def test_a_gateway_that_cannot_start_is_reported_with_its_log(
    tmp_path: Path, isolated_env: Path, record: proc.GatewayPaths
) -> None:
    config = tmp_path / "config" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"agents": {"defaults": {"model": "gpt-4o", "provider": "openai"}}}')
    result = _run(isolated_env, "gateway", "--background", "--config", str(config))
    assert result.returncode == 1
    assert "ended while starting" in result.stdout and "openai" in result.stdout.lower()
    assert not record.state.exists(), "no record of a gateway that is gone"


def test_a_stale_record_is_noticed_and_removed(tmp_path: Path) -> None:
    paths = proc.GatewayPaths.resolve(tmp_path / "config.json", None)
    ended = subprocess.Popen(["true"])
    ended.wait()
    proc.write_state(paths, {"pid": ended.pid, "identity": f"{ended.pid}:1"})
    status = proc.current_status(paths)
    assert not status.running and f"pid {ended.pid}" in status.note
    assert not paths.state.exists()
    # A live pid whose start time differs: another process got the number.
    proc.write_state(paths, {"pid": os.getpid(), "identity": f"{os.getpgid(0)}:1"})
    assert not proc.current_status(paths).running and not paths.state.exists()
    proc.write_state(paths, {"pid": os.getpid(), "identity": proc.process_identity(os.getpid())})
    assert proc.current_status(paths).running


def test_the_record_and_log_are_where_nanobot_keeps_them(
    tmp_path: Path, isolated_env: Path
) -> None:
    default = proc.GatewayPaths.resolve(None, None)
    assert default.state == isolated_env / ".nanobot" / "run" / "gateway.json"
    assert default.log == isolated_env / ".nanobot" / "logs" / "gateway.log"
    other = proc.GatewayPaths.resolve(tmp_path / "c.json", tmp_path / "ws")
    # nanobot 0.3.5: sha1("<workspace>|<config>")[:16], both absolute.
    import hashlib

    digest = hashlib.sha1(f"{tmp_path / 'ws'}|{tmp_path / 'c.json'}".encode()).hexdigest()[:16]
    assert other.state == tmp_path / "run" / f"gateway.{digest}.json"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_install_service_writes_a_unit_systemd_accepts(
    tmp_path: Path, isolated_env: Path, scripted_server: ScriptedOpenAIServer
) -> None:
    # A folder name with a space and systemd's specifier and variable signs: quoted, escaped.
    config = custom_config(tmp_path / "my 100% $HOME", scripted_server.url)
    result = _run(isolated_env, "gateway", "install-service", "--config", str(config))
    unit = isolated_env / ".config" / "systemd" / "user" / "nanobot-gateway.service"
    assert unit.exists(), (result.stdout, result.stderr)
    text = unit.read_text()
    assert "[Service]" in text and "--foreground" in text and "WantedBy=default.target" in text
    manager = subprocess.run(
        ["systemctl", "--user", "is-system-running"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if manager.stdout.strip() not in {"running", "degraded"}:
        # No user manager (this container): said clearly, and the file is still written.
        assert result.returncode == 1 and "no systemd user manager reachable" in result.stdout
        assert "systemctl --user enable --now nanobot-gateway.service" in result.stdout
    runtime = tmp_path / "xdg"
    runtime.mkdir(mode=0o700)
    verify = subprocess.run(
        ["systemd-analyze", "--user", "verify", str(unit)],
        capture_output=True, text=True, check=False,
        env={**cli_env(isolated_env), "XDG_RUNTIME_DIR": str(runtime)},
    )  # fmt: skip
    assert verify.returncode == 0 and verify.stderr.strip() == "", verify.stderr
    # What systemd runs: the arguments come back intact.
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert '"' + str(config).replace("%", "%%").replace("$", "$$") + '"' in exec_line

    dry = _run(isolated_env, "gateway", "uninstall-service", "--dry-run")
    assert dry.returncode == 0 and unit.exists()
    removed = _run(isolated_env, "gateway", "uninstall-service")
    assert f"removed {unit}" in removed.stdout and not unit.exists()


def test_install_service_keeps_nanobots_unit_aside(tmp_path: Path, isolated_env: Path) -> None:
    unit = isolated_env / ".config" / "systemd" / "user" / "nanobot-gateway.service"
    unit.parent.mkdir(parents=True)
    theirs = "[Service]\nExecStart=/usr/bin/python3 -m nanobot gateway --foreground\n"
    unit.write_text(theirs)
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    result = _run(isolated_env, "gateway", "install-service", "--no-start", "--no-enable",
                  "--config", str(config))  # fmt: skip
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert unit.with_name("nanobot-gateway.service.nanobot").read_text() == theirs
    assert "-m desktop gateway --foreground" in unit.read_text()


def test_logs_follows_new_lines_until_ctrl_c(isolated_env: Path) -> None:
    paths = proc.GatewayPaths.resolve(None, None)
    paths.log.parent.mkdir(parents=True)
    paths.log.write_text("old 1\nold 2\n")
    seen: list[str] = []
    with subprocess.Popen(
        [CLI, "gateway", "logs", "--tail", "1"], stdout=subprocess.PIPE, text=True,
        env=cli_env(isolated_env),
    ) as follower:  # fmt: skip

        def read() -> None:
            assert follower.stdout is not None
            seen.extend(follower.stdout)  # until the pipe closes

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            wait_for(lambda: seen == ["old 2\n"], what="the tail")
            with paths.log.open("a") as log:
                log.write("new line\n")
            wait_for(lambda: seen == ["old 2\n", "new line\n"], what="the followed line")
        finally:
            follower.send_signal(signal.SIGINT)
            assert follower.wait(timeout=30) == 130
            reader.join(timeout=30)
