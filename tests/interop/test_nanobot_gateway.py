"""One gateway per config, whichever program started it: ours and nanobot 0.3.5 keep the
same process record (``~/.nanobot/run/gateway.json``), so each one's ``gateway status`` sees
the other's background gateway, refuses a second one, and its ``gateway stop`` ends it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
from collections.abc import Iterator

import pytest

from desktop.cli import gateway_process as proc
from tests.interop.conftest import Shared


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def gateway(shared: Shared) -> Iterator[proc.GatewayPaths]:
    """nanobot's gateway listens (WebSocket, health) on ``gateway.port``: a free one."""
    data = json.loads(shared.config.read_text())
    data["gateway"] = {"port": _free_port()}
    shared.config.write_text(json.dumps(data))
    paths = proc.GatewayPaths.resolve(None, None)
    assert paths.state == shared.home / ".nanobot" / "run" / "gateway.json"
    yield paths
    pid = (proc.read_state(paths) or {}).get("pid")
    if isinstance(pid, int) and proc.process_identity(pid) is not None:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def test_nanobot_sees_and_stops_our_background_gateway(
    shared: Shared, gateway: proc.GatewayPaths
) -> None:
    shared.ok("nanobot-desktop", "gateway", "--background")
    pid = proc.read_state(gateway)["pid"]  # type: ignore[index]
    status = shared.ok("nanobot", "gateway", "status")
    assert "Running: yes" in status and f"PID: {pid}" in status, status
    assert "Launch Mode: background" in status
    refused = shared.run("nanobot", "gateway", "--background")
    assert refused.returncode == 0 and "already running" in refused.stdout, refused.stdout
    assert proc.read_state(gateway)["pid"] == pid  # type: ignore[index]

    stopped = shared.ok("nanobot", "gateway", "stop")
    assert "Gateway stopped." in stopped
    assert proc.process_identity(pid) is None
    log = gateway.log.read_text()
    assert log.rstrip().endswith("stopped"), "ours ended cleanly on nanobot's SIGTERM"
    assert "Running: no" in shared.ok("nanobot-desktop", "gateway", "status")


def test_we_see_refuse_and_stop_nanobots_background_gateway(
    shared: Shared, gateway: proc.GatewayPaths
) -> None:
    shared.ok("nanobot", "gateway", "--background")
    pid = proc.read_state(gateway)["pid"]  # type: ignore[index]
    status = shared.ok("nanobot-desktop", "gateway", "status")
    assert f"Running: yes\nPID: {pid}\nProgram: nanobot\n" in status, status

    refused = shared.run("nanobot-desktop", "gateway", "--background")
    assert refused.returncode == 1 and "already running" in refused.stdout
    foreground = shared.run("nanobot-desktop", "gateway")
    assert foreground.returncode == 1 and f"pid {pid}" in foreground.stderr

    stopped = shared.ok("nanobot-desktop", "gateway", "stop")
    assert f"Gateway stopped (pid {pid})." in stopped
    assert proc.process_identity(pid) is None
    assert "Running: no" in shared.ok("nanobot", "gateway", "status")
