"""Cron job data types and their on-disk form (nanobot's ``jobs.json``, camelCase keys).

Every record keeps the keys it does not know in ``extra`` and writes them back unchanged, so a
store written by a newer nanobot (or by hand) survives a load/save round trip. Loading also
accepts snake_case spellings of the known keys.

Loading checks every field (:class:`~desktop.core.utils.validate_fields.Fields`): a field of
the wrong type falls back to its default and is reported in ``problems``; a job whose ``id``,
``schedule`` or ``payload.message`` cannot be used raises
:class:`~desktop.core.utils.validate_fields.BadRecord` (the store sets it aside). A job whose
``enabled`` is not a boolean is loaded disabled. Times are epoch milliseconds between 1970 and
the year 9999; ``everyMs`` is at most a century.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from desktop.core.utils.validate_fields import BadRecord, Fields

ScheduleKind = Literal["at", "every", "cron"]
SCHEDULE_KINDS = ("at", "every", "cron")
HISTORY_LIMIT = 10
MAX_MS = 253_370_764_800_000  # 9999-01-01T00:00:00Z
MAX_EVERY_MS = 100 * 365 * 24 * 3600 * 1000


def _ms(fields: Fields, camel: str, snake: str, *, required: bool = False) -> int | None:
    return fields.integer(camel, snake, maximum=MAX_MS, required=required)


@dataclass
class CronSchedule:
    """When a job runs: once (``at``), on an interval (``every``) or a cron expression."""

    kind: ScheduleKind
    at_ms: int | None = None
    every_ms: int | None = None
    expr: str | None = None
    tz: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {"kind", "atMs", "at_ms", "everyMs", "every_ms", "expr", "tz"}
    )

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
    def from_json(
        cls, data: Any, problems: list[str] | None = None, where: str = "schedule"
    ) -> CronSchedule:
        """Read a schedule; :class:`BadRecord` when its kind or its kind's value is unusable."""
        fields = Fields(data, where, [] if problems is None else problems)
        kind = fields.text("kind", required=True)
        if kind not in SCHEDULE_KINDS:
            raise BadRecord(f"{where}.kind {kind!r} is not at, every or cron")
        at_ms = _ms(fields, "atMs", "at_ms", required=kind == "at")
        every_ms = fields.integer(
            "everyMs", "every_ms", minimum=1, maximum=MAX_EVERY_MS, required=kind == "every"
        )
        expr = fields.text("expr", required=kind == "cron")
        return cls(
            kind=kind,  # type: ignore[arg-type]  # checked against SCHEDULE_KINDS above
            at_ms=at_ms,
            every_ms=every_ms,
            expr=expr,
            tz=fields.text("tz"),
            extra=fields.extras(cls._KEYS),
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

    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {
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
    )

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
    def from_json(
        cls, data: Any, problems: list[str] | None = None, where: str = "payload"
    ) -> CronPayload:
        """Read a payload (``null`` gives the defaults); a message that is not text is fatal."""
        fields = Fields({} if data is None else data, where, [] if problems is None else problems)
        if not isinstance(fields.data.get("message"), str | None):
            raise BadRecord(f"{where}.message is not text")
        return cls(
            kind=fields.text("kind") or "agent_turn",
            message=fields.text("message") or "",
            deliver=fields.flag("deliver", default=False),
            channel=fields.text("channel"),
            to=fields.text("to"),
            channel_meta=fields.mapping("channelMeta", "channel_meta"),
            session_key=fields.text("sessionKey", "session_key"),
            origin_channel=fields.text("originChannel", "origin_channel"),
            origin_chat_id=fields.text("originChatId", "origin_chat_id"),
            origin_metadata=fields.mapping("originMetadata", "origin_metadata"),
            extra=fields.extras(cls._KEYS),
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

    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {
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
    )

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
    def from_json(
        cls, data: Any, problems: list[str] | None = None, where: str = "run"
    ) -> CronRunRecord:
        """Read one past run (:class:`BadRecord` when it is not an object)."""
        fields = Fields(data, where, [] if problems is None else problems)
        return cls(
            run_at_ms=_ms(fields, "runAtMs", "run_at_ms") or 0,
            status=fields.text("status") or "ok",
            duration_ms=fields.integer("durationMs", "duration_ms") or 0,
            error=fields.text("error"),
            run_id=fields.text("runId", "run_id"),
            late=fields.flag("late", default=False),
            extra=fields.extras(cls._KEYS),
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

    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {
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
    )

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
    def from_json(
        cls, data: Any, problems: list[str] | None = None, where: str = "state"
    ) -> CronJobState:
        """Read the runtime state; anything unusable falls back to "no state yet"."""
        problems = [] if problems is None else problems
        if data is not None and not isinstance(data, dict):
            problems.append(f"{where}: expected an object; using an empty state")
            data = None
        fields = Fields({} if data is None else data, where, problems)
        history: list[CronRunRecord] = []
        for index, raw in enumerate(fields.items("runHistory", "run_history")):
            try:
                history.append(
                    CronRunRecord.from_json(raw, problems, f"{where}.runHistory[{index}]")
                )
            except BadRecord as exc:
                problems.append(f"{exc}; dropped")
        return cls(
            next_run_at_ms=_ms(fields, "nextRunAtMs", "next_run_at_ms"),
            last_run_at_ms=_ms(fields, "lastRunAtMs", "last_run_at_ms"),
            last_status=fields.text("lastStatus", "last_status"),
            last_error=fields.text("lastError", "last_error"),
            history=history[-HISTORY_LIMIT:],
            extra=fields.extras(cls._KEYS),
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

    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {
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
    )

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
    def from_json(cls, data: Any, problems: list[str] | None = None, where: str = "job") -> CronJob:
        """Read a job field by field (see the module docstring).

        Args:
            data: The parsed JSON object.
            problems: Receives one text per field that fell back to its default.
            where: How problem texts name this job.

        Raises:
            BadRecord: The job cannot be used (no usable id, schedule or message).
        """
        problems = [] if problems is None else problems
        fields = Fields(data, where, problems)
        raw_id = fields.data.get("id")
        if isinstance(raw_id, int) and not isinstance(raw_id, bool):
            raw_id = str(raw_id)
        if not isinstance(raw_id, str) or not raw_id.strip():
            raise BadRecord(f"{where}.id is missing or not text")
        where = f"{where} ({raw_id[:40]})"
        fields.where = where
        return cls(
            id=raw_id,
            name=fields.text("name") or raw_id,
            enabled=fields.flag("enabled", default=True, invalid=False),
            schedule=CronSchedule.from_json(
                fields.data.get("schedule"), problems, f"{where}.schedule"
            ),
            payload=CronPayload.from_json(fields.data.get("payload"), problems, f"{where}.payload"),
            state=CronJobState.from_json(fields.data.get("state"), problems, f"{where}.state"),
            delete_after_run=fields.flag("deleteAfterRun", "delete_after_run", default=False),
            created_at_ms=_ms(fields, "createdAtMs", "created_at_ms") or 0,
            updated_at_ms=_ms(fields, "updatedAtMs", "updated_at_ms") or 0,
            extra=fields.extras(cls._KEYS),
        )
