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
import unicodedata
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path

from desktop.core.tools.base import ToolResult

# Bootstrap and memory files, relative to the workspace: the system prompt already holds them.
TRUSTED_WORKSPACE_FILES = frozenset(
    {"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "HEARTBEAT.md", "memory/MEMORY.md"}
)
MAX_REMEMBERED = 4096

# Look-alike markers are found on a "skeleton" of the text (see :func:`_skeleton`): letters
# folded to plain lower-case ASCII where they look alike, invisible characters dropped, white
# space made plain. Brackets that look like ``<`` all become ``<``.
_CONFUSABLES = str.maketrans(
    {
        **dict.fromkeys("＜﹤‹«〈〈⟨❮❬⧼≺⋖《⦉⦑⊰ᐸ˂⟪⫷⋘≪", "<"),
        **dict.fromkeys("＞﹥›»〉〉⟩❯❭⧽≻⋗》⦊⦒⊱ᐳ˃⟫⫸⋙≫", ">"),
        **dict.fromkeys("аαɑᴀ", "a"),
        **dict.fromkeys("сϲᴄ", "c"),
        **dict.fromkeys("ԁᴅ", "d"),
        **dict.fromkeys("еεᴇ℮ҽ", "e"),
        **dict.fromkeys("іιɪıӏ", "i"),
        **dict.fromkeys("ʟ", "l"),
        **dict.fromkeys("ɴηոп", "n"),
        **dict.fromkeys("оοօᴏ", "o"),
        **dict.fromkeys("ʀгᴦ", "r"),
        **dict.fromkeys("ѕꜱ", "s"),
        **dict.fromkeys("тτᴛ", "t"),
        **dict.fromkeys("υսᴜʋ", "u"),
        **dict.fromkeys("хχ", "x"),
        **dict.fromkeys("ƒ", "f"),
    }
)
_OPEN = r"(?:<|&lt;?|&#0*60;?|&#x0*3c;?|%3c|\\u0*3c|\\x3c|&lsaquo;|&laquo;|\[)"
_CLOSE = r"(?:>|&gt;?|&#0*62;?|&#x0*3e;?|%3e|\\u0*3e|\\x3e|&rsaquo;|&raquo;|\])"
_SEP = r"(?:[\s_.\-*~|·•+]|%20|&nbsp;|&#0*32;|\\u0020)*"


def _spaced(word: str) -> str:
    return _SEP.join(re.escape(letter) for letter in word)


_MARKER = re.compile(
    rf"(?P<open>(?:{_OPEN}{_SEP})+)?/?{_SEP}"
    rf"(?P<end>{_spaced('end')}{_SEP}(?:{_spaced('of')}{_SEP})?)?"
    rf"(?P<key>{_spaced('untrusted')}|{_spaced('external')}{_SEP}{_spaced('content')})"
    rf"(?P<id>{_SEP}{_spaced('id')}{_SEP}=)?"
    rf"(?P<close>{_SEP}{_CLOSE})?"
)

_SOURCE_UNSAFE = re.compile(r"[^\w./:@+\- ]")

_written: OrderedDict[tuple[int, int], tuple[int, int]] = OrderedDict()
_written_lock = threading.Lock()


@functools.lru_cache(maxsize=4096)
def _fold(char: str) -> str:
    """One character of the skeleton: ``""`` (invisible), ``" "`` or folded letters."""
    if char.isspace():
        return " "
    kind = unicodedata.category(char)
    if kind in ("Cf", "Cc", "Mn", "Me", "Co", "Cn") or 0xFE00 <= ord(char) <= 0xFE0F:
        return ""  # format (zero-width, bidi, soft hyphen, tags), marks, private, unassigned
    plain = unicodedata.normalize("NFKD", char.translate(_CONFUSABLES))
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return unicodedata.normalize("NFKC", plain).casefold().translate(_CONFUSABLES)


def _skeleton(text: str) -> tuple[str, list[int]]:
    """The folded text, and for each of its characters the index it came from in ``text``."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    parts: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        folded = char.lower() if char.isascii() else _fold(char)
        parts.append(folded)
        origin.extend([index] * len(folded))
    return "".join(parts), origin


def neutralise(text: str) -> str:
    """``text`` with every look-alike of a frame marker defused.

    A look-alike is the word ``untrusted`` (or ``external content``) written any way that
    reads the same — other scripts' look-alike letters, full-width or mathematical letters,
    small capitals, accents, zero-width or bidi characters between the letters, spaces or
    ``_``/``-`` between them, any case — after a ``<``-like bracket run (also full-width,
    angle, guillemet, HTML- or URL-escaped, spaced out), or before ``id=`` or a ``>``.
    It becomes ``(untrusted`` / ``(end untrusted`` in plain letters: readable as data, never
    as a marker. ``untrusted`` in ordinary prose is left alone.
    """
    skeleton, origin = _skeleton(text)
    letters = re.sub(r"[^a-z]", "", skeleton)
    if "untrusted" not in letters and "externalcontent" not in letters:
        return text
    out: list[str] = []
    last = 0
    for match in _MARKER.finditer(skeleton):
        if not (match.group("open") or match.group("id") or match.group("close")):
            continue
        first = "open" if match.group("open") else "end" if match.group("end") else "key"
        start, end = origin[match.start(first)], origin[match.end("key") - 1] + 1
        if start < last:
            continue
        words = "end " if match.group("end") else ""
        if match.group("end") and re.search(r"\bof\b", match.group("end")):
            words = "end of "
        key = "untrusted" if match.group("key").startswith("u") else "external content"
        out += [text[last:start], f"({words}{key}"]
        last = end
    out.append(text[last:])
    return "".join(out)


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


_FRAME_LINE = re.compile(
    r"^<<<untrusted id=(?P<id>[0-9a-f]{8}) source=[^\n]*>>>\n(?P<body>.*?)\n<<<end untrusted id=(?P=id)>>>$",
    re.DOTALL | re.MULTILINE,
)


def shown(text: str) -> str:
    """``text`` as the person sees it in a tool card: each frame's two marker lines removed,
    what was inside kept (the model still gets the framed text)."""
    return _FRAME_LINE.sub(lambda match: match.group("body"), text)


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
    from desktop.core.utils.resources import data_path

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
