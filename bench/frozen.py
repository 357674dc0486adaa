"""The frozen app (packaging/build.sh) beside the source run and a bare Qt window.

Prints the size of the onedir app, the .deb and the tarball; the frozen app's time to its
first window as a ratio to the source run (``nanobot-desktop`` from the venv) and to a bare
QMainWindow, all measured in the same run, alternating, each a cold subprocess with its own
HOME (see bench/startup.py, whose helpers this uses); the RSS of each 3 s after the first
paint; and the time of ``--version`` (a start of the frozen runtime without Qt) beside the
source run's and nanobot 0.3.5's (.cache/nanobot-venv, when installed).

Goal (issue #26): the frozen app's first window ≤ 1.2× the source run's, same run.

Usage: python bench/frozen.py [--runs 5] [--app dist/nanobot-desktop/nanobot-desktop]
       [--nanobot .cache/nanobot-venv/bin/nanobot]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import startup

REPO = Path(__file__).resolve().parent.parent
DIST = REPO / "dist"
NANOBOT = REPO / ".cache" / "nanobot-venv" / "bin" / "nanobot"
RATIO_GOAL = 1.2


def tree_bytes(path: Path) -> int:
    """Bytes of every regular file under ``path`` (symlinks not followed)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def mb(size: float) -> str:
    return f"{size / 1e6:.1f} MB"


def sizes(app_dir: Path) -> None:
    """Print the artefacts' sizes."""
    print(f"onedir app        : {mb(tree_bytes(app_dir))} ({app_dir})")
    internal = app_dir / "_internal"
    if internal.is_dir():
        parts = {
            "Qt (PySide6)": tree_bytes(internal / "PySide6"),
            "litellm": tree_bytes(internal / "litellm"),
            "executable (bootloader + PYZ)": (app_dir / app_dir.name).stat().st_size,
        }
        print("  of which        : " + ", ".join(f"{k} {mb(v)}" for k, v in parts.items()))
    for pattern, label in (
        ("nanobot-desktop_*.deb", ".deb"),
        ("nanobot-desktop-*.tar.gz", "tarball"),
    ):
        found = sorted(app_dir.parent.glob(pattern))  # beside the app, as build.sh puts them
        if found:
            print(f"{label:<18}: {mb(found[-1].stat().st_size)} ({found[-1].name})")


def version_time(command: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    """Median seconds of ``command --version``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*command, "--version"], check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--app", type=Path, default=DIST / "nanobot-desktop" / "nanobot-desktop")
    parser.add_argument("--rss-after", type=float, default=3.0)
    parser.add_argument("--platform", choices=["xcb", "xvfb", "offscreen"], default=None)
    parser.add_argument("--nanobot", type=Path, default=NANOBOT, help="nanobot 0.3.5's program")
    args = parser.parse_args()
    if not args.app.is_file():
        print(f"{args.app} not found: build it with packaging/build.sh", file=sys.stderr)
        return 2

    sizes(args.app.parent)
    root = Path(tempfile.mkdtemp(prefix="nanobot-bench-frozen-"))
    results: dict[str, list[tuple[float, float]]] = {"frozen": [], "source": [], "bare": []}
    try:
        with startup.display(args.platform) as env:
            base = dict(
                env,
                LITELLM_LOCAL_MODEL_COST_MAP="True",
                PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                NANOBOT_DESKTOP_BENCH="1",
                # The code of this checkout, even when the installed script points elsewhere.
                PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
            )
            frozen_env = {k: v for k, v in base.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
            commands = {
                "frozen": ([str(args.app)], frozen_env),
                "source": (startup.app_command(), base),
                "bare": ([sys.executable, "-c", startup.BARE], base),
            }
            for _ in range(args.runs):
                for name, (command, child_env) in commands.items():
                    home = startup.make_home(root)
                    seconds, rss, _ = startup.run_once(
                        command, dict(child_env, HOME=str(home)), rss_after=args.rss_after
                    )
                    results[name].append((seconds, rss))
            platform = env.get("QT_QPA_PLATFORM")
            cli = version_time([str(args.app)], args.runs, frozen_env)
            cli_source = version_time(startup.app_command(), args.runs, base)
            cli_nanobot = (
                version_time([str(args.nanobot)], args.runs, frozen_env)
                if args.nanobot.exists()
                else None
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)

    median = {name: statistics.median(t for t, _ in runs) for name, runs in results.items()}
    rss_mb = {name: statistics.median(r for _, r in runs) for name, runs in results.items()}
    print(f"platform          : {platform}; {args.runs} cold starts each, alternating")
    for name in ("frozen", "source", "bare"):
        runs = ", ".join(f"{t * 1000:.0f}" for t, _ in results[name])
        print(f"first window {name:<6}: median {median[name] * 1000:5.0f} ms  (runs: {runs})")
    ratio = median["frozen"] / median["source"]
    verdict = "OK" if ratio <= RATIO_GOAL else "MISSED"
    print(f"ratio frozen/source: {ratio:.2f}x   goal <= {RATIO_GOAL:.1f}x {verdict}")
    print(f"ratio frozen/bare  : {median['frozen'] / median['bare']:.2f}x "
          f"(source/bare {median['source'] / median['bare']:.2f}x)")  # fmt: skip
    print(f"RSS {args.rss_after:g} s after paint: frozen {rss_mb['frozen']:.0f} MB, "
          f"source {rss_mb['source']:.0f} MB, bare {rss_mb['bare']:.0f} MB")  # fmt: skip
    theirs = f"{cli_nanobot * 1000:.0f} ms" if cli_nanobot is not None else "not found"
    print(f"--version         : frozen {cli * 1000:.0f} ms, source {cli_source * 1000:.0f} ms, "
          f"nanobot 0.3.5 {theirs} (medians)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
