"""Workspace prompt overrides: ``<workspace>/prompts/<name>.md`` (nanobot 0.3.5's convention).

A person can tell Dream how to organise this workspace's memory in ``prompts/dream.md``
(``/dream-prompt init`` creates an editable copy). The file is plain Markdown; a missing,
unreadable or empty file means "the defaults". Its text is added to both Dream phases as the
workspace owner's instructions (they come after Dream's own rules on the answer format and the
tools, which they cannot switch off). Very long files are cut at :data:`MAX_CHARS`.

``prompts/evaluator.md`` is nanobot's heartbeat notification gate; our heartbeat decides with its
own ``HEARTBEAT_OK`` answer instead and does not read it (see ``prompts/README.md``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from desktop.core.utils import ownfiles
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.resources import read_template

log = logging.getLogger(__name__)

MAX_CHARS = 32_000
FOLDER = "prompts"


def override_path(workspace: Path, name: str) -> Path:
    """``<workspace>/prompts/<name>.md``."""
    return Path(workspace) / FOLDER / f"{name}.md"


def load_override(workspace: Path, name: str) -> str | None:
    """The override's text (stripped, at most :data:`MAX_CHARS`), or ``None`` for the
    defaults (no file, not a regular file, unreadable, not UTF-8, or empty)."""
    path = override_path(workspace, name)
    try:
        data = ownfiles.read_bytes(path, root=Path(workspace))  # no link followed, no FIFO
        if data is None:
            return None
        text = data.decode("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("%s could not be read; Dream uses its defaults: %s", path, exc)
        return None
    if len(text) > MAX_CHARS:
        log.warning(
            "%s is %d characters long; only the first %d are used", path, len(text), MAX_CHARS
        )
        text = text[:MAX_CHARS] + "\n[… cut: the file is longer than the app reads]"
    return text or None


def init_override(workspace: Path, name: str, default: str) -> bool:
    """Create an editable copy of ``default`` unless a non-empty file (or anything that is not
    a file) is already there; ``True`` when it was written."""
    path = override_path(workspace, name)
    try:
        if path.exists() and (not path.is_file() or path.read_text(encoding="utf-8").strip()):
            return False
    except (OSError, UnicodeDecodeError):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, default.strip() + "\n")
    return True


def default_dream_instructions() -> str:
    """What ``/dream-prompt init`` writes: the defaults, spelled out to be edited."""
    return read_template("agent", "dream_workspace.md")


def dream_instructions_block(workspace: Path) -> str:
    """The system-prompt section for ``prompts/dream.md``, or ``""`` without one."""
    text = load_override(workspace, "dream")
    if text is None:
        return ""
    return (
        "\n\n## The workspace owner's instructions (prompts/dream.md)\n\n"
        "Follow them for what to keep and how to organise the files, within the rules above "
        "(answer format, tools, pinned lines).\n\n" + text
    )
