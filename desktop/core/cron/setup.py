"""Assembling the scheduler for an agent: the service, its job runner, system jobs, the tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.cron.delivery import JobRunner
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronSchedule
from desktop.core.heartbeat.service import HeartbeatService
from desktop.core.tools.cron import CronTool

if TYPE_CHECKING:
    from desktop.core.agent.loop import AgentLoop
    from desktop.core.config.schema import Config
    from desktop.core.providers.base import LLMProvider

SYSTEM_JOBS = ("dream", "heartbeat")
HOUR_MS = 3_600_000


def attach_scheduler(agent: AgentLoop, config: Config, provider: LLMProvider) -> CronService:
    """Create the agent's scheduler (not started) and give the agent the ``cron`` tool.

    The service is reachable as ``agent.cron``; :mod:`desktop.core.runtime` starts it.
    """
    defaults = config.agents.defaults
    tz = defaults.effective_timezone
    heartbeat = HeartbeatService(config.workspace_path, provider, agent, timezone=tz)

    async def dream() -> str | None:
        if agent.extra_commands is None:
            return "memory commands are not available"
        return await agent.extra_commands("/dream", "")

    runner = JobRunner(agent, {"dream": dream, "heartbeat": heartbeat.tick}, timezone=tz)
    service = CronService(
        config.workspace_path / "cron" / "jobs.json",
        on_job=runner,
        default_tz=tz,
        protected=SYSTEM_JOBS,
    )
    agent.tools.register(CronTool(service, default_tz=tz))
    agent.cron = service
    agent.heartbeat = heartbeat
    return service


def dream_schedule(config: Config) -> CronSchedule:
    """Every ``dream.intervalH`` hours, or nanobot's legacy ``dream.cron`` expression."""
    dream = config.agents.defaults.dream
    legacy = (dream.model_extra or {}).get("cron")
    if isinstance(legacy, str) and legacy.strip():
        return CronSchedule(
            "cron", expr=legacy.strip(), tz=config.agents.defaults.effective_timezone
        )
    return CronSchedule("every", every_ms=dream.interval_h * HOUR_MS)


def sync_system_jobs(service: CronService, config: Config) -> None:
    """Register (or drop) ``dream`` and ``heartbeat`` to match the config (blocking file I/O)."""
    dream = config.agents.defaults.dream
    beat = config.gateway.heartbeat
    if dream.enabled:
        service.register_system_job("dream", dream_schedule(config))
    else:
        service.remove_system_job("dream")
    if beat.enabled:
        service.register_system_job(
            "heartbeat", CronSchedule("every", every_ms=beat.interval_s * 1000)
        )
    else:
        service.remove_system_job("heartbeat")
