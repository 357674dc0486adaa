"""Put an interrupted conversation back into a consistent shape.

After a crash, a ``/stop`` or a cancelled turn the message list may end mid-turn. Repair
guarantees, without dropping anything the user wrote or any completed tool result:

* every assistant ``tool_call_id`` has exactly one tool result (unfinished calls get a
  synthetic "interrupted" result; duplicate results are dropped);
* tool results whose call is unknown are dropped;
* a turn that ended without an answer gets a short assistant note, so roles keep alternating.

The user message itself is written once, before the model is called, and never re-added.
"""

from __future__ import annotations

from typing import Any

INTERRUPTED_RESULT = (
    "Error: interrupted — this tool call did not finish (the turn was stopped or the app closed)."
)
INTERRUPTED_NOTE = "(The previous turn was interrupted before I could answer.)"


def _call_ids(message: dict[str, Any]) -> list[str]:
    return [c.get("id", "") for c in message.get("tool_calls") or [] if isinstance(c, dict)]


def _call_name(message: dict[str, Any], call_id: str) -> str:
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict) and call.get("id") == call_id:
            return str((call.get("function") or {}).get("name", ""))
    return ""


def repair_messages(
    messages: list[dict[str, Any]], *, interrupted: bool = False
) -> tuple[list[dict[str, Any]], bool]:
    """Return a repaired copy of ``messages`` and whether anything changed.

    Args:
        messages: The session's messages.
        interrupted: The last turn is known not to have finished (its user message may be the
            last message); an assistant note is added after it.
    """
    out: list[dict[str, Any]] = []
    changed = False
    open_calls: dict[str, str] = {}  # call id -> tool name, awaiting a result

    def close_open() -> None:
        nonlocal changed
        for call_id, name in open_calls.items():
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "name": name,
                    "content": INTERRUPTED_RESULT,
                }
            )
            changed = True
        open_calls.clear()

    for message in messages:
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id", "")
            if call_id in open_calls:
                del open_calls[call_id]
                out.append(message)
            else:
                changed = True  # a duplicate or orphan result
            continue
        close_open()
        if message.get("role") == "assistant" and message.get("tool_calls"):
            open_calls = {cid: _call_name(message, cid) for cid in _call_ids(message)}
        out.append(message)
    close_open()
    last = out[-1].get("role") if out else None
    if last == "tool" or (last == "user" and interrupted):
        out.append({"role": "assistant", "content": INTERRUPTED_NOTE})
        changed = True
    return out, changed
