"""``nanobot-desktop usage``: spend today and this month, per source, against the budgets.

Reads the workspace's usage ledger (:mod:`desktop.core.usage.ledger`, beside the config) and the
budgets in ``desktop.json``. Exit codes: 0 done, 2 the config cannot be used.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from desktop.cli.common import EXIT_OK, EXIT_USAGE, load

if TYPE_CHECKING:
    from desktop.core.bus.events import RunEvent
    from desktop.core.config.budgets import Budgets
    from desktop.core.config.schema import Config


def run_usage(args: argparse.Namespace) -> int:
    """Print the usage summary (text, or JSON with ``--json``)."""
    from desktop.core.config.loader import config_origin
    from desktop.core.config.prefs import load_prefs
    from desktop.core.config.prefs_peek import prefs_path
    from desktop.core.usage.summary import load_summary, render_text

    config = load(args)
    if config is None:
        return EXIT_USAGE
    prefs = load_prefs(prefs_path(config_origin(config).path))
    if prefs.load_warning:
        print(f"warning: {prefs.load_warning}", file=sys.stderr)
    from desktop.core.assembly import usage_place

    summary = load_summary(usage_place(config), zone=config.agents.defaults.effective_timezone)
    if not getattr(args, "json", False):
        sys.stdout.write(render_text(summary, prefs.budgets))
        return EXIT_OK
    data: dict[str, Any] = {
        "now": summary.now.isoformat(),
        "zone": summary.zone,
        "today": asdict(summary.today),
        "month": asdict(summary.month),
        "todayBySource": {k: asdict(v) for k, v in summary.today_by_source.items()},
        "monthBySource": {k: asdict(v) for k, v in summary.month_by_source.items()},
        "topSessions": [[k, asdict(v)] for k, v in summary.top_sessions],
        "topJobs": [[k, asdict(v)] for k, v in summary.top_jobs],
        "warnings": summary.warnings,
        "budgets": prefs.budgets.model_dump(mode="json", by_alias=True),
    }
    print(json.dumps(data, indent=2))
    return EXIT_OK


def budgets_of(config: Config) -> Callable[[], Budgets]:
    """The budgets in ``desktop.json`` beside ``config`` (read once, for a headless run)."""
    from desktop.core.config.loader import config_origin
    from desktop.core.config.prefs import load_prefs
    from desktop.core.config.prefs_peek import prefs_path

    budgets = load_prefs(prefs_path(config_origin(config).path)).budgets
    return lambda: budgets


def dream_review_of(config: Config) -> Callable[[], bool]:
    """Whether Dream runs in review mode, from ``desktop.json`` beside ``config`` (read once)."""
    from desktop.core.config.loader import config_origin
    from desktop.core.config.prefs import load_prefs
    from desktop.core.config.prefs_peek import prefs_path

    review = load_prefs(prefs_path(config_origin(config).path)).review_dream
    return lambda: review


def say_budget_events(event: RunEvent) -> None:
    """Print the governor's reports on standard error (headless: nobody is asked)."""
    from desktop.core.bus.events import BudgetPaused, BudgetWarning, RunawayStopped

    if isinstance(event, BudgetPaused):
        print(f"budget: {event.message}; kept paused", file=sys.stderr)
    elif isinstance(event, BudgetWarning | RunawayStopped):
        print(f"budget: {event.message}", file=sys.stderr)
