"""The workspace's trigger store and delivery queue, in nanobot 0.3.5's layout.

``<workspace>/triggers/``:

* ``triggers.json`` — ``{"version": 1, "triggers": [...]}`` (see :class:`Trigger`);
* ``inbox/<createdAtMs>-<deliveryId>.json`` — ``{"version": 1, "delivery": {...}}``, queued by
  the command line; ``processing/`` while a runtime delivers it; ``failed/`` after
  :data:`MAX_ATTEMPTS` tries (``*.bad``: a file that could not be read);
* ``runs/<deliveryId>.json`` — an audit record per delivery (``queued``, ``processing``,
  ``ok``, ``error``, ``retrying``, ``interrupted``);
* ``.lock`` — the inter-process lock nanobot takes too, held for every read and write.

So a trigger made by either program fires in the other, and whichever runtime (ours or
nanobot's gateway) claims a queued delivery first delivers it — once. Every file is written
atomically. A ``triggers.json`` that cannot be read is copied aside
(``triggers.json.corrupt-<time>``), left in place and never overwritten: the store refuses to
change it until the person looks.

Synchronous (file locks and I/O): the runtime calls it through ``asyncio.to_thread``.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
import uuid
from contextlib import suppress
from pathlib import Path
from typing import Any

from filelock import FileLock

from desktop.core.triggers.types import MAX_RUN_HISTORY, Delivery, RunRecord, Trigger
from desktop.core.utils.atomic import atomic_write_text, set_aside
from desktop.core.utils.validate import notify, parse_json

log = logging.getLogger(__name__)

ID_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MAX_ATTEMPTS = 10
RECORD_TEXT_MAX = 4000
TRUNCATED = "\n... (truncated)"
RECOVERED = "delivery was recovered from interrupted processing"


class TriggerStoreError(RuntimeError):
    """The store cannot be used (an unreadable ``triggers.json``)."""


class TriggerNotFound(TriggerStoreError):
    """No trigger has that id."""


class TriggerDisabled(TriggerStoreError):
    """The trigger is turned off."""


def now_ms() -> int:
    """Milliseconds since the epoch."""
    return int(time.time() * 1000)


def clean_name(name: str) -> str:
    """One line of at most 120 characters (``Local trigger`` when empty), as 0.3.5 keeps it."""
    return (" ".join(name.split()) or "Local trigger")[:120]


def record_text(text: str) -> str:
    """``text`` cut to what a run record keeps."""
    return text if len(text) <= RECORD_TEXT_MAX else text[:RECORD_TEXT_MAX] + TRUNCATED


class TriggerStore:
    """The triggers of one workspace.

    Args:
        workspace: The agent's workspace folder.
    """

    def __init__(self, workspace: Path) -> None:
        self.root = Path(workspace) / "triggers"
        self.store_path = self.root / "triggers.json"
        self.inbox = self.root / "inbox"
        self.processing = self.root / "processing"
        self.failed = self.root / "failed"
        self.runs = self.root / "runs"
        self._lock = FileLock(str(self.root / ".lock"))

    # -- triggers ---------------------------------------------------------------------
    def create(
        self,
        *,
        name: str,
        channel: str,
        chat_id: str,
        session_key: str,
        origin_metadata: dict[str, Any] | None = None,
    ) -> Trigger:
        """Make a trigger bound to a chat.

        Raises:
            ValueError: ``channel``, ``chat_id`` or ``session_key`` is empty.
            TriggerStoreError: ``triggers.json`` cannot be read.
        """
        channel, chat_id, session_key = channel.strip(), chat_id.strip(), session_key.strip()
        if not channel or not chat_id or not session_key:
            raise ValueError("channel, chat_id, and session_key are required")
        stamp = now_ms()
        with self._locked():
            triggers = self._load()
            taken = {t.id for t in triggers}
            trigger_id = next((c for c in (_new_id() for _ in range(100)) if c not in taken), None)
            if trigger_id is None:
                raise TriggerStoreError("could not allocate a unique trigger id")
            trigger = Trigger(
                id=trigger_id,
                name=clean_name(name),
                enabled=True,
                channel=channel,
                chat_id=chat_id,
                session_key=session_key,
                origin_metadata=dict(origin_metadata or {}),
                created_at_ms=stamp,
                updated_at_ms=stamp,
            )
            self._save([*triggers, trigger])
        return trigger

    def triggers(self, *, include_disabled: bool = True) -> list[Trigger]:
        """Every trigger, the last changed first."""
        with self._locked():
            triggers = self._load()
        shown = [t for t in triggers if include_disabled or t.enabled]
        return sorted(shown, key=lambda t: (t.updated_at_ms, t.id), reverse=True)

    def get(self, trigger_id: str) -> Trigger | None:
        """One trigger, or ``None``."""
        with self._locked():
            return _find(self._load(), trigger_id.strip())

    def enable(self, trigger_id: str, *, enabled: bool) -> Trigger | None:
        """Turn a trigger on or off; ``None`` when there is none with that id."""
        with self._locked():
            triggers = self._load()
            trigger = _find(triggers, trigger_id.strip())
            if trigger is not None:
                trigger.enabled = enabled
                trigger.updated_at_ms = now_ms()
                self._save(triggers)
            return trigger

    def delete(self, trigger_id: str) -> bool:
        """Remove a trigger and its queued deliveries; whether there was one."""
        trigger_id = trigger_id.strip()
        with self._locked():
            triggers = self._load()
            kept = [t for t in triggers if t.id != trigger_id]
            if len(kept) == len(triggers):
                return False
            self._save(kept)
            for folder in (self.inbox, self.processing, self.failed):
                for path in folder.glob("*.json"):
                    if _delivery_trigger(path) == trigger_id:
                        path.unlink(missing_ok=True)
            return True

    # -- the queue --------------------------------------------------------------------
    def enqueue(self, trigger_id: str, content: str) -> Delivery:
        """Queue ``content`` for the trigger (a runtime delivers it).

        Raises:
            ValueError: The message is empty.
            TriggerNotFound: No such trigger.
            TriggerDisabled: The trigger is off.
            TriggerStoreError: ``triggers.json`` cannot be read.
        """
        trigger_id = trigger_id.strip()
        if not content.strip():
            raise ValueError("trigger message is required")
        with self._locked():
            triggers = self._load()
            trigger = _find(triggers, trigger_id)
            if trigger is None:
                raise TriggerNotFound(f"trigger not found: {trigger_id}")
            if not trigger.enabled:
                raise TriggerDisabled(f"trigger is disabled: {trigger_id}")
            delivery = Delivery(f"tdl_{uuid.uuid4().hex[:12]}", trigger_id, content, now_ms())
            path = self.inbox / f"{delivery.created_at_ms}-{delivery.id}.json"
            _write(path, _payload(delivery))
            delivery.path = path
            try:
                self._run_record(delivery, trigger, "queued")
                trigger.last_message = record_text(content)
                trigger.updated_at_ms = delivery.created_at_ms
                self._save(triggers)
            except BaseException:
                path.unlink(missing_ok=True)
                (self.runs / f"{delivery.id}.json").unlink(missing_ok=True)
                raise
        return delivery

    def pending(self) -> bool:
        """Whether a delivery waits in the inbox (cheap: no lock, no parsing)."""
        with suppress(OSError):
            return any(p.suffix == ".json" for p in self.inbox.iterdir())
        return False

    def claim(self, *, limit: int = 20) -> list[Delivery]:
        """Move up to ``limit`` queued deliveries (oldest first) to ``processing/`` and
        return them; an unreadable one goes to ``failed/`` as ``*.bad``."""
        claimed: list[Delivery] = []
        with self._locked():
            for path in sorted(self.inbox.glob("*.json"))[: max(0, limit)]:
                delivery = self._read_delivery(path, self.processing / path.name)
                if delivery is None:
                    continue
                os.replace(path, self.processing / path.name)
                claimed.append(delivery)
        return claimed

    def recover(self) -> int:
        """Queue again what a runtime that stopped mid-delivery left in ``processing/``;
        how many."""
        recovered = 0
        with self._locked():
            for path in sorted(self.processing.glob("*.json")):
                delivery = self._read_delivery(path, path)
                if delivery is not None and self._retry(delivery, RECOVERED):
                    recovered += 1
        return recovered

    def complete(self, delivery: Delivery) -> None:
        """A claimed delivery was handled: remove its file."""
        if delivery.path is not None:
            with self._locked():
                delivery.path.unlink(missing_ok=True)

    def retry(self, delivery: Delivery, error: str) -> bool:
        """Queue a claimed delivery again, or (after :data:`MAX_ATTEMPTS`) move it to
        ``failed/``; whether it was queued again."""
        with self._locked():
            return self._retry(delivery, error)

    def record(self, trigger_id: str, *, ok: bool, error: str | None = None, at_ms: int) -> None:
        """Note a delivery's outcome on its trigger (``last*`` fields, ``runHistory``)."""
        with self._locked():
            triggers = self._load()
            trigger = _find(triggers, trigger_id)
            if trigger is None:
                return
            trigger.last_run_at_ms = at_ms
            trigger.last_status = "ok" if ok else "error"
            trigger.last_error = None if ok else (error or "delivery failed")
            trigger.updated_at_ms = now_ms()
            trigger.run_history.append(RunRecord(at_ms, trigger.last_status, trigger.last_error))
            trigger.run_history = trigger.run_history[-MAX_RUN_HISTORY:]
            self._save(triggers)

    def run_record(
        self,
        delivery: Delivery,
        status: str,
        *,
        trigger: Trigger | None = None,
        error: str | None = None,
        response: str | None = None,
    ) -> None:
        """Write the delivery's audit record in ``runs/`` (replacing the previous one)."""
        with self._locked():
            if trigger is None:
                trigger = _find(self._load(), delivery.trigger_id)
            self._run_record(delivery, trigger, status, error=error, response=response)

    # -- inside the lock --------------------------------------------------------------
    def _locked(self) -> FileLock:
        for folder in (self.inbox, self.processing, self.failed, self.runs):
            folder.mkdir(parents=True, exist_ok=True)
        return self._lock

    def _load(self) -> list[Trigger]:
        if not self.store_path.exists():
            return []
        try:
            data = parse_json(self.store_path.read_bytes())
            if not isinstance(data, dict) or not isinstance(data.get("triggers", []), list):
                raise ValueError("not a trigger store")
            return [
                Trigger.from_dict(raw) for raw in data.get("triggers", []) if isinstance(raw, dict)
            ]
        except (OSError, ValueError) as exc:
            aside = set_aside(self.store_path, "corrupt")
            notify(f"{self.store_path} could not be read ({exc}); a copy is kept at {aside}")
            raise TriggerStoreError(
                f"trigger store at {self.store_path} could not be loaded; a copy is kept at "
                f"{aside} and the file is left as it is"
            ) from exc

    def _save(self, triggers: list[Trigger]) -> None:
        payload = {"version": 1, "triggers": [t.to_dict() for t in triggers]}
        atomic_write_text(self.store_path, json.dumps(payload, indent=2, ensure_ascii=False))

    def _read_delivery(self, path: Path, claimed_path: Path) -> Delivery | None:
        try:
            data = parse_json(path.read_bytes())
            raw = data.get("delivery", data) if isinstance(data, dict) else None
            if not isinstance(raw, dict):
                raise ValueError("not a delivery")
            return Delivery.from_dict(raw, path=claimed_path)
        except (OSError, ValueError) as exc:
            log.warning("trigger delivery %s cannot be read (%s); moved to failed/", path, exc)
            with suppress(OSError):
                os.replace(path, self.failed / f"{path.name}.bad")
            return None

    def _retry(self, delivery: Delivery, error: str) -> bool:
        if delivery.path is None:
            return False
        delivery.attempts += 1
        delivery.last_error = error
        again = delivery.attempts < MAX_ATTEMPTS
        folder = self.inbox if again else self.failed
        _write(folder / delivery.path.name, _payload(delivery))
        delivery.path.unlink(missing_ok=True)
        return again

    def _run_record(
        self,
        delivery: Delivery,
        trigger: Trigger | None,
        status: str,
        *,
        error: str | None = None,
        response: str | None = None,
    ) -> None:
        record: dict[str, Any] = {
            "kind": "local_trigger",
            "trigger_id": delivery.trigger_id,
            "delivery_id": delivery.id,
            "content": record_text(delivery.content),
            "created_at_ms": delivery.created_at_ms,
            "attempts": delivery.attempts,
        }
        if delivery.last_error:
            record["last_error"] = record_text(delivery.last_error)
        if trigger is not None:
            record.update(
                trigger_name=trigger.name,
                session_key=trigger.session_key,
                channel=trigger.channel,
                chat_id=trigger.chat_id,
                sender_id=trigger.sender_id,
                origin_metadata=trigger.origin_metadata,
            )
        record["status"] = status
        if error:
            record["error"] = record_text(error)
        if response is not None:
            record["response"] = record_text(response)
        name = "".join(c if c.isalnum() or c in "._-" else "_" for c in delivery.id)
        record.update(run_id=delivery.id, updated_at_ms=now_ms())
        atomic_write_text(
            self.runs / f"{name or uuid.uuid4()}.json",
            json.dumps(record, indent=2, ensure_ascii=False),
        )


def _new_id() -> str:
    return "trg_" + "".join(secrets.choice(ID_ALPHABET) for _ in range(8))


def _find(triggers: list[Trigger], trigger_id: str) -> Trigger | None:
    return next((t for t in triggers if t.id == trigger_id), None)


def _payload(delivery: Delivery) -> str:
    return json.dumps({"version": 1, "delivery": delivery.to_dict()}, ensure_ascii=False)


def _write(path: Path, text: str) -> None:
    atomic_write_text(path, text)


def _delivery_trigger(path: Path) -> str | None:
    try:
        data = parse_json(path.read_bytes())
    except (OSError, ValueError):
        return None
    raw = data.get("delivery", data) if isinstance(data, dict) else None
    value = raw.get("triggerId", raw.get("trigger_id")) if isinstance(raw, dict) else None
    return str(value) if value else None
