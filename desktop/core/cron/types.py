"""Cron job data types and their on-disk form (nanobot's ``jobs.json``, camelCase keys).

Every record keeps the keys it does not know in ``extra`` and writes them back unchanged, so a
store written by a newer nanobot (or by hand) survives a load/save round trip. Loading also
accepts snake_case spellings of the known keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ScheduleKind = Literal["at", "every", "cron"]
HISTORY_LIMIT = 10


def _get(data: dict[str, Any], camel: str, snake: str, default: Any = None) -> Any:
    if camel in data:
        return data[camel]
    return data.get(snake, default)


def _int_or_none(value: Any) -> int | None:
    if value is None or value == "":
        return None
    return int(value)


def _extras(data: dict[str, Any], known: set[str]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in known}


@dataclass
class CronSchedule:
    """When a job runs: once (``at``), on an interval (``every``) or a cron expression."""

    kind: ScheduleKind
    at_ms: int | None = None
    every_ms: int | None = None
    expr: str | None = None
    tz: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = {"kind", "atMs", "at_ms", "everyMs", "every_ms", "expr", "tz"}

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "atMs": self.at_ms,
            "everyMs": self.every_ms,
            "expr": self.expr,
            "tz": self.tz,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CronSchedule:
        return cls(
            kind=data["kind"],
            at_ms=_int_or_none(_get(data, "atMs", "at_ms")),
            every_ms=_int_or_none(_get(data, "everyMs", "every_ms")),
            expr=data.get("expr"),
            tz=data.get("tz"),
            extra=_extras(data, cls._KEYS),
        )


@dataclass
class CronPayload:
    """What a job does when it fires (field names as in nanobot's payload)."""

    kind: str = "agent_turn"
    message: str = ""
    deliver: bool = False
    channel: str | None = None
    to: str | None = None
    channel_meta: dict[str, Any] = field(default_factory=dict)
    session_key: str | None = None
    origin_channel: str | None = None
    origin_chat_id: str | None = None
    origin_metadata: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = {
        "kind",
        "message",
        "deliver",
        "channel",
        "to",
        "channelMeta",
        "channel_meta",
        "sessionKey",
        "session_key",
        "originChannel",
        "origin_channel",
        "originChatId",
        "origin_chat_id",
        "originMetadata",
        "origin_metadata",
    }

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "deliver": self.deliver,
            "channel": self.channel,
            "to": self.to,
            "channelMeta": dict(self.channel_meta),
            "sessionKey": self.session_key,
            "originChannel": self.origin_channel,
            "originChatId": self.origin_chat_id,
            "originMetadata": dict(self.origin_metadata),
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CronPayload:
        return cls(
            kind=data.get("kind") or "agent_turn",
            message=data.get("message") or "",
            deliver=bool(data.get("deliver", False)),
            channel=data.get("channel"),
            to=data.get("to"),
            channel_meta=dict(_get(data, "channelMeta", "channel_meta") or {}),
            session_key=_get(data, "sessionKey", "session_key"),
            origin_channel=_get(data, "originChannel", "origin_channel"),
            origin_chat_id=_get(data, "originChatId", "origin_chat_id"),
            origin_metadata=dict(_get(data, "originMetadata", "origin_metadata") or {}),
            extra=_extras(data, cls._KEYS),
        )


@dataclass
class CronRunRecord:
    """One past run of a job. ``late`` marks a catch-up run for a time missed while closed."""

    run_at_ms: int
    status: str
    duration_ms: int = 0
    error: str | None = None
    run_id: str | None = None
    late: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = {
        "runAtMs",
        "run_at_ms",
        "status",
        "durationMs",
        "duration_ms",
        "error",
        "runId",
        "run_id",
        "late",
    }

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "runAtMs": self.run_at_ms,
            "status": self.status,
            "durationMs": self.duration_ms,
            "error": self.error,
            "runId": self.run_id,
        }
        if self.late:
            out["late"] = True
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CronRunRecord:
        return cls(
            run_at_ms=_int_or_none(_get(data, "runAtMs", "run_at_ms")) or 0,
            status=str(data.get("status") or "ok"),
            duration_ms=_int_or_none(_get(data, "durationMs", "duration_ms")) or 0,
            error=data.get("error"),
            run_id=_get(data, "runId", "run_id"),
            late=bool(data.get("late", False)),
            extra=_extras(data, cls._KEYS),
        )


