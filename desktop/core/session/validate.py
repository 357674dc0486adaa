"""Field-by-field checks of session files (nanobot's JSONL format), the one session reader.

:func:`read_session_file` turns a file into a header and messages that every consumer can use
without further checks (the loop, the providers, consolidation, the chat view); whatever does
not fit is reported as a bad line (copied aside by the manager) or dropped field by field:

* The metadata line: ``created_at``/``updated_at`` must be ISO times, ``metadata`` an object,
  ``last_consolidated`` a non-negative integer (not a bool) no larger than the message count.
  Inside ``metadata``: ``title`` must be text, the pending-turn marker an object with a
  non-negative integer ``index``, the checkpoint an object. A bad field falls back to its
  default; the rest of the line is kept.
* A message line must be an object whose ``role`` is ``user``, ``assistant``, ``tool`` or
  ``system`` and whose ``content`` is text, ``null`` or a list of content parts (objects with a
  text ``type``; ``text`` parts need text). Assistant ``tool_calls`` must be a list of calls
  with text ``id`` and ``function.name`` and text (or object) ``arguments``; a tool result
  needs a text ``tool_call_id``. Such a message is bad as a whole. Fields that would make a
  provider reject every later request (``tool_calls`` outside assistant messages,
  ``tool_call_id``/``name`` outside tool results) and cosmetic fields of the wrong type
  (``timestamp``, ``reasoning_content``, ``media``) are dropped alone.
* Records with another ``_type`` belong to newer nanobot versions and are skipped untouched.

Every line that is bad, or had a field dropped, is listed in :attr:`LoadedSession.aside` so
the caller can copy its original bytes beside the file before the next save rewrites it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from desktop.core.utils.validate import (
    MAX_INT,
    JsonLine,
    Unusable,
    iter_jsonl,
    load_json_text,
    open_regular_file,
)

ROLES = frozenset({"user", "assistant", "tool", "system"})
PENDING = "pending_user_turn"
CHECKPOINT = "runtime_checkpoint"
HEADER_BYTES = 1024 * 1024
_OPTIONAL_TEXT = ("timestamp", "reasoning_content")


@dataclass
class SessionHeader:
    """The usable fields of a session's metadata line.

    Attributes:
        key: The session key written in the file (``None`` when missing or not text).
        created_at: Creation time (``None``: missing or unusable).
        updated_at: Last activity (``None``: missing or unusable).
        metadata: Free-form metadata with its known keys checked.
        last_consolidated: Index of the first message not yet archived (``None``: unusable).
    """

    key: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    last_consolidated: int | None = 0

    @property
    def updated_text(self) -> str:
        """``updated_at`` as ISO text ('' when unknown), for sorting session lists."""
        return self.updated_at.isoformat() if self.updated_at else ""

    @property
    def title(self) -> str:
        """The metadata title ('' when none)."""
        value = self.metadata.get("title")
        return value if isinstance(value, str) else ""


@dataclass
class LoadedSession:
    """A session file read field by field.

    Attributes:
        header: The metadata line's usable fields (defaults when there was none).
        messages: Messages that passed the checks, in file order.
        aside: Lines to copy aside: unusable ones, and ones that had a field dropped.
        problems: One text per bad line or dropped field.
    """

    header: SessionHeader = field(default_factory=SessionHeader)
    messages: list[dict[str, Any]] = field(default_factory=list)
    aside: list[JsonLine] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def note(self, line: JsonLine, problems: list[str]) -> None:
        """Record ``problems`` of ``line`` and mark the line for copying aside."""
        if problems:
            self.problems.extend(f"line {line.number}: {p}" for p in problems)
            self.aside.append(line)


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _index(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT:
        return None
    return value


def check_metadata_dict(metadata: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """``metadata`` with its known keys checked (bad ones dropped, noted in ``problems``)."""
    out = dict(metadata)
    if "title" in out and not isinstance(out["title"], str | None):
        problems.append("metadata.title is not text; dropped")
        del out["title"]
    pending = out.get(PENDING)
    if PENDING in out and not (
        isinstance(pending, dict) and _index(pending.get("index")) is not None
    ):
        problems.append(f"metadata.{PENDING} is not an object with an index; dropped")
        del out[PENDING]
    if CHECKPOINT in out and not isinstance(out[CHECKPOINT], dict):
        problems.append(f"metadata.{CHECKPOINT} is not an object; dropped")
        del out[CHECKPOINT]
    return out


def check_header(data: dict[str, Any], problems: list[str]) -> SessionHeader:
    """The usable fields of a metadata line (``data["_type"] == "metadata"``)."""
    header = SessionHeader()
    key = data.get("key")
    header.key = key if isinstance(key, str) and key else None
    for name in ("created_at", "updated_at"):
        if name in data:
            moment = _time(data[name])
            if moment is None:
                problems.append(f"{name} is not an ISO time; using now")
            setattr(header, name, moment)
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        header.metadata = check_metadata_dict(metadata, problems)
    elif metadata is not None:
        problems.append("metadata is not an object; using {}")
    raw_index = data.get("last_consolidated", 0)
    header.last_consolidated = 0 if raw_index is None else _index(raw_index)
    if header.last_consolidated is None:
        problems.append("last_consolidated is not a non-negative integer; using 0")
    return header


def _check_part(part: Any) -> str | None:
    if not isinstance(part, dict) or not isinstance(part.get("type"), str):
        return "a content part is not an object with a text type"
    if part["type"] == "text" and not isinstance(part.get("text"), str):
        return "a text part has no text"
    if part["type"] == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if not isinstance(url, str):
            return "an image part has no URL"
    return None


def _check_call(call: Any) -> str | None:
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return "a tool call has no text id"
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return "a tool call has no function name"
    arguments = function.get("arguments")
    if arguments is not None and not isinstance(arguments, str | dict):
        return "a tool call's arguments are neither text nor an object"
    if "type" in call and not isinstance(call["type"], str):
        return "a tool call's type is not text"
    return None


def check_message(data: Any) -> tuple[dict[str, Any] | None, list[str]]:  # noqa: C901  # one check per message field the consumers rely on
    """A message that every consumer can use, or ``None`` and why not.

    Returns:
        The message (cosmetic fields of the wrong type removed) or ``None``, and the problems.
    """
    if not isinstance(data, dict):
        return None, ["not a JSON object"]
    role = data.get("role")
    if not isinstance(role, str) or role not in ROLES:
        return None, [f"role {str(role)[:40]!r} is not user, assistant, tool or system"]
    content = data.get("content")
    if isinstance(content, list):
        for part in content:
            if (reason := _check_part(part)) is not None:
                return None, [reason]
    elif content is not None and not isinstance(content, str):
        return None, ["content is neither text nor a list of parts"]
    calls = data.get("tool_calls")
    if calls is not None and role == "assistant":
        if not isinstance(calls, list):
            return None, ["tool_calls is not a list"]
        for call in calls:
            if (reason := _check_call(call)) is not None:
                return None, [reason]
    if role == "tool" and not isinstance(data.get("tool_call_id"), str):
        return None, ["a tool result has no text tool_call_id"]
    drop: dict[str, str] = {}
    if "tool_calls" in data and role != "assistant":
        drop["tool_calls"] = "tool_calls outside an assistant message"
    if "tool_call_id" in data and role != "tool":
        drop["tool_call_id"] = "tool_call_id outside a tool result"
    if "name" in data and (role != "tool" or not isinstance(data["name"], str)):
        drop["name"] = "name is not text" if role == "tool" else "name outside a tool result"
    for name in _OPTIONAL_TEXT:
        if name in data and not isinstance(data[name], str | None):
            drop[name] = f"{name} is not text"
    media = data.get("media")
    if media is not None and not (
        isinstance(media, list) and all(isinstance(m, str) for m in media)
    ):
        drop["media"] = "media is not a list of paths"
    if not drop:
        return data, []
    message = {k: v for k, v in data.items() if k not in drop}
    return message, [f"{reason}; dropped" for reason in drop.values()]


def _bad(line: JsonLine, reason: str) -> JsonLine:
    return JsonLine(line.number, line.offset, line.size, line.raw, None, reason)


def read_session_file(path: Path) -> LoadedSession:
    """Read a session file field by field (see the module docstring).

    Raises:
        Unusable: The path is a folder, a special file or unreadable.
    """
    loaded = LoadedSession()
    handle = open_regular_file(path, root=path.parent)  # a link is refused, never followed
    if handle is None:
        return loaded
    seen_header = False
    with handle:
        for line in iter_jsonl(handle):
            if not line.ok:
                loaded.note(line, [line.problem or "unusable"])
                continue
            data = line.value
            kind = data.get("_type") if isinstance(data, dict) else None
            if kind == "metadata" and not seen_header:
                seen_header = True
                problems: list[str] = []
                loaded.header = check_header(data, problems)
                loaded.note(line, problems)
                continue
            if kind is not None:
                if isinstance(kind, str) and kind != "metadata":
                    continue  # a record type of a newer nanobot version
                reason = "a second metadata line" if kind == "metadata" else "_type is not text"
                loaded.note(_bad(line, reason), [reason])
                continue
            message, problems = check_message(data)
            if message is None:
                loaded.note(_bad(line, problems[0]), problems)
            else:
                loaded.note(line, problems)
                loaded.messages.append(message)
    index = loaded.header.last_consolidated
    if index is None or index > len(loaded.messages):
        if index is not None:
            loaded.problems.append(
                f"last_consolidated {index} is past the {len(loaded.messages)} messages; using 0"
            )
        loaded.header.last_consolidated = 0
    return loaded


def read_session_header(path: Path) -> tuple[SessionHeader, BinaryIO] | None:
    """The header of a session file from its first line, for session lists.

    Returns:
        The header and the open file (the caller closes it), positioned after the metadata
        line, or at the start with a default header when the file has no usable metadata line;
        ``None`` when the file is missing or unusable as a whole.
    """
    try:
        handle = open_regular_file(path, root=path.parent)
    except Unusable:
        return None
    if handle is None:
        return None
    raw = handle.readline(HEADER_BYTES + 1)
    try:
        data, problems = load_json_text(raw) if raw.strip() else (None, [])
    except Unusable:
        data, problems = None, []
    header = data if isinstance(data, dict) and not problems else {}
    if len(raw) <= HEADER_BYTES and header.get("_type") == "metadata":
        return check_header(header, []), handle
    handle.seek(0)
    return SessionHeader(), handle


def user_messages(handle: Any, limit: int = 50) -> Iterator[dict[str, Any]]:
    """The valid user messages among the next ``limit`` lines of an open session file."""
    for _ in range(limit):
        raw = handle.readline(HEADER_BYTES + 1)
        if not raw:
            break
        if len(raw) > HEADER_BYTES:
            continue
        try:
            data, problems = load_json_text(raw) if raw.strip() else (None, ["blank"])
        except Unusable:
            continue
        if problems:
            continue
        message, _ = check_message(data)
        if message is not None and message.get("role") == "user":
            yield message


def message_line(raw: bytes) -> dict[str, Any] | None:
    """A valid message from one line of a session file (``None``: not a usable message)."""
    try:
        data, problems = load_json_text(raw)
    except Unusable:
        return None
    if problems or not isinstance(data, dict) or "_type" in data:
        return None
    return check_message(data)[0]
