"""``agent -m "hi"``: our CLI beside nanobot-ai's, wall time and peak RSS, cold and warm.

Both programs run as fresh subprocesses with one HOME and the default
``~/.nanobot/config.json``, whose ``custom`` provider points at the scripted OpenAI-compatible
server of the tests (an instant, streamed answer), so what is measured is the program: start-up,
imports, building the agent, one model call, saving the session, exiting.

- **cold**: nothing else runs; each program starts, answers and exits.
- **app running**: ``nanobot-desktop gateway`` runs on the same config (the app's window does
  the same), so ``nanobot-desktop agent -m`` hands its message over the local socket. nanobot's
  CLI has no such hand-off; its cold figure is the comparison.
- **openai SDK import alone**: ``python -c "import openai"``, the floor of any cold run that
  answers through the thin provider path (the ``custom`` provider here, as every OpenAI-wire
  route: LiteLLM is not loaded at all). nanobot-ai 0.3.5 calls the same SDK.
- **LiteLLM import alone**: ``python -c "import litellm"``, the floor a cold run paid when every
  provider went through LiteLLM (it still does for Anthropic-style, Azure, Bedrock… routes).

The goal (issue #26) is ours, cold ≤ 1.0× nanobot-ai's, wall time and peak RSS.

Each run uses a new session key (the history does not grow). One untimed run of each program
comes first (it creates the workspace and compiles bytecode). Time is from spawn to exit;
peak RSS is the child's ``ru_maxrss`` (``os.wait4``).

Usage: python bench/cli_vs_nanobot.py [--runs 5] [--nanobot .cache/nanobot-venv/bin/nanobot]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fakes.openai_server import Reply, ScriptedOpenAIServer  # noqa: E402

ANSWER = "Hello! How can I help?"


@dataclass
class Sample:
    """One run: wall seconds and peak resident memory in MB."""

    wall: float
    rss_mb: float


def measure(command: list[str], env: dict[str, str], expect: str | None = ANSWER) -> Sample:
    """Run ``command`` to completion; fail loudly unless it succeeded (and printed ``expect``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or (expect is not None and expect not in out):
        raise SystemExit(f"{command[0]} failed ({proc.returncode}):\n{out}\n{err}")
    return Sample(wall, usage.ru_maxrss / 1024)


def series(label: str, command: list[str], env: dict[str, str], runs: int) -> list[Sample]:
    """``runs`` timed runs with a fresh session key each."""
    return [measure([*command, f"bench:{label}-{i}-{time.time_ns()}"], env) for i in range(runs)]


def median(samples: list[Sample]) -> tuple[float, float]:
    """Median wall seconds and median peak RSS."""
    return (
        statistics.median(s.wall for s in samples),
        statistics.median(s.rss_mb for s in samples),
    )


def start_gateway(ours: str, env: dict[str, str], config_dir: Path) -> subprocess.Popen[str]:
    """Start ``nanobot-desktop gateway`` and wait (with a deadline) for its socket."""
    gateway = subprocess.Popen(
        [ours, "gateway"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True
    )
    socket = config_dir / "run" / "agent.sock"
    deadline = time.monotonic() + 120
    while not socket.exists():
        if gateway.poll() is not None:
            raise SystemExit(f"the gateway exited: {gateway.communicate()[1]}")
        if time.monotonic() > deadline:
            gateway.kill()
            raise SystemExit("the gateway did not open its socket in 120 s")
        time.sleep(0.1)
    return gateway


def main() -> int:
    """Run the comparison and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--nanobot", default=str(REPO / ".cache" / "nanobot-venv" / "bin" / "nanobot")
    )
    parser.add_argument("--ours", default=str(Path(sys.executable).parent / "nanobot-desktop"))
    args = parser.parse_args()
    if not Path(args.nanobot).exists():
        raise SystemExit(f"{args.nanobot} is missing: run scripts/setup.sh --test")

    with (
        tempfile.TemporaryDirectory(prefix="cli-bench-") as tmp,
        ScriptedOpenAIServer(default=Reply(ANSWER)) as server,
    ):
        home = Path(tmp)
        config_dir = home / ".nanobot"
        config_dir.mkdir()
        config = {
            "agents": {
                "defaults": {
                    "model": "scripted-model",
                    "provider": "custom",
                    "workspace": str(home / "workspace"),
                }
            },
            "providers": {"custom": {"apiBase": server.url, "apiKey": "sk-bench"}},
        }
        (config_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
        # Without PYTHONDONTWRITEBYTECODE (scripts/test.sh sets it): the untimed first runs
        # write bytecode, as installing does, so no timed run compiles the checkout's modules.
        env = {
            k: v
            for k, v in os.environ.items()
            if (not k.startswith("NANOBOT_") or "TEST" in k) and k != "PYTHONDONTWRITEBYTECODE"
        }
        env.update(
            HOME=str(home),
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            # The code of this checkout, even when the installed script points elsewhere.
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        )
        ours = [args.ours, "agent", "-m", "hi", "--session"]
        theirs = [args.nanobot, "agent", "-m", "hi", "--no-markdown", "-s"]
        measure([*ours, "bench:warmup"], env)
        measure([*theirs, "bench:warmup"], env)

        python = str(Path(args.ours).parent / "python")
        floor = [python, "-c", "import litellm"]
        sdk_floor = [python, "-c", "import openai"]
        cold_ours, cold_theirs, floors, sdk_floors = [], [], [], []
        for _ in range(args.runs):  # interleaved, so load changes hit all alike
            cold_ours += series("ours", ours, env, 1)
            cold_theirs += series("nanobot", theirs, env, 1)
            sdk_floors.append(measure(sdk_floor, env, expect=None))
            floors.append(measure(floor, env, expect=None))
        gateway = start_gateway(args.ours, env, config_dir)
        try:
            measure([*ours, "bench:warm-warmup"], env)
            warm_ours = series("ours-warm", ours, env, args.runs)
        finally:
            gateway.send_signal(signal.SIGINT)
            gateway.communicate(timeout=60)

    rows = [
        ("nanobot-ai (cold)", median(cold_theirs)),
        ("ours, cold", median(cold_ours)),
        ("ours, app running", median(warm_ours)),
        ("openai SDK import alone", median(sdk_floors)),
        ("LiteLLM import alone", median(floors)),
    ]
    base_wall, base_rss = rows[0][1]
    print(f"agent -m 'hi', {args.runs} runs each, medians (ratio = ours / nanobot-ai)")
    print(f"{'':24} {'wall s':>8} {'peak RSS MB':>12} {'wall ratio':>11} {'RSS ratio':>10}")
    for name, (wall, rss) in rows:
        print(f"{name:24} {wall:8.2f} {rss:12.0f} {wall / base_wall:10.2f}x {rss / base_rss:9.2f}x")
    ours_wall, ours_rss = rows[1][1]
    floor_wall, floor_rss = rows[3][1]
    print(
        f"ours, cold, beyond importing the openai SDK: {ours_wall - floor_wall:+.2f} s, "
        f"{ours_rss - floor_rss:+.0f} MB"
    )
    for label, ratio in (("wall", ours_wall / base_wall), ("peak RSS", ours_rss / base_rss)):
        verdict = "met" if ratio <= 1.0 else "MISSED"
        print(f"goal: ours, cold, {label} <= 1.00x nanobot-ai's: {ratio:.2f}x {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
