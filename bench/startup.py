"""Start-up time and memory of the window, beside a bare QMainWindow started the same way.

Each run is a fresh subprocess with its own HOME (a config that points the ``custom``
provider at a closed local port, so the agent loads without a network or a key). Time is
measured from just before the process is spawned to the child's report of its first
finished paint of the main window (``first-paint <epoch>`` on stdout). Memory is VmRSS from
``/proc/<pid>/status`` 3 s after that paint. Without ``$DISPLAY`` the bench starts ``Xvfb``
when it is installed, else it uses the offscreen platform.

Targets: median time to first window ≤ 0.5 s and ≤ 4× the bare window; RSS ≤ 200 MB.

Usage: python bench/startup.py [--runs 5] [--rss-after 3] [--late-rss 15] [--platform xcb|offscreen]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIME_TARGET_S = 0.5
RATIO_TARGET = 4.0
RSS_TARGET_MB = 200.0

BARE = """
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv)
class Window(QMainWindow):
    painted = False
    def paintEvent(self, event):
        super().paintEvent(event)
        if not self.painted:
            self.painted = True
            QTimer.singleShot(0, lambda: print(f"first-paint {time.time():.6f}", flush=True))
window = Window()
window.setWindowTitle("bare")
window.resize(1100, 720)
window.show()
app.exec()
"""


def app_command() -> list[str]:
    """The installed ``nanobot-desktop`` script beside this interpreter, else ``-m desktop``."""
    script = Path(sys.executable).parent / "nanobot-desktop"
    return [str(script)] if script.exists() else [sys.executable, "-m", "desktop"]


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` in MB (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def make_home(root: Path) -> Path:
    home = Path(tempfile.mkdtemp(prefix="home-", dir=root))
    config = {
        "agents": {
            "defaults": {
                "model": "bench-model",
                "provider": "custom",
                "workspace": str(home / "workspace"),
            }
        },
        "providers": {"custom": {"apiBase": "http://127.0.0.1:9/v1"}},
    }
    (home / ".nanobot").mkdir()
    (home / ".nanobot" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return home


def run_once(
    command: list[str], env: dict[str, str], *, rss_after: float, late_rss: float = 0.0
) -> tuple[float, float, float | None]:
    """Spawn, wait for the first paint, sample RSS; returns (seconds, rss_mb, late_rss_mb)."""
    start = time.time()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        painted = None
        for line in process.stdout:
            if line.startswith("first-paint "):
                painted = float(line.split()[1])
                break
        if painted is None:
            raise RuntimeError(f"{command[0]} exited ({process.wait()}) without painting")
        time.sleep(max(0.0, painted + rss_after - time.time()))
        rss = rss_mb(process.pid)
        late = None
        if late_rss:
            time.sleep(max(0.0, painted + late_rss - time.time()))
            late = rss_mb(process.pid)
        return painted - start, rss, late
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def compile_checkout() -> None:
    """Write the checkout's bytecode, as installing a package does.

    An installed app (pip, the frozen bundle) starts from compiled bytecode; a checkout run
    with ``PYTHONDONTWRITEBYTECODE`` set (scripts/test.sh sets it) compiles every module it
    imports at every start, ≈0.5–1 s that no user pays. The children of the benches run
    without that variable, and this writes what they would otherwise compile on first import.
    """
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "desktop")],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        stdout=subprocess.DEVNULL,
    )


@contextlib.contextmanager
def display(platform: str | None) -> Iterator[dict[str, str]]:
    """Environment for the children: the current display, a fresh Xvfb, or offscreen."""
    env = {
        k: v
        for k, v in os.environ.items()
        if (not k.startswith("NANOBOT_") or k.startswith("NANOBOT_DESKTOP_"))
        and k != "PYTHONDONTWRITEBYTECODE"
    }
    compile_checkout()
    if platform == "offscreen" or (not env.get("DISPLAY") and not shutil.which("Xvfb")):
        env["QT_QPA_PLATFORM"] = "offscreen"
        yield env
        return
    if env.get("DISPLAY") and platform != "xvfb":
        env["QT_QPA_PLATFORM"] = "xcb"
        yield env
        return
    read_fd, write_fd = os.pipe()  # -displayfd: Xvfb picks a free display and reports it
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as reader:
            ready, _, _ = select.select([reader], [], [], 20)
            number = reader.readline().strip() if ready else ""
        if not number:
            raise RuntimeError("Xvfb did not start")
        env.update(DISPLAY=f":{number}", QT_QPA_PLATFORM="xcb")
        yield env
    finally:
        xvfb.terminate()
        xvfb.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--rss-after", type=float, default=3.0, help="seconds after the first paint"
    )
    parser.add_argument(
        "--late-rss",
        type=float,
        default=15.0,
        help="also sample the app's RSS this long after the paint (0: skip)",
    )
    parser.add_argument("--platform", choices=["xcb", "xvfb", "offscreen"], default=None)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="nanobot-bench-"))
    try:
        with display(args.platform) as env:
            base = dict(
                env,
                LITELLM_LOCAL_MODEL_COST_MAP="True",
                PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                NANOBOT_DESKTOP_BENCH="1",
                # The code of this checkout, even when the installed script points elsewhere.
                PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
            )
            app_times, app_rss, bare_times, bare_rss, late = [], [], [], [], []
            for run in range(args.runs):
                home = make_home(root)
                seconds, rss, late_mb = run_once(
                    app_command(),
                    dict(base, HOME=str(home)),
                    rss_after=args.rss_after,
                    late_rss=args.late_rss if run == 0 else 0.0,
                )
                app_times.append(seconds)
                app_rss.append(rss)
                if late_mb is not None:
                    late.append(late_mb)
                seconds, rss, _ = run_once(
                    [sys.executable, "-c", BARE],
                    dict(base, HOME=str(home)),
                    rss_after=args.rss_after,
                )
                bare_times.append(seconds)
                bare_rss.append(rss)
            platform = env.get("QT_QPA_PLATFORM")
    finally:
        shutil.rmtree(root, ignore_errors=True)

    app_t, bare_t = statistics.median(app_times), statistics.median(bare_times)
    ratio = app_t / bare_t
    rss = statistics.median(app_rss)
    print(f"platform: {platform}; {args.runs} cold starts each, alternating")

    def runs(times: list[float]) -> str:
        return ", ".join(f"{t * 1000:.0f}" for t in times)

    print(f"first window, app : median {app_t * 1000:6.0f} ms  (runs: {runs(app_times)})")
    print(f"first window, bare: median {bare_t * 1000:6.0f} ms  (runs: {runs(bare_times)})")
    print(
        f"ratio app/bare    : {ratio:.2f}x   target <= {RATIO_TARGET:g}x  "
        f"{'OK' if ratio <= RATIO_TARGET else 'MISSED'}"
    )
    time_ok = "OK" if app_t <= TIME_TARGET_S else "MISSED"
    print(f"time target       : <= {TIME_TARGET_S * 1000:.0f} ms  {time_ok}")
    bare_mb = statistics.median(bare_rss)
    print(
        f"RSS {args.rss_after:g} s after    : app {rss:.0f} MB, bare {bare_mb:.0f} MB; "
        f"target <= {RSS_TARGET_MB:.0f} MB  {'OK' if rss <= RSS_TARGET_MB else 'MISSED'}"
    )
    if late:
        print(
            f"RSS {args.late_rss:g} s after   : app {late[0]:.0f} MB (start-up work done by then)"
        )
    ok = app_t <= TIME_TARGET_S and ratio <= RATIO_TARGET and rss <= RSS_TARGET_MB
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
