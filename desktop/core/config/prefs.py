"""Desktop-only preferences in ``desktop.json`` beside ``config.json``.

nanobot 0.3.5 rejects unknown top-level keys in ``config.json``, so settings that only the
window knows about (theme, close-to-tray, tool approval…) live in their own file, camelCase like
the config. Unknown keys are kept on save; writes are atomic. Loading never raises: the file is
read with the shared tolerant reader and validated field by field
(:func:`~desktop.core.config.validate.validate_fields`) — a value that does not fit gets its
default, the other settings are kept; a file that cannot be used at all gets the defaults.
Either way the file is first copied aside byte-exact (``desktop.json.corrupt-<time>``, an
identical earlier copy reused) and :attr:`DesktopPrefs.load_warning` says what happened.

Qt-free: the window subscribes to :class:`PrefsStore` to re-apply a changed theme.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from pydantic.alias_generators import to_camel

from desktop.core.config import product
from desktop.core.config.budgets import Budgets
from desktop.core.config.prefs_peek import PREFS_FILE_NAME, prefs_path
from desktop.core.config.sandbox_settings import SandboxPrefs
from desktop.core.config.validate import validate_fields
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.validate import (
    Unusable,
    move_aside,
    read_document,
    set_aside_file,
    summarize,
)

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
Language = Literal["system", "en", "zh_CN"]
DiffDisplay = Literal["summary", "inline", "collapsed"]
ApprovalMode = Literal["ask", "autonomous"]
MAX_APPROVAL_TIMEOUT_MIN = 24 * 60
ApprovalTimeout = Annotated[int, Field(ge=1, le=MAX_APPROVAL_TIMEOUT_MIN)]
PrefsListener = Callable[[set[str]], None]


class DesktopPrefs(BaseModel):
    """Settings of the desktop app (not of the agent).

    Attributes:
        appearance: ``system`` follows the desktop's colour scheme.
        language: The window's language: ``system`` (the desktop's, when translated), ``en``
            or ``zh_CN``; used from the next start.
        close_to_tray: Closing the window hides it in the tray (only when a tray exists).
        approval_mode: ``ask`` before risky tool calls, or ``autonomous`` (nanobot's way).
        always_allowed_tools: Tools the person allowed for good ("Always allow this tool").
        approval_timeout_minutes: An unanswered approval request counts as denied after this
            many minutes (1 to 1440); ``None`` (JSON ``null``): wait until answered.
        start_at_login: Launch with the session (where the platform allows).
        reminders_paused: Reminders are counted as unread but do not pop up.
        window_geometry: ``QWidget.saveGeometry()`` as base64 text.
        recent_models: Models picked in the chat header, newest first
            (``{"model": ..., "provider": ...}``).
        budgets: Spend budgets (see :mod:`desktop.core.config.budgets`).
        review_dream: Dream stores a proposal the person reviews (accepts per file or per
            change, edits or rejects) instead of changing the memory files itself.
        sandbox: What sandboxed commands may see and their resource limits
            (:mod:`desktop.core.config.sandbox_settings`).
        diff_display: How file changes show in the chat's tool cards: ``summary`` (lines
            added and removed), ``inline`` (the diff) or ``collapsed`` (when opened).
        preview_width: Width in pixels of the chat's file preview pane, once resized.

    The file also holds ``configExtras``: agent settings nanobot 0.3.5 would drop from
    ``config.json`` (:mod:`desktop.core.config.product`; the config loader reads and writes
    them, this model keeps them as an extra key).
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", validate_assignment=True
    )

    appearance: Appearance = "system"
    language: Language = "system"
    close_to_tray: bool = True
    approval_mode: ApprovalMode = "ask"
    always_allowed_tools: list[str] = []
    approval_timeout_minutes: ApprovalTimeout | None = 10
    start_at_login: bool = False
    reminders_paused: bool = False
    window_geometry: str | None = None
    recent_models: list[dict[str, str]] = []
    budgets: Budgets = Budgets()
    review_dream: bool = False
    sandbox: SandboxPrefs = SandboxPrefs()
    diff_display: DiffDisplay = "inline"
    preview_width: Annotated[int, Field(ge=120, le=4000)] | None = None

    _load_warning: str | None = PrivateAttr(default=None)

    @property
    def load_warning(self) -> str | None:
        """Why the file on disk was not used (``None`` when it was fine or absent)."""
        return self._load_warning


