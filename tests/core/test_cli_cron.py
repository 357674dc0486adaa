"""``cron`` and ``gateway`` commands, run as a user would (the gateway in its own process,
forked from the pre-imported zygote: ``tests.cli_runner.start_cli``)."""

from __future__ import annotations

import json
import signal
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

from tests.cli_runner import start_cli
from tests.conftest import cli_env, custom_config
from tests.core.test_cli import run
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.waiting import wait_for


def _jobs(tmp_path: Path) -> list[dict[str, Any]]:
    return cast(
        "list[dict[str, Any]]",
        json.loads((tmp_path / "workspace" / "cron" / "jobs.json").read_text())["jobs"],
    )


def test_cron_add_list_enable_disable_remove(tmp_path: Path, isolated_env: Path) -> None:
    config = str(custom_config(tmp_path, "http://127.0.0.1:9/v1", timezone="Europe/Berlin"))
    added = run(
        ["cron", "add", "--config", config, "--message", "Standup", "--cron", "0 9 * * 1-5"],
        isolated_env,
    )
    assert added.returncode == 0, added.stderr
    job = next(j for j in _jobs(tmp_path) if j["payload"]["kind"] == "agent_turn")
    assert job["schedule"] == {
        "kind": "cron",
        "atMs": None,
        "everyMs": None,
        "expr": "0 9 * * 1-5",
        "tz": None,
    }
    assert job["payload"]["sessionKey"] == "desktop:reminders"
    listed = run(["cron", "list", "--config", config], isolated_env)
    assert listed.returncode == 0
    assert f"Standup (id: {job['id']}, cron 0 9 * * 1-5)" in listed.stdout
    assert (
        "dream (id: dream, every 2h)" in listed.stdout
        and "heartbeat (id: heartbeat" in listed.stdout
    )
    assert listed.stdout.count("Protected system job") == 2
    assert "CET" in listed.stdout or "CEST" in listed.stdout, "times shown in the configured zone"
    assert run(["cron", "disable", job["id"], "--config", config], isolated_env).returncode == 0
    assert next(j for j in _jobs(tmp_path) if j["id"] == job["id"])["enabled"] is False
    assert run(["cron", "enable", job["id"], "--config", config], isolated_env).returncode == 0
    assert run(["cron", "remove", job["id"], "--config", config], isolated_env).returncode == 0
    assert {j["id"] for j in _jobs(tmp_path)} == {"dream", "heartbeat"}


def test_cron_refusals_and_bad_input(tmp_path: Path, isolated_env: Path) -> None:
    config = str(custom_config(tmp_path, "http://127.0.0.1:9/v1"))
    for system in ("dream", "heartbeat"):
        refused = run(["cron", "remove", system, "--config", config], isolated_env)
        assert refused.returncode == 1 and "system job" in refused.stderr
    assert {j["id"] for j in _jobs(tmp_path)} == {"dream", "heartbeat"}
    for args, text in [
        (["--message", "x"], "exactly one"),
        (["--message", "x", "--every", "60", "--at", "2030-01-01T09:00"], "exactly one"),
        (["--message", "x", "--cron", "0 9 * * *", "--tz", "Nowhere/Land"], "unknown timezone"),
        (["--message", "x", "--at", "next tuesday"], "ISO time"),
        (["--message", "x", "--every", "60", "--session", "nocolon"], "CHANNEL:CHAT"),
    ]:
        result = run(["cron", "add", "--config", config, *args], isolated_env)
        assert result.returncode == 2 and text in result.stderr, (args, result.stderr)
    assert run(["cron", "remove", "nope", "--config", config], isolated_env).returncode == 2
    assert len(_jobs(tmp_path)) == 2


def test_cron_run_now_runs_a_real_turn(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    config = str(custom_config(tmp_path, scripted_server.url))
    assert (
        run(
            [
                "cron",
                "add",
                "--config",
                config,
                "--message",
                "Water the plants",
                "--every",
                "3600",
                "--session",
                "cli:direct",
            ],
            isolated_env,
        ).returncode
        == 0
    )
    job_id = next(j["id"] for j in _jobs(tmp_path) if j["payload"]["kind"] == "agent_turn")
    scripted_server.push(Reply("Go water the plants!"))
    result = run(["cron", "run", job_id, "--config", config], isolated_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Go water the plants!"
    job = next(j for j in _jobs(tmp_path) if j["id"] == job_id)
    assert job["state"]["lastStatus"] == "ok" and len(job["state"]["runHistory"]) == 1

    # The model is down: the run failed, but the reminder's own text is shown here, as its
    # receipt says ("shown on terminal"); it used to be claimed and never printed.
    scripted_server.push(Fail(401, "bad key"))
    failed = run(["cron", "run", job_id, "--config", config], isolated_env)
    assert failed.returncode == 1
    assert failed.stdout.strip() == "Reminder: Water the plants", failed.stdout
    assert "the job failed: the model could not be reached" in failed.stderr
    listed = run(["cron", "list", "--config", config], isolated_env)
    assert "Last outcome: failed (shown on terminal) at " in listed.stdout, listed.stdout


def test_gateway_fires_a_reminder_and_stops_cleanly(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """A job due a few seconds ahead fires in the running gateway; Ctrl-C stops it with status 0."""
    config = str(custom_config(tmp_path, scripted_server.url))
    at = (datetime.now() + timedelta(seconds=4)).replace(microsecond=0).isoformat()
    assert (
        run(
            [
                "cron",
                "add",
                "--config",
                config,
                "--message",
                "Stand up",
                "--at",
                at,
                "--session",
                "cli:direct",
            ],
            isolated_env,
        ).returncode
        == 0
    )
    scripted_server.push(Reply("Time to stand up!"))
    process = start_cli(["gateway", "--config", config], cli_env(isolated_env))
    try:
        assert process.stdout is not None
        printed = []
        for line in process.stdout:  # until the gateway prints the reminder's answer
            printed.append(line)
            if "reminder 'Stand up'" in line:
                break
        expected = {"dream", "heartbeat"}
        wait_for(lambda: {j["id"] for j in _jobs(tmp_path)} == expected, 30, "the 'at' job gone")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        out = "".join(printed) + out
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "reminder 'Stand up' (cli:direct): Time to stand up!" in out
    assert "Traceback" not in err and "stopped" in out
    assert {j["id"] for j in _jobs(tmp_path)} == {"dream", "heartbeat"}, (
        "the 'at' job was deleted after its run"
    )
