"""What the window costs while it waits: idle RSS, RSS after a chat, idle CPU and wake-ups.

The app starts from this checkout as a person starts it (``nanobot-desktop``, a fresh HOME
whose ``custom`` provider points at the scripted OpenAI-compatible server of the tests, an
instant streamed answer), under Xvfb when it is installed, else offscreen (see
bench/startup.py). Once its agent is ready (the agent socket exists), two floors start beside
it and are measured over the same wall-clock windows: a bare PySide6 window (what any Qt window
costs) and nanobot 0.3.5's ``nanobot gateway`` (the same agent without a window, in the
reference implementation: .cache/nanobot-venv, made by scripts/setup.sh --test; skipped when
missing) on a config of its own pointing at the same server.

Figures, each beside its goal (issue #26) and the floor:

- **RSS idle**: VmRSS ``--idle`` s (60) after the first paint, no chat yet. Goal ≤ 150 MB.
- **Idle CPU**: CPU seconds (user + system, all threads) and wake-ups (context switches of
  every thread, voluntary and not) over the last ``--window`` s (30) of that idle wait.
  Goal ~0: no timer ticks while nothing happens. Threads that end inside the window take their
  switches with them, so the wake-up count is a lower bound; the CPU time is not.
- **RSS after chat**: ``--turns`` (20) turns over the agent socket (what ``nanobot-desktop
  agent -m`` does while the window runs), then ``--settle`` s (10) and another idle window;
  VmRSS at its end. Goal ≤ 220 MB. The CPU and wake-ups of that second window are printed too.
- **First answer**: the first send after the idle wait, the way a person sends it: typed into
  the window's composer with real key presses (xdotool on the bench's X display; the window
  loads the provider's client while the person types), then Enter; measured from the Enter key
  to the model server receiving the request (what the app adds before the server can answer;
  the scripted server then answers at once). Goal ≤ 100 ms. Needs an X display (``xvfb``/
  ``xcb``) and xdotool; ``--socket-first`` leaves it out, so the first turn over the agent
  socket is the cold one.
- **Over the socket**: from the send to the first streamed piece of the answer, for the first
  turn and the median, over the agent socket (what ``nanobot-desktop agent -m`` does while the
  window runs, and how a chat channel's message arrives: nobody typed, so the first one loads
  the provider's client now unless the typed turn above loaded it).

Nothing is asserted: it prints figures. ``--quick`` shortens every wait (to iterate).

Usage: python bench/idle.py [--quick] [--turns 20] [--idle 60] [--window 30] [--settle 10]
       [--platform xcb|xvfb|offscreen] [--nanobot .cache/nanobot-venv/bin/nanobot] [--socket-first]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import startup  # noqa: E402
from desktop.core.ipc.client import AgentConnection, socket_path  # noqa: E402
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer  # noqa: E402

IDLE_RSS_GOAL_MB = 150.0
CHAT_RSS_GOAL_MB = 220.0
FIRST_TOKEN_GOAL_MS = 100.0
NANOBOT = REPO / ".cache" / "nanobot-venv" / "bin" / "nanobot"
ANSWER = "Sure, here is a short answer to that."
TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Usage:
    """A process's CPU seconds so far and its threads' context switches by thread id."""

    cpu_s: float
    switches: dict[int, int]


def usage(pid: int) -> Usage:
    """Read ``/proc/<pid>/stat`` (utime + stime) and every thread's ``status``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)
    switches: dict[int, int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        total = 0
        for line in text.splitlines():
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                total += int(line.split()[1])
        switches[int(task.name)] = total
    return Usage(cpu, switches)


@dataclass
class Window:
    """CPU seconds and wake-ups over an idle window of ``seconds``."""

    seconds: float
    cpu_s: float
    wakeups: int

    def text(self) -> str:
        return (
            f"CPU {self.cpu_s * 1000:6.0f} ms, wake-ups {self.wakeups:6d} "
            f"({self.wakeups / self.seconds:6.1f}/s)"
        )


def between(before: Usage, after: Usage, seconds: float) -> Window:
    """The CPU and wake-ups from ``before`` to ``after`` (new threads count from zero)."""
    wakeups = sum(n - before.switches.get(tid, 0) for tid, n in after.switches.items())
    return Window(seconds, after.cpu_s - before.cpu_s, wakeups)


def idle_window(pids: list[int], seconds: float) -> list[Window]:
    """Sleep ``seconds``; each process's CPU time and wake-ups meanwhile."""
    before = [usage(pid) for pid in pids]
    time.sleep(seconds)
    return [between(b, usage(pid), seconds) for b, pid in zip(before, pids, strict=True)]


class Child:
    """A spawned GUI process whose stdout is read in a thread (so it never blocks on a pipe)."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        self.painted = threading.Event()
        self.paint_time = 0.0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("first-paint ") and not self.painted.is_set():
                self.paint_time = float(line.split()[1])
                self.painted.set()

    def wait_painted(self, timeout: float = 60.0) -> float:
        """The epoch of the first paint."""
        if not self.painted.wait(timeout):
            raise SystemExit(f"no first paint in {timeout:g} s (exit {self.process.poll()})")
        return self.paint_time

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        """SIGINT (the app's clean quit), then kill after 20 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def make_home(root: Path, api_base: str) -> Path:
    """A HOME whose config points the ``custom`` provider at ``api_base``."""
    home = Path(tempfile.mkdtemp(prefix="home-", dir=root))
    config = {
        "agents": {
            "defaults": {
                "model": "scripted-model",
                "provider": "custom",
                "workspace": str(home / "workspace"),
            }
        },
        "providers": {"custom": {"apiBase": api_base, "apiKey": "sk-bench"}},
    }
    (home / ".nanobot").mkdir()
    (home / ".nanobot" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return home


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Nanobot:
    """``nanobot gateway`` of nanobot 0.3.5 in its own HOME, on free ports (its health endpoint
    and its always-on WebSocket channel), its model at ``api_base``."""

    def __init__(self, program: Path, root: Path, api_base: str, env: dict[str, str]) -> None:
        home = make_home(root, api_base)
        config_path = home / ".nanobot" / "config.json"
        config = json.loads(config_path.read_text(encoding="utf-8"))
        config["channels"] = {"websocket": {"port": free_port()}}
        config_path.write_text(json.dumps(config), encoding="utf-8")
        self.port = free_port()
        clean = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        self.process = subprocess.Popen(
            [str(program), "gateway", "--foreground", "--port", str(self.port)],
            env=dict(clean, HOME=str(home)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Until its health endpoint answers (its agent loop and channels have started)."""
        deadline = time.monotonic() + timeout
        url = f"http://127.0.0.1:{self.port}/health"
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"nanobot gateway exited ({self.process.returncode})")
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"nanobot gateway was not ready in {timeout:g} s")
            time.sleep(0.1)

    def stop(self) -> None:
        """SIGINT, then kill after 20 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def wait_for_socket(child: Child, path: Path, timeout: float = 120.0) -> float:
    """Wait until the app's agent serves ``path``; the epoch it appeared."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if child.process.poll() is not None:
            raise SystemExit(f"the app exited ({child.process.returncode}) before its agent ran")
        if time.monotonic() > deadline:
            raise SystemExit(f"the agent socket did not appear in {timeout:g} s")
        time.sleep(0.05)
    return time.time()


async def chat(path: Path, turns: int) -> tuple[list[float], list[float]]:
    """``turns`` turns in one session over the agent socket; seconds per turn and from the
    send to the first streamed piece of the answer (``text_delta``)."""
    times: list[float] = []
    first_tokens: list[float] = []
    for i in range(turns):
        connection = await AgentConnection.open(path)
        if connection is None:
            raise SystemExit("the agent socket does not answer")
        first: list[float] = []

        def on_event(event: dict[str, Any], first: list[float] = first) -> None:
            if event.get("event") == "text_delta" and not first:
                first.append(time.perf_counter())

        try:
            start = time.perf_counter()
            done = await connection.turn(
                "bench:idle", f"Question {i + 1}: tell me something short.", on_event
            )
            times.append(time.perf_counter() - start)
            first_tokens.append((first[0] if first else time.perf_counter()) - start)
        finally:
            await connection.close()
        if done.get("status") != "finished":
            raise SystemExit(f"turn {i + 1} ended {done.get('status')}: {done.get('message')}")
    return times, first_tokens


def typed_first_send(pid: int, env: dict[str, str], server: ScriptedOpenAIServer) -> float | None:
    """Type a question into the app's window and press Enter (real key presses through the X
    server); seconds from the Enter key to the model server receiving the request. ``None``
    without an X display or xdotool."""
    xdotool = shutil.which("xdotool")
    if xdotool is None or env.get("QT_QPA_PLATFORM") != "xcb":
        return None

    def run(*args: str) -> str:
        done = subprocess.run(
            [xdotool, *args], env=env, capture_output=True, text=True, timeout=60, check=True
        )
        return done.stdout

    window = run("search", "--sync", "--onlyvisible", "--pid", str(pid)).split()[0]
    run("windowfocus", "--sync", window)
    run("type", "--delay", "80", "What is a short answer?")  # ≈2 s: a quick typist
    before = len(server.chat_requests())
    start = time.monotonic()
    run("key", "Return")
    deadline = start + 60
    while len(server.chat_requests()) == before:
        if time.monotonic() > deadline:
            raise SystemExit("the typed question reached no model request in 60 s")
        time.sleep(0.002)
    received = server.chat_requests()[before].at
    time.sleep(2)  # the answer streams and the turn ends before the socket turns start
    return received - start


def median(values: list[float]) -> float:
    return statistics.median(values)


def verdict(value: float, goal: float) -> str:
    return "OK" if value <= goal else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="idle 20 s, window 10 s, settle 3 s")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--idle", type=float, help="seconds after the first paint (60)")
    parser.add_argument("--window", type=float, help="seconds of each idle window (30)")
    parser.add_argument("--settle", type=float, help="seconds after the last turn (10)")
    parser.add_argument("--platform", choices=["xcb", "xvfb", "offscreen"], default=None)
    parser.add_argument("--nanobot", type=Path, default=NANOBOT, help="nanobot 0.3.5's program")
    parser.add_argument(
        "--socket-first",
        action="store_true",
        help="no typed first send: the first turn over the agent socket is the cold one",
    )
    args = parser.parse_args()
    idle = args.idle or (20.0 if args.quick else 60.0)
    window = min(args.window or (10.0 if args.quick else 30.0), idle)
    settle = args.settle if args.settle is not None else (3.0 if args.quick else 10.0)

    root = Path(tempfile.mkdtemp(prefix="nanobot-bench-idle-"))
    app = bare = theirs = None
    try:
        with (
            ScriptedOpenAIServer(default=Reply(ANSWER)) as server,
            startup.display(args.platform) as env,
        ):
            home = make_home(root, server.url)
            base = dict(
                env,
                HOME=str(home),
                PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                NANOBOT_DESKTOP_BENCH="1",
                # The code of this checkout, even when the installed script points elsewhere.
                PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
            )
            base.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)  # as a person starts it
            spawned = time.time()
            app = Child(startup.app_command(), base)
            painted = app.wait_painted()
            sock = socket_path(home / ".nanobot")
            ready = wait_for_socket(app, sock)
            bare = Child([sys.executable, "-c", startup.BARE], base)
            if args.nanobot.exists():
                theirs = Nanobot(args.nanobot, root, server.url, base)
            bare.wait_painted()
            if theirs is not None:
                theirs.wait_ready()
            pids = {"app": app.pid, "bare": bare.pid}
            if theirs is not None:
                pids["nanobot"] = theirs.pid
            time.sleep(max(0.0, painted + idle - window - time.time()))
            before = dict(zip(pids, idle_window(list(pids.values()), window), strict=True))
            rss_before = {name: startup.rss_mb(pid) for name, pid in pids.items()}

            typed = None if args.socket_first else typed_first_send(app.pid, base, server)
            turn_times, first_tokens = (
                asyncio.run(chat(sock, args.turns)) if args.turns else ([], [])
            )
            time.sleep(settle)
            after = dict(zip(pids, idle_window(list(pids.values()), window), strict=True))
            rss_after = {name: startup.rss_mb(pid) for name, pid in pids.items()}
            requests = len(server.chat_requests())
            platform = env.get("QT_QPA_PLATFORM")
    finally:
        for child in (theirs, bare, app):
            if child is not None:
                child.stop()
        shutil.rmtree(root, ignore_errors=True)

    def floors(rss: dict[str, float]) -> str:
        text = f"floors: bare window {rss['bare']:.0f} MB"
        if "nanobot" in rss:
            text += f", nanobot 0.3.5 gateway {rss['nanobot']:.0f} MB"
        else:
            text += f", nanobot 0.3.5 not found ({args.nanobot})"
        return text

    def idle_lines(label: str, windows: dict[str, Window]) -> None:
        print(f"{label:<31}: app     {windows['app'].text()}   goal ~0")
        print(f"{'':<31}  bare    {windows['bare'].text()}")
        if "nanobot" in windows:
            print(f"{'':<31}  nanobot {windows['nanobot'].text()}")

    print(f"platform: {platform}; app from {REPO}")
    print(
        f"first paint {(painted - spawned) * 1000:.0f} ms after spawn; "
        f"agent ready (socket) {(ready - painted) * 1000:.0f} ms after the paint"
    )
    idle_rss = rss_before["app"]
    print(
        f"{f'RSS {idle:g} s after paint, no chat':<31}: app {idle_rss:5.0f} MB   goal <= "
        f"{IDLE_RSS_GOAL_MB:.0f} MB {verdict(idle_rss, IDLE_RSS_GOAL_MB):6}  {floors(rss_before)}"
    )
    idle_lines(f"idle {window:g} s before that", before)
    if typed is not None:
        print(
            f"{'typed send: Enter to request':<31}: {typed * 1000:.0f} ms   goal <= "
            f"{FIRST_TOKEN_GOAL_MS:.0f} ms over the server's own latency (~0 here) when idle "
            f"{verdict(typed * 1000, FIRST_TOKEN_GOAL_MS)}"
        )
    elif not args.socket_first:
        print("typed send: not measured (needs an X display and xdotool)")
    if turn_times:
        print(
            f"{len(turn_times)} turns ({requests} model requests): "
            f"median {median(turn_times) * 1000:.0f} ms, first {turn_times[0] * 1000:.0f} ms"
        )
        print(
            f"{'socket: send to first token':<31}: first turn {first_tokens[0] * 1000:.0f} ms"
            f"{' (after the typed send)' if typed is not None else ' (cold)'}, "
            f"median {median(first_tokens) * 1000:.0f} ms"
        )
    chat_rss = rss_after["app"]
    print(
        f"{f'RSS after {len(turn_times)} turns + idle':<31}: app {chat_rss:5.0f} MB   goal <= "
        f"{CHAT_RSS_GOAL_MB:.0f} MB {verdict(chat_rss, CHAT_RSS_GOAL_MB):6}  "
        f"{floors(rss_after)} (no chat)"
    )
    idle_lines(f"idle {window:g} s after the turns", after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
