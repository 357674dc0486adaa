"""The ``exec`` sandbox against real processes: environment, buses, keyring, death, normal use.

Each containment test has a control that runs the same attack with the sandbox off
(``tools.exec.sandbox = "none"``) and shows it succeeding there, so the test can fail.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import pytest

from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.sandbox import build_argv
from desktop.core.tools.shell import ExecTool
from tests.core.tools.exec_output import unframe
from tests.core.tools.sandbox_support import (
    PY,
    REPO,
    Scene,
    alive,
    kill_all,
    make_scene,
    pids_with,
    require_sandbox,
    scene_root,
    sleeper,
    wait_until,
)
from tests.typed import present
from tests.waiting import serving

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

SANDBOXED = {"sandbox": "bwrap"}  # required: a silent fallback would make these tests lie
PLAIN = {"sandbox": "none"}


@pytest.fixture
def scene(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    with scene_root() as root:
        yield make_scene(root, monkeypatch)


def _start_app(
    tmp_path: Path, scene: Scene, commands: list[str], exec_config: dict[str, Any], **env: str
) -> tuple[subprocess.Popen[bytes], Path]:
    """Start ``sandbox_app`` (launcher + app, both holding ``env``) on the scene."""
    state = tmp_path / f"state-{secrets.token_hex(4)}"
    state.mkdir()
    spec = {
        "state": str(state),
        "workspace": str(scene.ws),
        "config": str(scene.config),
        "exec": exec_config,
        "commands": commands,
        "launcher": True,
        "timeout": 600,
    }
    (state / "spec.json").write_text(json.dumps(spec))
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **env}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.core.tools.sandbox_app", str(state / "spec.json")],
        cwd=REPO,
        env=full_env,
    )
    return proc, state


def _results(proc: subprocess.Popen[bytes], state: Path) -> list[dict[str, Any]]:
    assert proc.wait(timeout=120) == 0
    return cast("list[dict[str, Any]]", json.loads((state / "results.json").read_text()))


# --- the app's environment ----------------------------------------------------------------------

ENVIRON_READS = [
    "cat /proc/$PPID/environ",
    "cat /proc/{app_pid}/environ",
    "cat /proc/{launcher_pid}/environ",
    "for f in /proc/[0-9]*/environ; do cat $f; done",
    (
        'p=$$; while [ "$p" -gt 1 ]; do cat /proc/$p/environ; '
        'p=$(sed -n "s/^PPid:\\t//p" /proc/$p/status); done'
    ),
    (
        f'{PY} -c \'import os\nfor p in os.listdir("/proc"):\n'
        f'    if p.isdigit():\n        print(open(f"/proc/{{p}}/environ", "rb").read())\''
    ),
    "grep -a -r SANDBOX_CANARY /proc/*/environ",
]


def test_app_environment_is_out_of_reach(tmp_path: Path, scene: Scene) -> None:
    """/proc of the app, its parent and every process: none shows the app's secrets."""
    require_sandbox()
    canary = "SANDBOX_CANARY_" + secrets.token_hex(8)
    key = "sk-envleak-" + secrets.token_hex(12)
    commands = [*ENVIRON_READS, "ls /proc", "kill -9 {app_pid} {launcher_pid}; echo alive"]
    proc, state = _start_app(
        tmp_path, scene, commands, SANDBOXED, SANDBOX_CANARY=canary, OPENAI_API_KEY=key
    )
    results = _results(proc, state)  # the app survived its own kill attempt
    for result in results:
        assert canary not in result["text"] and key not in result["text"], result
    assert unframe(results[-1]["text"]).endswith("alive\n[exit code: 0]")
    pids = [int(n) for n in results[-2]["text"].split() if n.isdigit()]
    assert pids and max(pids) < 10, f"the sandbox sees host processes: {pids}"


def test_control_without_sandbox_the_environment_leaks(tmp_path: Path, scene: Scene) -> None:
    """The same reads with the sandbox off find the secrets: the test above can fail."""
    canary = "SANDBOX_CANARY_" + secrets.token_hex(8)
    proc, state = _start_app(tmp_path, scene, ENVIRON_READS[1:3], PLAIN, SANDBOX_CANARY=canary)
    results = _results(proc, state)
    assert all(canary in r["text"] for r in results), results


# --- dying with the app ---------------------------------------------------------------------------


async def _kill_app_and_watch(
    tmp_path: Path, scene: Scene, command: str, config: dict[str, Any], token: str, count: int
) -> list[int]:
    """Run ``command`` in the app, wait for ``count`` sleepers, kill -9 the app; survivors."""
    proc, state = _start_app(tmp_path, scene, [command], config)
    try:
        started = await wait_until(
            lambda: len(pids_with(token, sleepers_only=True)) >= count, within=20
        )
        assert started, f"sleepers never started: {pids_with(token)}"
        app = int((state / "app.pid").read_text())
        os.kill(app, signal.SIGKILL)
        await wait_until(lambda: not alive(app))
        await wait_until(lambda: not pids_with(token), within=10)
        return pids_with(token)
    finally:
        kill_all(token)
        proc.kill()
        proc.wait(timeout=30)


