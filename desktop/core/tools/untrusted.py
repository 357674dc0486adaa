"""Framing of untrusted tool output, so the model can tell data from instructions.

Text that comes from outside the conversation (web pages, search results, MCP servers, files
the agent did not write) is wrapped by :func:`frame`::

    <<<untrusted id=5f0c9a1e source=web_fetch>>>
    ...the text...
    <<<end untrusted id=5f0c9a1e>>>

The id is random for every frame (``secrets``), so the text inside cannot know it and cannot
close the frame early; anything inside that looks like a marker (``<<<untrusted``,
``<<<end untrusted``, the older ``[External content`` marker, also with look-alike brackets) is
neutralised by replacing its brackets. The system prompt says what the markers mean.

Which files count as untrusted (:func:`file_is_trusted`): everything except the workspace's own
bootstrap and memory files (already part of the system prompt), skills (their whole purpose is
to be followed; builtin ones ship with the app) and files a file tool of this process wrote and
nobody changed since (same inode, size and modification time).
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path

from desktop.core.tools.base import ToolResult

# Bootstrap and memory files, relative to the workspace: the system prompt already holds them.
TRUSTED_WORKSPACE_FILES = frozenset(
    {"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "HEARTBEAT.md", "memory/MEMORY.md"}
)
MAX_REMEMBERED = 4096

# An opening run of brackets (ASCII, full-width, guillemets, HTML-escaped) then a marker word.
_LOOKALIKE = re.compile(
    r"(?:<{2,}|＜{2,}|‹{2,}|«+|〈{2,}|(?:&lt;){2,}|\[)"
    r"(?=\s*/?\s*(?:end\s+(?:of\s+)?)?(?:untrusted\b|external\s+content\b))",
    re.IGNORECASE,
)
_SOURCE_UNSAFE = re.compile(r"[^\w./:@+\- ]")

_written: OrderedDict[tuple[int, int], tuple[int, int]] = OrderedDict()
_written_lock = threading.Lock()


def neutralise(text: str) -> str:
    """``text`` with every look-alike of a frame marker defused (its brackets become ``(``)."""
    return _LOOKALIKE.sub("(", text)


def frame(text: str, source: str) -> str:
    """Wrap ``text`` in an opening and a closing marker with a fresh random id.

    Args:
        text: The untrusted text.
        source: Where it came from (``web_fetch``, ``mcp_x_y``, ``file notes.md``…); unsafe
            characters are replaced and it is cut to 120 characters.
    """
    nonce = secrets.token_hex(4)
    label = _SOURCE_UNSAFE.sub("_", source)[:120]
    body = neutralise(text)
    return f"<<<untrusted id={nonce} source={label}>>>\n{body}\n<<<end untrusted id={nonce}>>>"


def frame_result(result: ToolResult, source: str) -> ToolResult:
    """``result`` with its text framed (images and the error flag are kept)."""
    return replace(result, text=frame(result.text, source))


def note_written(st: os.stat_result) -> None:
    """Remember a file a file tool just wrote (by identity, size and modification time)."""
    with _written_lock:
        _written[(st.st_dev, st.st_ino)] = (st.st_size, st.st_mtime_ns)
        _written.move_to_end((st.st_dev, st.st_ino))
        while len(_written) > MAX_REMEMBERED:
            _written.popitem(last=False)


def agent_wrote(st: os.stat_result) -> bool:
    """Whether a file tool wrote this very file and it has not changed since."""
    with _written_lock:
        return _written.get((st.st_dev, st.st_ino)) == (st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=1)
def _builtin_skills() -> Path:
    """The real folder of the skills shipped with the app."""
    from desktop.core.resources import data_path

    return Path(os.path.realpath(data_path("skills")))


def file_is_trusted(path: Path, st: os.stat_result, workspace: Path) -> bool:
    """Whether a file's text may reach the model unframed (see the module docstring).

    Args:
        path: The real path of the opened file (from the descriptor walk).
        st: Its ``fstat``.
        workspace: The agent's workspace.
    """
    if agent_wrote(st) or path.is_relative_to(_builtin_skills()):
        return True
    try:
        relative = path.relative_to(Path(os.path.realpath(Path(workspace).expanduser())))
    except ValueError:
        return False
    name = relative.as_posix()
    return name in TRUSTED_WORKSPACE_FILES or (relative.parts[:1] == ("skills",))
