"""Desktop-only preferences in ``desktop.json`` beside ``config.json``.

nanobot 0.3.5 rejects unknown top-level keys in ``config.json``, so settings that only the
window knows about (theme, close-to-tray, tool approval…) live in their own file, camelCase like
the config. Unknown keys are kept on save; writes are atomic; a file that cannot be used is
copied aside (``desktop.json.corrupt-<time>``) and the defaults are used, with a warning.

Qt-free: the window subscribes to :class:`PrefsStore` to re-apply a changed theme.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError
from pydantic.alias_generators import to_camel

from desktop.core.config.prefs_peek import PREFS_FILE_NAME, prefs_path
from desktop.core.utils.atomic import atomic_write_text, set_aside

log = logging.getLogger(__name__)

__all__ = [
    "PREFS_FILE_NAME",
    "DesktopPrefs",
    "PrefsStore",
    "load_prefs",
    "prefs_path",
    "save_prefs",
]

Appearance = Literal["system", "light", "dark"]
ApprovalMode = Literal["ask", "autonomous"]
PrefsListener = Callable[[set[str]], None]


class DesktopPrefs(BaseModel):
    """Settings of the desktop app (not of the agent).

    Attributes:
        appearance: ``system`` follows the desktop's colour scheme.
        close_to_tray: Closing the window hides it in the tray (only when a tray exists).
        approval_mode: ``ask`` before risky tool calls, or ``autonomous`` (nanobot's way).
        always_allowed_tools: Tools the person allowed for good ("Always allow this tool").
        start_at_login: Launch with the session (where the platform allows).
        reminders_paused: Reminders are counted as unread but do not pop up.
        window_geometry: ``QWidget.saveGeometry()`` as base64 text.
        recent_models: Models picked in the chat header, newest first
            (``{"model": ..., "provider": ...}``).
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", validate_assignment=True
    )

    appearance: Appearance = "system"
    close_to_tray: bool = True
    approval_mode: ApprovalMode = "ask"
    always_allowed_tools: list[str] = []
    start_at_login: bool = False
    reminders_paused: bool = False
    window_geometry: str | None = None
    recent_models: list[dict[str, str]] = []

    _load_warning: str | None = PrivateAttr(default=None)

    @property
    def load_warning(self) -> str | None:
        """Why the file on disk was not used (``None`` when it was fine or absent)."""
        return self._load_warning


def _defaults_with_warning(path: Path, reason: str) -> DesktopPrefs:
    copy = set_aside(path, "corrupt")
    prefs = DesktopPrefs()
    prefs._load_warning = (
        f"The desktop settings file {path} could not be used ({reason}); it was kept as "
        f"{copy.name} and the defaults are in use."
    )
    log.warning(prefs._load_warning)
    return prefs


def load_prefs(path: Path) -> DesktopPrefs:
    """Read ``path``; defaults when it is missing, set aside and defaults when it is unusable.

    Never raises for a bad file: :attr:`DesktopPrefs.load_warning` says what happened.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return DesktopPrefs()
    except (OSError, UnicodeDecodeError) as exc:
        if not path.is_file():
            prefs = DesktopPrefs()
            prefs._load_warning = f"The desktop settings file {path} cannot be read ({exc})."
            log.warning(prefs._load_warning)
            return prefs
        return _defaults_with_warning(path, f"cannot read it: {exc}")
    if not text.strip():
        return DesktopPrefs()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _defaults_with_warning(path, f"invalid JSON at line {exc.lineno}: {exc.msg}")
    if not isinstance(data, dict):
        return _defaults_with_warning(path, "the top level is not a JSON object")
    try:
        return DesktopPrefs.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return _defaults_with_warning(path, f"{where}: {first.get('msg', 'invalid value')}")


def prefs_to_json(prefs: DesktopPrefs) -> dict[str, Any]:
    """The JSON object for ``prefs``: camelCase, unknown keys kept."""
    return prefs.model_dump(mode="json", by_alias=True)


def save_prefs(prefs: DesktopPrefs, path: Path) -> None:
    """Write ``prefs`` to ``path`` atomically (private to the user)."""
    text = json.dumps(prefs_to_json(prefs), indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(path, text, mode=0o600)


class PrefsStore:
    """The loaded preferences plus change notification (Qt-free).

    Args:
        path: The ``desktop.json`` file.
        prefs: Already-loaded preferences; read from ``path`` when ``None``.

    Change a value with :meth:`update` (validated, listeners told which keys changed), then
    persist with ``await store.asave()`` from the GUI (a worker thread) or :meth:`save`.
    """

    def __init__(self, path: Path, prefs: DesktopPrefs | None = None) -> None:
        self.path = path
        self.prefs = prefs if prefs is not None else load_prefs(path)
        self._listeners: list[PrefsListener] = []

    @property
    def warning(self) -> str | None:
        """Why the file on disk was not used, if it was not."""
        return self.prefs.load_warning

    def subscribe(self, listener: PrefsListener) -> Callable[[], None]:
        """Call ``listener(changed_keys)`` after every :meth:`update`; returns an unsubscriber."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def update(self, **changes: Any) -> set[str]:
        """Set fields by snake_case name (validated); returns the names whose value changed.

        Raises:
            pydantic.ValidationError: A value does not fit; nothing is changed.
            AttributeError: An unknown field name.
        """
        fields = type(self.prefs).model_fields
        for name in changes:
            if name not in fields:
                raise AttributeError(f"unknown desktop preference {name!r}")
        candidate = self.prefs.model_copy(update={})
        for name, value in changes.items():
            setattr(candidate, name, value)  # validate_assignment checks each value
        changed = {n for n in changes if getattr(candidate, n) != getattr(self.prefs, n)}
        for name in changed:
            setattr(self.prefs, name, getattr(candidate, name))
        if changed:
            for listener in list(self._listeners):
                try:
                    listener(changed)
                except Exception:
                    log.exception("preferences listener failed")
        return changed

    def save(self) -> None:
        """Write the file now (blocking; use :meth:`asave` on the event loop)."""
        save_prefs(self.prefs, self.path)

    async def asave(self) -> None:
        """Write the file in a worker thread."""
        snapshot = self.prefs.model_copy(deep=True)
        await asyncio.to_thread(save_prefs, snapshot, self.path)
