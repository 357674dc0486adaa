"""The logged-in WeChat account, in nanobot's ``account.json``.

nanobot 0.3.5 keeps the QR login's result in ``<config folder>/weixin/account.json`` (or the
``stateDir`` setting): ``token`` (the bot token), ``base_url`` (the API address the login
answered with), ``get_updates_buf`` (the long-poll cursor), ``context_tokens`` (per person, the
token a reply must carry) and ``typing_tickets``. The desktop app reads and writes the same file,
so one login serves both programs; keys it does not know are kept. The file is written
atomically, readable by its owner only; a corrupt one is set aside, never overwritten.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from desktop.core.utils.atomic import atomic_write_text, set_aside

log = logging.getLogger(__name__)
FILE = "account.json"


def account_dir(state_dir: str, config_dir: Path) -> Path:
    """Where the account lives: ``stateDir`` when set, else ``weixin`` beside config.json."""
    return Path(state_dir).expanduser() if state_dir.strip() else config_dir / "weixin"


def load(folder: Path) -> dict[str, Any]:
    """The saved account (empty when there is none; a corrupt file is set aside)."""
    path = folder / FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        moved = set_aside(path)
        log.warning("weixin: %s could not be read; kept as %s", path, moved.name)
        return {}
    if not isinstance(data, dict):
        moved = set_aside(path)
        log.warning("weixin: %s is not an object; kept as %s", path, moved.name)
        return {}
    return data


def save(folder: Path, **values: Any) -> None:
    """Change ``values`` in the saved account (other keys kept)."""
    data = load(folder)
    data.update(values)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / FILE, json.dumps(data, ensure_ascii=False), mode=0o600)
