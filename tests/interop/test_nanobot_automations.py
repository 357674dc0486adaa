"""The Automations view's edits seen by the real ``nanobot`` (nanobot-ai 0.3.5): a job renamed
and another paused through our core, as the view does, then listed by nanobot's own cron tool
from the shared ``jobs.json``."""

from __future__ import annotations

import json

from desktop.core.cron.automations import rename_job
from desktop.core.cron.overview import save_reminder
from desktop.core.cron.service import CronService
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, texts


async def _never(_job: object) -> None:
    raise AssertionError("nothing runs here")


def test_rename_and_pause_made_here_are_seen_by_nanobots_cron_list(shared: Shared) -> None:
    cron = CronService(shared.workspace / "cron" / "jobs.json", on_job=_never)
    # Made by the view's form: bound to the desktop's Reminders chat (nanobot disables an
    # agent job bound to no chat).
    tea = save_reminder(cron, job_id=None, name="tea 7731", message="Tea", every_minutes=60)
    news = save_reminder(cron, job_id=None, name="news 7732", message="News", every_minutes=120)
    rename_job(cron, tea.id, "afternoon tea 7731")
    cron.enable_job(news.id, False)

    shared.server.push(
        Reply(tool_calls=[("cron", json.dumps({"action": "list"}))]), Reply("Listed.")
    )
    shared.ok("nanobot", "agent", "-m", "Which jobs are there?")
    listed = "\n".join(texts(shared.last_messages(), "tool"))
    assert f"- afternoon tea 7731 (id: {tea.id}" in listed, listed
    assert "- tea 7731" not in listed, listed
    # nanobot lists only enabled jobs: the paused one is gone from its list.
    assert news.id not in listed, listed
    stored = {j["id"]: j for j in json.loads(cron.store_path.read_text())["jobs"]}
    assert stored[news.id]["enabled"] is False and stored[tea.id]["name"] == "afternoon tea 7731"
