"""Which workspace files Dream may change: one rule for its tools and for stored proposals.

Dream may change the three memory files (``SOUL.md``, ``USER.md``, ``memory/MEMORY.md``) and
the files of workspace skills (``skills/<name>/…``), nothing else. :func:`dream_refusal` says
why a path is outside that set (``None``: inside). Dream's phase-2 tools apply it to the path
they resolved (:mod:`desktop.core.memory.dream_tools`); a stored proposal applies it to each
of its file entries (:func:`desktop.core.memory.proposal.parse_proposal`), so an entry naming
anything else is refused, shown as refused, and never written.

A path is a workspace-relative POSIX path spelled exactly: no absolute path, drive, ``.`` or
``..`` component, empty component, backslash, colon or NUL; no control or format characters
(a right-to-left override would make the path shown differ from the one written); Unicode in
NFC form only (so one name has one spelling); no component starting with ``.`` (``.git``,
hidden state) or ending with a space or a dot (Windows drops those). Names are compared
exactly, so ``soul.md`` is not ``SOUL.md`` even where the file system ignores case.
"""

from __future__ import annotations

import unicodedata

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

MEMORY_FILES = ("memory/MEMORY.md", "SOUL.md", "USER.md")
SKILLS_FOLDER = "skills"
MAX_PATH_CHARS = 1024
MAX_NAME_CHARS = 255
MAX_SKILL_DEPTH = 8


def path_problem(path: object) -> str | None:  # noqa: C901  # one check per way a path can leave the workspace
    """Why ``path`` is not a plain workspace-relative path (see the module docstring).

    Returns:
        The reason, or ``None`` when it is one.
    """
    if not isinstance(path, str) or not path:
        return Phrase(QT_TR_NOOP("the path is empty"))
    if len(path) > MAX_PATH_CHARS:
        return Phrase(
            QT_TR_NOOP("the path is longer than {count} characters"), count=MAX_PATH_CHARS
        )
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return Phrase(QT_TR_NOOP("it is an absolute path"))
    if unicodedata.normalize("NFC", path) != path:
        return Phrase(QT_TR_NOOP("its characters are not in the one canonical (NFC) spelling"))
    for char in path:
        if char in "\\:\x00" or unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            return Phrase(QT_TR_NOOP("it contains the character {code}"), code=f"U+{ord(char):04X}")
    for name in path.split("/"):
        if name in ("", ".", ".."):
            return Phrase(QT_TR_NOOP("it has an empty, '.' or '..' component"))
        if name.startswith("."):
            return Phrase(
                QT_TR_NOOP("its component {name} is hidden (starts with '.')"), name=repr(name)
            )
        if name != name.rstrip(" ."):
            return Phrase(
                QT_TR_NOOP("its component {name} ends with a space or a dot"), name=repr(name)
            )
        if len(name) > MAX_NAME_CHARS:
            return Phrase(
                QT_TR_NOOP("a component is longer than {count} characters"), count=MAX_NAME_CHARS
            )
    return None


def dream_refusal(path: object) -> str | None:
    """Why Dream may not change the workspace file ``path`` (``None``: it may).

    Args:
        path: Workspace-relative POSIX path (as a proposal stores it).

    Returns:
        One clause for the person, e.g. ``"it is an absolute path"``.
    """
    problem = path_problem(path)
    if problem is not None:
        return problem
    assert isinstance(path, str)
    if path in MEMORY_FILES:
        return None
    parts = path.split("/")
    if parts[0] == SKILLS_FOLDER and 3 <= len(parts) <= MAX_SKILL_DEPTH + 1:
        return None
    return Phrase(
        QT_TR_NOOP(
            "Dream may only change SOUL.md, USER.md, memory/MEMORY.md and files of workspace "
            "skills (skills/<name>/…)"
        )
    )


def shown_path(path: object, limit: int = 120) -> str:
    """``path`` as safe text for a message: control and format characters escaped, cut."""
    text = path if isinstance(path, str) else repr(path)
    out = "".join(
        f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") else c
        for c in text[: limit + 1]
    )
    return out if len(text) <= limit else out[:limit] + "…"
