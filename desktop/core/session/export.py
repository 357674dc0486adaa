"""A chat as a Markdown document or a JSON file, for keeping or sharing outside the app.

Markdown is for reading: the person's messages and the answers, tool calls as short fenced
blocks, reasoning as quotes. JSON is for machines: the session's messages exactly as saved
(nanobot's message format) with its key, title and times.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Literal

from desktop.core.session.edits import message_text
from desktop.core.session.manager import CHECKPOINT, PENDING, Session

ExportFormat = Literal["md", "json"]
FORMATS: tuple[ExportFormat, ...] = ("md", "json")
RESULT_CHARS = 2000


def export_format(name: str) -> ExportFormat:
    """``name`` (a menu's text) as an :data:`ExportFormat`.

    Raises:
        ValueError: ``name`` is neither ``md`` nor ``json``.
    """
    for fmt in FORMATS:
        if fmt == name:
            return fmt
    raise ValueError(f"unknown export format {name!r}; expected one of {', '.join(FORMATS)}")


def _when(stamp: Any) -> str:
    try:
        return datetime.fromisoformat(str(stamp)).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return ""


def _fence(text: str, language: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _heading(who: str, stamp: Any) -> str:
    when = _when(stamp)
    return f"### {who}" + (f" · {when}" if when else "")


def tool_results(messages: list[dict[str, Any]]) -> dict[tuple[int, str], str]:
    """Each tool result's text by (index of its assistant message, call id).

    A result belongs to the nearest earlier assistant message of its turn (a user message
    starts a turn) that carries its call id: ids repeat across a chat (some servers say
    ``call_0`` every time), so matching by id alone would give an earlier call a later result.
    """
    results: dict[tuple[int, str], str] = {}
    owner: dict[str, int] = {}  # call id -> its assistant message, in the current turn
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            owner = {}
        elif role == "assistant":
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict):
                    owner[str(call.get("id"))] = index
        elif role == "tool":
            call_id = str(message.get("tool_call_id"))
            if call_id in owner:
                results[(owner[call_id], call_id)] = message_text(message)
    return results


def to_markdown(session: Session) -> str:  # noqa: C901  # one branch per message role and part
    """The chat as Markdown."""
    lines = [f"# {session.title}", ""]
    lines.append(
        f"*{session.key} · started {session.created_at.strftime('%Y-%m-%d %H:%M')} · "
        f"{sum(1 for m in session.messages if m.get('role') in ('user', 'assistant'))} messages*"
    )
    results = tool_results(session.messages)
    for index, message in enumerate(session.messages):
        role = message.get("role")
        text = str(message.get("display") or message_text(message)).strip()
        if role == "user":
            who = "Reminder" if message.get("cron_job") else "You"
            if message.get("subagent"):
                who = "Background task"
            lines += ["", _heading(who, message.get("timestamp")), "", text or "(no text)"]
            for media in message.get("media") or []:
                lines += ["", f"*Attachment: {media}*"]
        elif role == "assistant":
            reasoning = message.get("reasoning_content")
            calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
            if not text and not calls and not reasoning:
                continue
            lines += ["", _heading("Assistant", message.get("timestamp"))]
            if isinstance(reasoning, str) and reasoning.strip():
                lines += ["", _quote(f"Reasoning: {reasoning.strip()}")]
            if text:
                lines += ["", text + (" *(stopped)*" if message.get("stopped") else "")]
            for call in calls:
                function = call.get("function") or {}
                arguments = function.get("arguments") or ""
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments, ensure_ascii=False)
                lines += ["", f"**Tool call:** `{function.get('name', '')}`", ""]
                lines.append(_fence(arguments, "json"))
                result = results.get((index, str(call.get("id"))))
                if result is not None:
                    cut = result[:RESULT_CHARS] + ("…" if len(result) > RESULT_CHARS else "")
                    lines += ["", "Result:", "", _fence(cut)]
    return "\n".join(lines).rstrip() + "\n"


def to_json(session: Session) -> str:
    """The chat as JSON: key, title, times, metadata (without run-time markers), messages."""
    metadata = {k: v for k, v in session.metadata.items() if k not in (PENDING, CHECKPOINT)}
    data = {
        "key": session.key,
        "title": session.title,
        "created_at": session.created_at.isoformat(),
        "updated_at": session.updated_at.isoformat(),
        "metadata": metadata,
        "messages": session.messages,
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def export_session(session: Session, fmt: ExportFormat) -> str:
    """``session`` in ``fmt`` (``md`` or ``json``).

    Raises:
        ValueError: Unknown format.
    """
    if fmt == "md":
        return to_markdown(session)
    if fmt == "json":
        return to_json(session)
    raise ValueError(f"unknown export format {fmt!r} (use md or json)")
