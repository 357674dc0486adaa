"""What the trigger store keeps, in nanobot 0.3.5's JSON shape (camelCase keys; snake_case
read too, as 0.3.5 reads both)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_RUN_HISTORY = 20


def _pick(data: dict[str, Any], camel: str, snake: str, default: Any = None) -> Any:
    """``data[camel]``, else ``data[snake]``, else ``default``."""
    if camel in data:
        return data[camel]
    return data.get(snake, default)


def _int(value: Any, default: int | None = 0) -> int | None:
    """A stored number; null, blank or junk gives ``default``."""
    if value is None or value == "" or isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass
class RunRecord:
    """One delivery's outcome in a trigger's ``runHistory``."""

    run_at_ms: int
    status: str  # "ok" | "error"
    error: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        """Read one stored record."""
        status = str(data.get("status") or "error")
        return cls(
            run_at_ms=_int(_pick(data, "runAtMs", "run_at_ms")) or 0,
            status=status if status in ("ok", "error") else "error",
            error=_text(data.get("error")),
        )

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        return {"runAtMs": self.run_at_ms, "status": self.status, "error": self.error}


@dataclass
class Trigger:
    """A trigger bound to one chat (``channel``, ``chat_id``) and its session.

    Attributes:
        id: ``trg_`` and eight letters/digits (what the command line names).
        name: What the person called it (one line, at most 120 characters).
        enabled: A disabled trigger refuses deliveries.
        channel: The chat's channel.
        chat_id: The chat within the channel.
        session_key: The session its deliveries run in.
        sender_id: Who the delivered messages are from (``trigger``).
        origin_metadata: The metadata of the message that made it (kept for parity).
        created_at_ms: When it was made.
        updated_at_ms: When it last changed.
        last_message: The last delivered text (truncated).
        last_run_at_ms: When the last delivery ran.
        last_status: ``ok`` or ``error`` of the last delivery.
        last_error: Why the last delivery failed.
        run_history: The last :data:`MAX_RUN_HISTORY` outcomes.
    """

    id: str
    name: str
    enabled: bool
    channel: str
    chat_id: str
    session_key: str
    sender_id: str = "trigger"
    origin_metadata: dict[str, Any] = field(default_factory=dict)
    created_at_ms: int = 0
    updated_at_ms: int = 0
    last_message: str = ""
    last_run_at_ms: int | None = None
    last_status: str | None = None
    last_error: str | None = None
    run_history: list[RunRecord] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trigger:
        """Read one stored trigger.

        Raises:
            ValueError: It has no ``id``.
        """
        if not data.get("id"):
            raise ValueError("a trigger without an id")
        history = _pick(data, "runHistory", "run_history", []) or []
        origin = _pick(data, "originMetadata", "origin_metadata", {}) or {}
        return cls(
            id=str(data["id"]),
            name=str(data.get("name") or data["id"]),
            enabled=bool(data.get("enabled", True)),
            channel=str(data.get("channel") or ""),
            chat_id=str(_pick(data, "chatId", "chat_id", "") or ""),
            session_key=str(_pick(data, "sessionKey", "session_key", "") or ""),
            sender_id=str(_pick(data, "senderId", "sender_id", "") or "trigger"),
            origin_metadata=dict(origin) if isinstance(origin, dict) else {},
            created_at_ms=_int(_pick(data, "createdAtMs", "created_at_ms")) or 0,
            updated_at_ms=_int(_pick(data, "updatedAtMs", "updated_at_ms")) or 0,
            last_message=str(_pick(data, "lastMessage", "last_message", "") or ""),
            last_run_at_ms=_int(_pick(data, "lastRunAtMs", "last_run_at_ms"), None),
            last_status=_text(_pick(data, "lastStatus", "last_status")),
            last_error=_text(_pick(data, "lastError", "last_error")),
            run_history=[
                RunRecord.from_dict(item)
                for item in (history if isinstance(history, list) else [])
                if isinstance(item, dict)
            ],
        )

    def to_dict(self) -> dict[str, Any]:
        """The stored form (0.3.5's key order)."""
        return {
            "id": self.id,
            "name": self.name,
            "enabled": self.enabled,
            "channel": self.channel,
            "chatId": self.chat_id,
            "sessionKey": self.session_key,
            "senderId": self.sender_id,
            "originMetadata": self.origin_metadata,
            "createdAtMs": self.created_at_ms,
            "updatedAtMs": self.updated_at_ms,
            "lastMessage": self.last_message,
            "lastRunAtMs": self.last_run_at_ms,
            "lastStatus": self.last_status,
            "lastError": self.last_error,
            "runHistory": [record.to_dict() for record in self.run_history],
        }


@dataclass
class Delivery:
    """One message queued for a trigger (a file in ``inbox/``, then ``processing/``).

    Attributes:
        id: ``tdl_`` and twelve hex digits.
        trigger_id: The trigger it is for.
        content: The message.
        created_at_ms: When it was queued.
        attempts: Failed tries so far.
        last_error: Why the last try failed.
        path: The file it was read from (not stored).
    """

    id: str
    trigger_id: str
    content: str
    created_at_ms: int
    attempts: int = 0
    last_error: str | None = None
    path: Path | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, path: Path | None = None) -> Delivery:
        """Read one queued delivery (the ``delivery`` object of the file, or the file itself).

        Raises:
            ValueError: It has no ``id``.
        """
        if not data.get("id"):
            raise ValueError("a delivery without an id")
        return cls(
            id=str(data["id"]),
            trigger_id=str(_pick(data, "triggerId", "trigger_id", "") or ""),
            content=str(data.get("content") or ""),
            created_at_ms=_int(_pick(data, "createdAtMs", "created_at_ms")) or 0,
            attempts=_int(data.get("attempts")) or 0,
            last_error=_text(_pick(data, "lastError", "last_error")),
            path=path,
        )

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "id": self.id,
            "triggerId": self.trigger_id,
            "content": self.content,
            "createdAtMs": self.created_at_ms,
            "attempts": self.attempts,
            "lastError": self.last_error,
        }