async def test_kill_9_of_the_app_kills_every_sandboxed_process(
    tmp_path: Path, scene: Scene
) -> None:
    """Background, nohup, double-forked and setsid children all die with the app."""
    require_sandbox()
    token = "SBXKILL" + secrets.token_hex(4)
    command = (
        f"setsid {sleeper(token + '-a')} & nohup {sleeper(token + '-b')} >/dev/null 2>&1 & "
        f"( {sleeper(token + '-c')} & ) ; {sleeper(token + '-d')}"
    )
    survivors = await _kill_app_and_watch(tmp_path, scene, command, SANDBOXED, token, 4)
    assert survivors == [], f"still running after kill -9 of the app: {survivors}"


async def test_kill_9_of_the_app_kills_the_group_without_sandbox(
    tmp_path: Path, scene: Scene
) -> None:
    """Unsandboxed (sandbox off or unavailable): the process group dies with the app too.

    (A child that starts its own session with ``setsid`` escapes the group; only the
    sandbox's PID namespace catches those.)
    """
    token = "PLAINKILL" + secrets.token_hex(4)
    command = (
        f"nohup {sleeper(token + '-b')} >/dev/null 2>&1 & ( {sleeper(token + '-c')} & ) ; "
        f"{sleeper(token + '-d')}"
    )
    survivors = await _kill_app_and_watch(tmp_path, scene, command, PLAIN, token, 3)
    assert survivors == [], f"still running after kill -9 of the app: {survivors}"


async def test_background_processes_end_with_the_command(scene: Scene) -> None:
    require_sandbox()
    token = "SBXBG" + secrets.token_hex(4)
    tool = ExecTool(ExecToolConfig(**SANDBOXED))
    result = await tool.execute(scene.ctx(), command=f"{sleeper(token)} & echo started")
    try:
        assert unframe(result.text) == "started\n[exit code: 0]"
        assert await wait_until(lambda: not pids_with(token), within=5)
    finally:
        kill_all(token)


# --- session bus and keyring --------------------------------------------------------------------


