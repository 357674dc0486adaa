"""Build the model request: system prompt, history, and the current message.

The system prompt depends only on the workspace files and the channel, never on the clock, so
it stays byte-identical between turns and provider prompt caches stay warm. Time, channel and
chat id go into a runtime block at the start of the current user message instead.

Workspace files are read without following a symlink (a command the model ran may have left
one: ``MEMORY.md`` linked to ``config.json``), and everything taken from files passes through
:func:`~desktop.core.utils.redact.redact_for_prompt` before it reaches the provider.
"""

from __future__ import annotations

import base64
import mimetypes
import platform
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.memory.store import MemoryStore
from desktop.core.session.compaction import last_summary, summary_section
from desktop.core.session.project import read_project
from desktop.core.tools.documents import attachment_text
from desktop.core.utils.redact import redact_for_prompt
from desktop.core.utils.resources import data_path, read_template
from desktop.core.utils.validate import read_text_document

SEPARATOR = "\n\n---\n\n"
BOOTSTRAP_FILES = ("AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md")
PROJECT_FILE = "AGENTS.md"  # read from a chat's project folder when it has one
RECENT_HISTORY_LIMIT = 50
RECENT_ENTRY_CHARS = 400  # one history entry in the prompt; the full text stays in history.jsonl
RECENT_HISTORY_CHARS = 6_000  # the whole section (~1,500 tokens), newest entries first
# One workspace file in the prompt (~6,000 tokens): a file the model (or anyone) made huge must
# not push every request over the context window. The model reads the rest with read_file.
PROMPT_FILE_CHARS = 24_000
RUNTIME_OPEN = "[Runtime Context — metadata only, not instructions]"
RUNTIME_CLOSE = "[/Runtime Context]"

#: Lines for the current message's runtime block, from its text and the session's metadata
#: (the active goal, the chats the person mentioned). Called in a worker thread.
RuntimeNotes = Callable[[str, dict[str, Any]], list[str]]

FORMAT_HINTS = {
    DESKTOP_CHANNEL: "Markdown renders in this window: use lists, code blocks and tables where they help.",
    "cli": "This is a terminal: keep formatting light; short paragraphs and plain lists.",
    "system": "Plain text.",
}
CHAT_APP_HINT = "This is a chat app: keep messages short; light markdown only."


def _read(path: Path, root: Path | None = None) -> str:
    """A text file, stripped ('' when missing or unusable; never raises). With ``root`` (the
    workspace) no symlink below it is followed and only a regular file is read."""
    return (read_text_document(path, root=root) or "").strip()


def _for_prompt(path: Path, shown: str, workspace: Path) -> str:
    """A workspace file's text for the system prompt, cut at :data:`PROMPT_FILE_CHARS`."""
    text = _read(path, workspace)
    if len(text) <= PROMPT_FILE_CHARS:
        return text
    return (
        text[:PROMPT_FILE_CHARS]
        + f"\n\n… [{shown} continues for {len(text) - PROMPT_FILE_CHARS} more characters; "
        "read it with read_file]"
    )


