"""Notices: a problem worth telling the person, logged once per process.

Each notice goes to the ``desktop.core.notices`` logger as a warning, which the command line
echoes to stderr. Below :mod:`desktop.core.utils.ownfiles` and
:mod:`desktop.core.utils.validate_aside`, which both report through it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

NOTICE_LOGGER = "desktop.core.notices"

log = logging.getLogger(NOTICE_LOGGER)
_reported: set[str] = set()
_reported_lock = threading.Lock()


def notify(message: str, *, key: str | None = None) -> bool:
    """Log ``message`` as a warning once per process (per ``key`` when given).

    Returns:
        Whether it was logged now (``False``: already reported).
    """
    with _reported_lock:
        token = key or message
        if token in _reported:
            return False
        _reported.add(token)
    log.warning("%s", message)
    return True


def summarize(problems: Sequence[str], limit: int = 3) -> str:
    """The first ``limit`` problems joined by ``; `` plus "and N more".

    A phrase: the window translates "and N more" and every problem that is a phrase itself;
    logs and the CLI see the English.
    """
    shown: str = problems[0] if problems else ""
    for problem in problems[1:limit]:
        shown = Phrase(QT_TR_NOOP("{problems}; {problem}"), problems=shown, problem=problem)
    rest = len(problems) - limit
    if rest <= 0:
        return shown
    return Phrase(QT_TR_NOOP("{problems}; and {count} more"), problems=shown, count=rest)


def reset_notices() -> None:
    """Forget which notices were logged (each is logged again on its next occurrence)."""
    with _reported_lock:
        _reported.clear()
