"""Keep secrets out of error text, logs and tool results.

Two layers: every secret value this process has loaded is registered with :func:`register_secret`
and replaced wherever it appears; on top of that, patterns that look like credentials (``sk-…``,
``Bearer …``, ``api_key=…``) are masked even when we never saw the value.

Tool results use only the first layer (:func:`redact_known`): the model reads and edits code,
and masking everything shaped like ``token = …`` would garble the files it works on.

What the app itself puts into a prompt from files (the bootstrap files, ``MEMORY.md``, skills,
the history log, Dream's view of the memory files) goes through :func:`redact_for_prompt`:
known secrets, values shaped like credentials, and secret fields of a JSON document
(``"apiKey": "…"``, ``"botToken": "…"``: a copy of ``config.json``), but not assignments in
code, which skills and notes quote.
"""

from __future__ import annotations

import logging
import re
import threading

_MASK = "[REDACTED]"
_lock = threading.Lock()
_known: set[str] = set()

# Shapes of common credentials; deliberately broad, false positives only cost a mask.
_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\b(?:xox[abpr]-|xapp-|ghp_|gho_|ghs_|github_pat_|hf_|gsk_)[-_A-Za-z0-9]{10,}"),
    re.compile(r"\bAIza[-_A-Za-z0-9]{30,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-~+/=]{8,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|x-api-key|authorization|token|secret|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{6,}"
    ),
)


# The credential shapes of _PATTERNS that need no key name (the value alone gives it away).
_VALUE_PATTERNS = _PATTERNS[:4]
# A secret field of a JSON document with a quoted value: ``"apiKey": "…"``, ``"appSecret": "…"``.
_JSON_FIELD = re.compile(
    r"""(?i)("[A-Za-z0-9_\-]*(?:api[_-]?key|token|secret|password|passwd)[A-Za-z0-9_\-]*"\s*:\s*")((?:[^"\\\s]|\\.){6,})(")"""
)


def register_secret(value: str | None) -> None:
    """Remember a secret so that :func:`redact` masks it wherever it appears.

    Values shorter than 6 characters are ignored: masking them would garble ordinary text.
    """
    if value and len(value) >= 6:
        with _lock:
            _known.add(value)


def redact_known(text: object) -> str:
    """Return ``str(text)`` with every registered secret masked (and nothing else changed)."""
    result = str(text)
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for value in known:
        if value in result:
            result = result.replace(value, _MASK)
    return result


def redact(text: object) -> str:
    """Return ``str(text)`` with known secrets and credential-shaped strings masked."""
    result = redact_known(text)
    for pattern in _PATTERNS:
        if pattern.groups:
            result = pattern.sub(lambda m: m.group(1) + _MASK, result)
        else:
            result = pattern.sub(_MASK, result)
    return result


def redact_for_prompt(text: str) -> str:
    """``text`` from a file, made safe to send to a model provider.

    Masks every registered secret, values shaped like credentials (``sk-…``, ``ghp_…``,
    ``Bearer …``) and the values of secret fields in JSON (``"apiKey": "…"``); code such as
    ``api_key = os.environ["KEY"]`` is left as it is.
    """
    result = redact_known(text)
    for pattern in _VALUE_PATTERNS:
        if pattern.groups:
            result = pattern.sub(lambda m: m.group(1) + _MASK, result)
        else:
            result = pattern.sub(_MASK, result)
    return _JSON_FIELD.sub(lambda m: m.group(1) + _MASK + m.group(3), result)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts the formatted message and any exception text."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact ``record`` in place; always keep it."""
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format string must not lose the record
            message = str(record.msg)
        record.msg = redact(message)
        record.args = None
        if record.exc_info:
            formatter = logging.Formatter()
            record.exc_text = redact(formatter.formatException(record.exc_info))
            record.exc_info = None
        return True