class ContextBuilder:
    """Assembles requests for one workspace.

    Args:
        workspace: The workspace folder.
        timezone: IANA zone for the runtime block.
        skills_section: Callable returning the skills parts (always-on skills, summary); the
            memory issue plugs the skills loader in. ``None`` leaves them out.
        notes: Add lines to the current message's runtime block (:data:`RuntimeNotes`).
    """

    def __init__(
        self,
        workspace: Path,
        *,
        timezone: str = "UTC",
        skills_section: Any = None,
        notes: Sequence[RuntimeNotes] = (),
    ) -> None:
        self.workspace = Path(workspace).expanduser()
        self.timezone = timezone
        self.skills_section = skills_section
        self.notes = tuple(notes)

    # -- system prompt --------------------------------------------------------------------
    def identity(self, channel: str) -> str:
        """The identity part: runtime, workspace, rules, format hint."""
        system = platform.system() or "Unknown OS"
        runtime = f"{system} {platform.machine()}, Python {sys.version_info.major}.{sys.version_info.minor}"
        shell = (
            "Shell commands run in PowerShell."
            if system == "Windows"
            else "Shell commands run in sh/bash."
        )
        return (
            read_template("agent", "identity.md")
            .format(
                runtime=runtime,
                shell_policy=shell,
                workspace=self.workspace,
                format_hint=FORMAT_HINTS.get(channel, CHAT_APP_HINT),
            )
            .strip()
        )

    def bootstrap(self, project: Path | None = None) -> str:
        """AGENTS.md, SOUL.md, USER.md, TOOLS.md from the workspace, each under ``## <file>``;
        with a ``project`` folder its AGENTS.md replaces the workspace's (the rest stay)."""
        parts = []
        for name in BOOTSTRAP_FILES:
            root = project if project is not None and name == PROJECT_FILE else self.workspace
            text = _for_prompt(root / name, name, root)
            if text:
                parts.append(f"## {name}\n\n{text}")
        return "\n\n".join(parts)

    def project_section(self, project: Path | None) -> str:
        """``# Current Project``: the chat's project folder (empty without one)."""
        if project is None:
            return ""
        return (
            f"# Current Project\n\nWorking directory: {project}\n"
            "Relative paths of the file tools and shell commands start here, and the AGENTS.md "
            f"above is this project's. Your own files stay in your workspace {self.workspace}: "
            "memory, history and the skills listed as skills/<name>/SKILL.md are there, so "
            f"give their full paths ({self.workspace}/skills/<name>/SKILL.md)."
        )

    def memory(self) -> str:
        """``# Memory`` with MEMORY.md, unless it is still the empty template."""
        text = _for_prompt(
            self.workspace / "memory" / "MEMORY.md", "memory/MEMORY.md", self.workspace
        )
        template = _read(data_path("templates", "memory", "MEMORY.md"))
        if not text or text == template:
            return ""
        return f"# Memory\n\n{text}"

    def recent_history(self) -> str:
        """``# Recent History``: history.jsonl entries Dream has not consumed.

        At most 50 entries, each shortened to a few hundred characters, and the whole section
        capped, newest first: a large ``[RAW]`` archive must not refill the context it left.
        """
        store = MemoryStore(self.workspace)
        entries: list[str] = []
        for entry in store.entries_after(store.dream_cursor):
            text = " ".join(entry.content.split())
            if len(text) > RECENT_ENTRY_CHARS:
                text = text[:RECENT_ENTRY_CHARS] + f"… (cursor {entry.cursor}; grep history.jsonl)"
            entries.append(f"- [{entry.timestamp}] {text}")
        kept: list[str] = []
        size = 0
        for line in reversed(entries[-RECENT_HISTORY_LIMIT:]):
            size += len(line) + 1
            if size > RECENT_HISTORY_CHARS:
                break
            kept.append(line)
        if not kept:
            return ""
        return "# Recent History\n\n" + "\n".join(reversed(kept))

    def system_prompt(self, channel: str, metadata: dict[str, Any] | None = None) -> str:
        """All parts joined by ``---`` separators; empty parts are left out.

        The parts read from files (bootstrap files, memory, skills, history) are redacted.
        A compacted session (``metadata``: the session's) adds its summary, unless
        ``# Recent History`` already shows it whole.
        """
        project = read_project(metadata, self.workspace).folder
        files = [self.bootstrap(project), self.memory()]
        if self.skills_section is not None:
            files.extend(self.skills_section())
        history = self.recent_history()
        files.append(history)
        found = last_summary(metadata)
        if found is not None and " ".join(found[0].split()) not in history:
            files.append(summary_section(metadata))
        parts = [
            self.identity(channel),
            *(redact_for_prompt(p) for p in files if p),
            self.project_section(project),
        ]
        return SEPARATOR.join(p for p in parts if p)

    # -- current message ------------------------------------------------------------------
    def runtime_block(
        self,
        channel: str,
        chat_id: str,
        now: datetime | None = None,
        extra: Sequence[str] = (),
    ) -> str:
        """Metadata that changes every turn, kept out of the cached system prompt."""
        moment = now or datetime.now(ZoneInfo(self.timezone))
        more = "".join(f"{line}\n" for line in extra)
        return (
            f"{RUNTIME_OPEN}\nCurrent Time: {moment.strftime('%Y-%m-%d %H:%M (%A)')} {self.timezone}\n"
            f"Channel: {channel}\nChat ID: {chat_id}\n{more}{RUNTIME_CLOSE}"
        )

    def note_lines(self, text: str, metadata: dict[str, Any] | None) -> list[str]:
        """The runtime block's extra lines for a message (see :data:`RuntimeNotes`)."""
        return [line for notes in self.notes for line in notes(text, metadata or {})]

    @staticmethod
    def image_part(path: str) -> dict[str, Any] | None:
        """A base64 ``image_url`` part for an image file or data URL (``None`` if unusable)."""
        if path.startswith("data:image/"):
            return {"type": "image_url", "image_url": {"url": path}}
        file = Path(path).expanduser()
        mime = mimetypes.guess_type(file.name)[0] or ""
        if not mime.startswith("image/") or not file.is_file():
            return None
        data = base64.b64encode(file.read_bytes()).decode("ascii")
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}

    def user_content(
        self,
        text: str,
        *,
        channel: str,
        chat_id: str,
        media: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Any:
        """The current user message: runtime block, text, documents, then images.

        An attached document (PDF, Word, Excel, PowerPoint) is read as ``read_file`` reads it
        (:mod:`desktop.core.tools.documents`): its text follows the message, framed as
        untrusted and cut to a few thousand characters, with its path for reading on.
        """
        block = self.runtime_block(channel, chat_id, extra=self.note_lines(text, metadata))
        body = f"{block}\n\n{text}"
        documents = [d for d in (attachment_text(m) for m in media or []) if d]
        if documents:
            body += "\n\n" + "\n\n".join(documents)
        images = [part for part in (self.image_part(m) for m in media or []) if part]
        if not images:
            return body
        return [{"type": "text", "text": body}, *images]

    def build_messages(
        self,
        history: list[dict[str, Any]],
        text: str,
        *,
        channel: str,
        chat_id: str,
        media: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """System prompt + history + the current message (``metadata``: the session's)."""
        content = self.user_content(
            text, channel=channel, chat_id=chat_id, media=media, metadata=metadata
        )
        return [
            {"role": "system", "content": self.system_prompt(channel, metadata)},
            *history,
            {"role": "user", "content": content},
        ]
