"""Timezone helpers: IANA name validation and the system zone."""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones


def is_valid_timezone(name: str) -> bool:
    """Return whether ``name`` is an IANA timezone name known to this system."""
    if not name or name.startswith("/") or ".." in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def system_timezone() -> str:
    """Best-effort IANA name of the system timezone, ``"UTC"`` when it cannot be told.

    Order: ``$TZ``, the ``/etc/localtime`` symlink target, ``/etc/timezone``.
    """
    env = os.environ.get("TZ", "").lstrip(":")
    if env and is_valid_timezone(env):
        return env
    localtime = Path("/etc/localtime")
    try:
        target = str(localtime.resolve())
        marker = "zoneinfo/"
        if marker in target:
            name = target.split(marker, 1)[1]
            if is_valid_timezone(name):
                return name
    except OSError:
        pass
    try:
        name = Path("/etc/timezone").read_text(encoding="utf-8").strip()
        if is_valid_timezone(name):
            return name
    except OSError:
        pass
    return "UTC"


def timezone_names() -> list[str]:
    """All IANA timezone names, sorted (for pickers)."""
    return sorted(available_timezones())
