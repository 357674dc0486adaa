"""Errors raised while loading or saving the config."""

from __future__ import annotations

from pathlib import Path

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

# The message: where, then why (the reason may itself be a phrase; the window translates both).
_WHERE = {
    (False, False): QT_TR_NOOP("{path}: {reason}"),
    (True, False): QT_TR_NOOP("{path}, line {line}: {reason}"),
    (False, True): QT_TR_NOOP("{path}: field '{field}': {reason}"),
    (True, True): QT_TR_NOOP("{path}, line {line}: field '{field}': {reason}"),
}


class ConfigError(Exception):
    """A config file that cannot be used, with where and why.

    Attributes:
        path: The file.
        line: 1-based line of the problem, when known.
        field: Dotted path of the offending field, when known.
        reason: Human-readable explanation (a :class:`~desktop.core.utils.i18n.Phrase` when
            it is our wording).

    The message (the one argument) is a phrase: English, translated where the window shows it.
    """

    def __init__(
        self, path: Path, reason: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.reason = reason
        fields: dict[str, object] = {"path": str(path), "reason": reason}
        if line:
            fields["line"] = line
        if field:
            fields["field"] = field
        super().__init__(Phrase(_WHERE[(bool(line), bool(field))], **fields))