def _kept_copy(path: Path) -> str:
    try:
        name = set_aside_file(path, "corrupt").name
    except OSError as exc:
        return Phrase(QT_TR_NOOP("no copy could be made ({error})"), error=str(exc))
    return Phrase(QT_TR_NOOP("it was kept as {name}"), name=name)


def _warn(prefs: DesktopPrefs, text: str) -> DesktopPrefs:
    prefs._load_warning = text
    log.warning(text)
    return prefs


def _defaults_with_warning(path: Path, reason: str) -> DesktopPrefs:
    template = QT_TR_NOOP(
        "The desktop settings file {path} could not be used ({reason}); {kept} and the "
        "defaults are in use."
    )
    return _warn(
        DesktopPrefs(), Phrase(template, path=str(path), reason=reason, kept=_kept_copy(path))
    )


def load_prefs(path: Path) -> DesktopPrefs:
    """Read ``path``; defaults when it is missing, field by field when partly unusable.

    Never raises for a bad file: :attr:`DesktopPrefs.load_warning` says what happened.
    """
    try:
        document = read_document(path)
    except Unusable as exc:
        if exc.kind in ("folder", "special"):
            try:
                moved = Phrase(QT_TR_NOOP("it was moved to {name}"), name=move_aside(path).name)
            except OSError as move_error:
                moved = Phrase(
                    QT_TR_NOOP("it could not be moved aside ({error})"), error=str(move_error)
                )
            template = QT_TR_NOOP(
                "The desktop settings file {path} {problem}; {moved} and the defaults are in use."
            )
            return _warn(
                DesktopPrefs(), Phrase(template, path=str(path), problem=exc.reason, moved=moved)
            )
        if exc.kind == "unreadable":
            template = QT_TR_NOOP("The desktop settings file {path} {problem}.")
            return _warn(DesktopPrefs(), Phrase(template, path=str(path), problem=exc.reason))
        return _defaults_with_warning(path, exc.reason)
    except OSError as exc:
        template = QT_TR_NOOP("The desktop settings file {path} cannot be read ({error}).")
        return _warn(DesktopPrefs(), Phrase(template, path=str(path), error=str(exc)))
    if document is None:
        return DesktopPrefs()
    data, problems = document
    if not isinstance(data, dict):
        return _defaults_with_warning(
            path, Phrase(QT_TR_NOOP("the top level is not a JSON object"))
        )
    prefs, dropped = validate_fields(DesktopPrefs, data)
    problems = problems + [f"{p.dotted}: {p.message}" for p in dropped]
    if problems:
        template = QT_TR_NOOP(
            "The desktop settings file {path} had values that could not be used ({problems}); "
            "{kept}, defaults replace those values and the other settings are kept."
        )
        fields = {"path": str(path), "problems": summarize(problems), "kept": _kept_copy(path)}
        _warn(prefs, Phrase(template, **fields))
    return prefs


def prefs_to_json(prefs: DesktopPrefs) -> dict[str, Any]:
    """The JSON object for ``prefs``: camelCase, unknown keys kept."""
    return prefs.model_dump(mode="json", by_alias=True)


def _field_keys() -> set[str]:
    return {info.alias or to_camel(name) for name, info in DesktopPrefs.model_fields.items()}


def save_prefs(prefs: DesktopPrefs, path: Path) -> None:
    """Write ``prefs`` to ``path`` atomically (private to the user).

    Keys that are not preferences (the agent settings in ``configExtras``, a newer version's
    keys) are taken from the file as it is now, under the lock their other writer holds too,
    so saving the preferences never undoes what was written there meanwhile.
    """
    data = prefs_to_json(prefs)
    fields = _field_keys()
    with product.lock_for(path):
        try:
            current = product.read_prefs_object(path)
        except OSError:
            current = {}  # the write below says what is wrong
        data.update({k: v for k, v in current.items() if k not in fields})
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
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
