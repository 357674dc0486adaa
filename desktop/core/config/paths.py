"""Where things live: config file, workspace, logs."""

from __future__ import annotations

from pathlib import Path

APP_NAME = "nanobot-desktop"


def nanobot_home() -> Path:
    """``~/.nanobot``: nanobot's home, shared with the original nanobot."""
    return Path.home() / ".nanobot"


def default_config_path() -> Path:
    """``~/.nanobot/config.json``."""
    return nanobot_home() / "config.json"


def log_dir(config_path: Path) -> Path:
    """Folder for our rotating log: ``logs/`` beside the config file."""
    return config_path.expanduser().parent / "logs"
