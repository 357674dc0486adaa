"""The scheduler's system jobs (``dream``, ``heartbeat``), kept in step with the config."""

from __future__ import annotations

from desktop.core.config.schema import Config
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronSchedule

SYSTEM_JOBS = ("dream", "heartbeat")
HOUR_MS = 3_600_000


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