@dataclass
class CronJobState:
    """Runtime state of a job; ``history`` holds the last :data:`HISTORY_LIMIT` runs."""

    next_run_at_ms: int | None = None
    last_run_at_ms: int | None = None
    last_status: str | None = None
    last_error: str | None = None
    history: list[CronRunRecord] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = {
        "nextRunAtMs",
        "next_run_at_ms",
        "lastRunAtMs",
        "last_run_at_ms",
        "lastStatus",
        "last_status",
        "lastError",
        "last_error",
        "runHistory",
        "run_history",
    }

    def record(self, run: CronRunRecord) -> None:
        self.last_run_at_ms = run.run_at_ms
        self.last_status = run.status
        self.last_error = run.error
        self.history.append(run)
        del self.history[:-HISTORY_LIMIT]

    def to_json(self) -> dict[str, Any]:
        return {
            "nextRunAtMs": self.next_run_at_ms,
            "lastRunAtMs": self.last_run_at_ms,
            "lastStatus": self.last_status,
            "lastError": self.last_error,
            "runHistory": [r.to_json() for r in self.history],
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CronJobState:
        raw = _get(data, "runHistory", "run_history") or []
        return cls(
            next_run_at_ms=_int_or_none(_get(data, "nextRunAtMs", "next_run_at_ms")),
            last_run_at_ms=_int_or_none(_get(data, "lastRunAtMs", "last_run_at_ms")),
            last_status=_get(data, "lastStatus", "last_status"),
            last_error=_get(data, "lastError", "last_error"),
            history=[CronRunRecord.from_json(r) for r in raw if isinstance(r, dict)][
                -HISTORY_LIMIT:
            ],
            extra=_extras(data, cls._KEYS),
        )


@dataclass
class CronJob:
    """A scheduled job as stored in ``jobs.json``."""

    id: str
    name: str
    enabled: bool = True
    schedule: CronSchedule = field(default_factory=lambda: CronSchedule(kind="every"))
    payload: CronPayload = field(default_factory=CronPayload)
    state: CronJobState = field(default_factory=CronJobState)
    delete_after_run: bool = False
    created_at_ms: int = 0
    updated_at_ms: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = {
        "id",
        "name",
        "enabled",
        "schedule",
        "payload",
        "state",
        "createdAtMs",
        "created_at_ms",
        "updatedAtMs",
        "updated_at_ms",
        "deleteAfterRun",
        "delete_after_run",
    }

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "enabled": self.enabled,
            "schedule": self.schedule.to_json(),
            "payload": self.payload.to_json(),
            "state": self.state.to_json(),
            "createdAtMs": self.created_at_ms,
            "updatedAtMs": self.updated_at_ms,
            "deleteAfterRun": self.delete_after_run,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CronJob:
        return cls(
            id=str(data["id"]),
            name=str(data.get("name") or data["id"]),
            enabled=bool(data.get("enabled", True)),
            schedule=CronSchedule.from_json(data["schedule"]),
            payload=CronPayload.from_json(data.get("payload") or {}),
            state=CronJobState.from_json(data.get("state") or {}),
            delete_after_run=bool(_get(data, "deleteAfterRun", "delete_after_run", False)),
            created_at_ms=_int_or_none(_get(data, "createdAtMs", "created_at_ms")) or 0,
            updated_at_ms=_int_or_none(_get(data, "updatedAtMs", "updated_at_ms")) or 0,
            extra=_extras(data, cls._KEYS),
        )
