"""Helpers shared by the headless commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # keep `import desktop.cli.*` cheap: pydantic loads when a command runs
    from desktop.core.config.schema import Config

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def fail(message: str, code: int = EXIT_USAGE) -> int:
    """Print ``message`` to standard error and return ``code``."""
    print(f"nanobot-desktop: {message}", file=sys.stderr)
    return code


def load(args: argparse.Namespace) -> Config | None:
    """Load the config named by ``--config``/``--workspace``; print the error and return
    ``None`` when it cannot be used. Also starts the rotating log beside the config."""
    from desktop.core.config.errors import ConfigError
    from desktop.core.config.loader import config_origin, load_config
    from desktop.core.config.paths import log_dir
    from desktop.core.utils.logs import setup_logging

    path = Path(args.config).expanduser() if getattr(args, "config", None) else None
    workspace = Path(args.workspace).expanduser() if getattr(args, "workspace", None) else None
    try:
        config = load_config(path, workspace=workspace)
    except ConfigError as exc:
        fail(f"cannot use the config: {exc}\nThe file was not changed; fix it and try again.")
        return None
    setup_logging(log_dir(config_origin(config).path))
    for warning in config_origin(config).warnings:
        print(f"warning: {warning}", file=sys.stderr)
    echo_notices()
    return config


def echo_notices() -> None:
    """Print the core's notices about damaged files (set aside, defaults used) to stderr,
    one ``warning:`` line each, as they happen."""
    import logging

    from desktop.core.utils.redact import RedactingFilter
    from desktop.core.utils.validate import NOTICE_LOGGER

    logger = logging.getLogger(NOTICE_LOGGER)
    if any(getattr(h, "_nanobot_echo", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("warning: %(message)s"))
    handler.addFilter(RedactingFilter())
    handler._nanobot_echo = True  # type: ignore[attr-defined]  # a marker: the next call and the tests find it
    logger.addHandler(handler)