@pytest.fixture
def private_bus(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A real dbus-daemon listening on a path outside /tmp or on an abstract socket."""
    daemon = shutil.which("dbus-daemon")
    if daemon is None or shutil.which("dbus-send") is None:
        pytest.skip("dbus-daemon / dbus-send not installed")
    folder = Path(tempfile_dir())
    if request.param == "path":
        address = f"unix:path={folder}/bus"
    else:
        address = f"unix:abstract=/nanobot-test-{secrets.token_hex(6)}"
    proc = subprocess.Popen(
        [daemon, "--session", "--nofork", "--print-address=1", f"--address={address}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        printed = proc.stdout.readline().strip()
        assert printed.startswith("unix:"), printed
        yield printed
    finally:
        proc.kill()
        proc.wait(timeout=10)
        present(proc.stdout).close()
        shutil.rmtree(folder, ignore_errors=True)


def tempfile_dir() -> str:
    """A fresh folder outside /tmp (the sandbox hides /tmp wholesale; this must not help)."""
    import tempfile

    return tempfile.mkdtemp(prefix="nanobot-bus-", dir="/var/tmp")


def _bus_commands(address: str) -> list[str]:
    quoted = address.replace("'", "")
    raw = address.split("=", 1)[1].split(",")[0]
    target = ("\\0" + raw) if address.startswith("unix:abstract=") else raw
    return [
        (
            f"dbus-send --bus='{quoted}' --print-reply --dest=org.freedesktop.DBus "
            "/org/freedesktop/DBus org.freedesktop.DBus.ListNames"
        ),
        (
            f"{PY} -c 'import socket; s = socket.socket(socket.AF_UNIX); "
            f's.connect(b"{target}".decode("unicode_escape")); print("CONNECTED")\''
        ),
    ]


@pytest.mark.parametrize("private_bus", ["path", "abstract"], indirect=True)
@pytest.mark.parametrize("announced", [True, False], ids=["in-env", "not-in-env"])
async def test_session_bus_is_unreachable(
    private_bus: str, announced: bool, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether or not the app's environment names the bus, a command cannot talk to it."""
    require_sandbox()
    if announced:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", private_bus)
    tool = ExecTool(ExecToolConfig(**SANDBOXED))
    for command in _bus_commands(private_bus):
        result = await tool.execute(scene.ctx(), command=command)
        assert "org.freedesktop.DBus" not in result.text and "CONNECTED" not in result.text
        assert "[exit code: 0]" not in result.text, result.text


@pytest.mark.parametrize("private_bus", ["path", "abstract"], indirect=True)
async def test_control_without_sandbox_the_bus_answers(private_bus: str, scene: Scene) -> None:
    tool = ExecTool(ExecToolConfig(**PLAIN))
    listing, connect = [
        await tool.execute(scene.ctx(), command=c) for c in _bus_commands(private_bus)
    ]
    assert "org.freedesktop.DBus" in listing.text, listing.text
    assert "CONNECTED" in connect.text, connect.text


@pytest.mark.keyring_real
@pytest.mark.parametrize("config", [SANDBOXED, PLAIN], ids=["sandboxed", "control"])
async def test_keyring_is_unreachable(config: dict[str, Any], scene: Scene) -> None:
    """A key in the real Secret Service, with the bus address handed to the command."""
    from desktop.core.config.secrets import SecretStore
    from tests.real_keyring import require_real_keyring

    require_real_keyring()
    if config is SANDBOXED:
        require_sandbox()
    service = f"nanobot-desktop-sandbox-{secrets.token_hex(6)}"
    key = "sk-keyring-" + secrets.token_hex(12)
    store = SecretStore(service, timeout=15)
    store.set("openai", key)
    try:
        tool = ExecTool(
            ExecToolConfig(
                **config, allowed_env_keys=["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]
            )
        )
        command = f'{PY} -c \'import keyring; print(keyring.get_password("{service}", "openai"))\''
        result = await tool.execute(scene.ctx(), command=command)
    finally:
        store.delete("openai")
    assert (key in result.text) is (config is PLAIN), result.text


# --- ordinary work still works ------------------------------------------------------------------


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello from loopback")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def loopback_server() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = serving(server)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def test_ordinary_commands_work(scene: Scene, loopback_server: int) -> None:
    require_sandbox()
    tool = ExecTool(ExecToolConfig(**SANDBOXED))
    ctx = scene.ctx()
    url = f"http://127.0.0.1:{loopback_server}/"

    async def run(command: str) -> str:
        result = await tool.execute(ctx, command=command)
        assert unframe(result.text).endswith("[exit code: 0]"), f"{command}: {unframe(result.text)}"
        return result.text

    assert "3.1" in await run(f"{PY} -c 'import sys; print(sys.version)'")
    assert "SOUL.md" in await run("ls -la")
    await run(
        "mkdir -p proj && cd proj && git init -q && echo hi > a.txt && git add a.txt && "
        "git -c user.name=t -c user.email=t@t commit -qm first && git log --oneline"
    )
    assert (scene.ws / "proj" / ".git").is_dir()
    assert "loopback" in await run(
        f"{PY} -c 'import urllib.request; print(urllib.request.urlopen(\"{url}\").read())'"
    )
    if shutil.which("curl"):
        assert "hello from loopback" in await run(f"curl -sS {url}")
    assert "ok" in await run("echo ok > out.txt && cat out.txt && git -C . status >/dev/null; :")
    assert (scene.ws / "out.txt").read_text() == "ok\n"
    private = Path(f"/tmp/nanobot-sandbox-{secrets.token_hex(6)}.txt")
    try:
        assert "tmp-ok" in await run(f"echo tmp-ok > {private} && cat {private}")
        assert not private.exists(), "the sandbox's /tmp is private"
    finally:
        private.unlink(missing_ok=True)


async def test_network_switch_cuts_the_network(scene: Scene, loopback_server: int) -> None:
    require_sandbox()
    tool = ExecTool(ExecToolConfig(**SANDBOXED, sandbox_network=False))
    url = f"http://127.0.0.1:{loopback_server}/"
    fetch = f"{PY} -c 'import urllib.request; print(urllib.request.urlopen(\"{url}\", timeout=5).read())'"
    outside = await tool.execute(scene.ctx(), command=fetch)
    assert "hello from loopback" not in outside.text and "[exit code: 0]" not in outside.text
    # Loopback inside the sandbox's own network namespace still works.
    inside = await tool.execute(
        scene.ctx(),
        command=f'{PY} -c \'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); '
        's.listen(); c = socket.create_connection(s.getsockname()); print("LOOPBACK-OK")\'',
    )
    assert "LOOPBACK-OK" in inside.text
    on = await ExecTool(ExecToolConfig(**SANDBOXED)).execute(scene.ctx(), command=fetch)
    assert "hello from loopback" in on.text


@pytest.mark.parametrize("private_bus", ["path", "abstract"], indirect=True)
def test_bus_is_blocked_without_the_filter(private_bus: str, scene: Scene) -> None:
    """Each layer on its own: with no seccomp filter, a bus named in the app's environment is
    still blocked (a path socket is covered; for an abstract one the network is cut)."""
    status = require_sandbox()
    connect = _bus_commands(private_bus)[1]

    def run(environ: dict[str, str]) -> str:
        argv = build_argv(
            connect,
            executable=str(status.executable),
            workspace=scene.ws,
            cwd=scene.ws,
            seccomp_fd=None,
            socket_filter=False,
            environ=environ,
        )
        done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=30)
        return done.stdout + done.stderr

    assert "CONNECTED" not in run({"DBUS_SESSION_BUS_ADDRESS": private_bus})
    assert "CONNECTED" in run({}), "without the cover (and no filter) the socket is reachable"
