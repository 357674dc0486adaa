"""``nanobot-desktop usage`` as a user runs it (a subprocess of the script)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from desktop.core.config.loader import load_config
from desktop.core.usage.record import UsageRecord
from tests.conftest import custom_config, write_config
from tests.core.test_cli import run
from tests.core.usage.helpers import ledger_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _rec(when: float, source: str, tokens: int, **extra: object) -> UsageRecord:
    return UsageRecord(
        time=when,
        source=source,
        model="m",
        prompt_tokens=tokens - 10,
        completion_tokens=10,
        **extra,  # type: ignore[arg-type]
    )


def test_usage_prints_today_month_sources_top_sessions_and_jobs_against_budgets(
    tmp_path: Path, isolated_env: Path
) -> None:
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1", timezone="UTC")
    write_config(
        config.parent / "desktop.json",
        {
            "budgets": {
                "overall": {"dailyTokens": 10000, "monthlyUsd": 4},
                "sources": {"dream": {"dailyTokens": 2000}},
            }
        },
    )
    now = time.time()
    today = datetime.now(UTC)
    month_start = today.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    ledger = ledger_of(load_config(config, environ={}))
    ledger.extend(
        [
            _rec(now - 1, "chat", 1500, session="desktop:a", cost_usd=0.5),
            _rec(now - 1, "chat", 500, session="telegram:b", cost_usd=0.25),
            _rec(now - 1, "dream", 1000, job="dream", phase=1),  # no known price
            _rec(now - 1, "cron", 300, job="water-plants", session="desktop:a", cost_usd=0.25),
            _rec((month_start - timedelta(days=3)).timestamp(), "chat", 99999, cost_usd=9.0),
        ]
    )
    if today.day > 1:  # earlier this month: in the month, not in today
        ledger.append(_rec(month_start.timestamp() + 60, "heartbeat", 700, cost_usd=1.0))
    earlier = 700 if today.day > 1 else 0

    shown = run(["usage", "--config", str(config)], isolated_env)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert "Today: 3,300 tokens, $1.00*, 4 call(s)  [33% of 10,000 tokens]" in text
    assert f"This month ({today:%B %Y}): {3300 + earlier:,} tokens" in text
    assert "99,999" not in text  # last month is not counted
    dream = next(line for line in text.splitlines() if line.strip().startswith("dream"))
    assert "1,000 tokens" in dream and "[50% of 2,000 tokens]" in dream
    sessions = text.split("Top sessions this month:")[1].split("\n\n")[0].splitlines()
    assert sessions[1].split()[0] == "desktop:a" and "1,800 tokens" in sessions[1]
    assert sessions[2].split()[0] == "telegram:b"
    jobs = text.split("Top jobs this month:")[1]
    assert "water-plants" in jobs and "dream" in jobs
    assert "without a known price" in text

    as_json = run(["usage", "--json", "--config", str(config)], isolated_env)
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert data["today"]["tokens"] == 3300 and data["today"]["unpriced"] == 1
    assert data["todayBySource"]["chat"]["calls"] == 2
    assert abs(data["month"]["cost_usd"] - (1.0 + (1.0 if earlier else 0.0))) < 1e-9
    assert data["budgets"]["sources"]["dream"]["dailyTokens"] == 2000


def test_usage_with_no_ledger_yet(tmp_path: Path, isolated_env: Path) -> None:
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    shown = run(["usage", "--config", str(config)], isolated_env)
    assert shown.returncode == 0, shown.stderr
    assert "No model calls recorded this month." in shown.stdout


def test_cron_run_is_counted_under_its_job_and_paused_headless_over_budget(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """``cron run``: the reminder turn's calls go to the ledger under the job's id; with the
    cron budget spent, the next run is refused before any call and says why on stderr."""
    config = custom_config(tmp_path, scripted_server.url, timezone="UTC")
    added = run(
        [
            *("cron", "add", "--config", str(config), "--message", "Water the plants"),
            *("--every", "3600", "--session", "cli:direct"),
        ],
        isolated_env,
    )
    assert added.returncode == 0, added.stderr
    jobs = json.loads((tmp_path / "workspace" / "cron" / "jobs.json").read_text())["jobs"]
    job_id = next(j["id"] for j in jobs if j["payload"]["kind"] == "agent_turn")
    scripted_server.push(Reply("Go water the plants!", usage=(700, 500)))
    first = run(["cron", "run", job_id, "--config", str(config)], isolated_env)
    assert first.returncode == 0, first.stderr

    shown = run(["usage", "--json", "--config", str(config)], isolated_env)
    data = json.loads(shown.stdout)
    assert data["todayBySource"]["cron"] == {
        "calls": 1,
        "tokens": 1200,
        "cost_usd": 0.0,
        "unpriced": 1,
    }
    assert data["topJobs"][0][0] == job_id

    write_config(
        config.parent / "desktop.json", {"budgets": {"sources": {"cron": {"dailyTokens": 1000}}}}
    )
    second = run(["cron", "run", job_id, "--config", str(config)], isolated_env)
    said = "budget: Cron wants ~1,200 tokens; today's Cron budget is 1,000 and 1,200 are spent"
    assert f"{said}; kept paused" in second.stderr, second.stderr
    assert len(scripted_server.chat_requests()) == 1
    # The reminder's own text still went out; the run is skipped over budget, not failed.
    assert "Reminder: Water the plants" in second.stdout, second.stdout
    assert second.returncode == 1
    assert f"the job was skipped: Paused by the {said}" in second.stderr
    listed = run(["cron", "list", "--config", str(config)], isolated_env)
    assert "Last outcome: skipped (over budget; its text shown on terminal) at " in listed.stdout
