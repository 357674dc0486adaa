"""Logging set-up: a rotating file under the config directory, secrets redacted."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from desktop.core.utils.redact import RedactingFilter

LOG_FILE_NAME = "nanobot-desktop.log"


def setup_logging(log_dir: Path, *, level: int = logging.INFO, stderr: bool = False) -> Path:
    """Send the ``desktop`` and ``litellm`` loggers to a rotating, redacted log file.

    Args:
        log_dir: Folder for the log file (created when missing).
        level: Minimum level written.
        stderr: Also echo warnings and errors to standard error (redacted too).

    Returns:
        The path of the log file.
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / LOG_FILE_NAME
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_nanobot_desktop", False):
            root.removeHandler(old)
            old.close()
    handler._nanobot_desktop = True  # type: ignore[attr-defined]  # a marker the next call finds
    root.addHandler(handler)
    if stderr:
        err = logging.StreamHandler()
        err.setLevel(logging.WARNING)
        err.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        err.addFilter(RedactingFilter())
        err._nanobot_desktop = True  # type: ignore[attr-defined]  # a marker the next call finds
        root.addHandler(err)
    root.setLevel(level)
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # websockets logs whole frames at DEBUG, cut short: a cut secret (WeCom's subscribe frame,
    # a ?token= in a URL) no longer matches the redaction, so its frames never reach the log.
    logging.getLogger("websockets").setLevel(logging.INFO)
    return path
