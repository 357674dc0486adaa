"""Deferred tool groups: tools the model loads when it needs them, so a trivial turn stays cheap.

Every tool definition is sent with every request. Tools most turns never use (patches, the
other chats, goals, the agent's own settings, image generation) belong to a *group*
(:attr:`~desktop.core.tools.base.Tool.group`); their definitions are left out of the request
until the model loads the group with ``load_tools``, whose one definition lists the groups and
their tools (the catalogue). A group stays loaded for the conversation: the groups of a
session are found again in its history (:func:`groups_in_history`: a ``load_tools`` call, or a
call of one of the group's tools), so no extra file is kept and a session nanobot 0.3.5 wrote
with ``apply_patch`` calls offers ``apply_patch`` again at once. A deferred tool the model calls
by name without loading it still runs, and its group is loaded from then on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, ClassVar

from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.exec_session import SHELL_GROUP
from desktop.core.tools.registry import ToolRegistry

LOAD_TOOLS = "load_tools"
#: ``@name`` in the person's message: a chat mentioned by its handle (not ``me@mail.org``).
MENTION = re.compile(r"(?<![\w.@])@([A-Za-z]{4,16})\b(?!:)")

#: What each group is for, in the catalogue (a group without an entry shows its tools only).
GROUP_ABOUT: dict[str, str] = {
    "files": "multi-file patches, find files by name or type",
    "sessions": "list, read, search and message your other chats",
    "goals": "a durable goal that later turns and the heartbeat continue",
    "self": "check or change your own runtime settings",
    "images": "generate images",
    "shell": "commands still running (exec with yield_time_ms starts one and loads these)",
}


def _calls(message: dict[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    """``(name, arguments)`` of each tool call of an assistant message (arguments as saved
    are JSON text; unreadable ones read as ``{}``)."""
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = None
        yield function["name"], arguments if isinstance(arguments, dict) else {}


def _requested(arguments: dict[str, Any]) -> list[str]:
    """The group names a ``load_tools`` call asked for."""
    groups = arguments.get("groups")
    if isinstance(groups, str):
        groups = [groups]
    return [g for g in groups or [] if isinstance(g, str)]


def groups_in_history(
    history: Iterable[dict[str, Any]], registry: ToolRegistry, text: str = ""
) -> set[str]:
    """The groups loaded in a conversation: asked for with ``load_tools`` or used by a call;
    and ``sessions`` when the new message ``text`` mentions a chat by ``@handle``.

    Returns a new set: the turn's :attr:`~desktop.core.tools.base.ToolContext.tool_groups`.
    """
    known = registry.catalogue()
    loaded: set[str] = set()
    if "sessions" in known and MENTION.search(text):
        loaded.add("sessions")
    for message in history:
        if message.get("role") != "assistant":
            continue
        for name, arguments in _calls(message):
            if name == LOAD_TOOLS:
                loaded.update(g for g in _requested(arguments) if g in known)
                continue
            tool = registry.get(name)
            if tool is not None and tool.group:
                loaded.add(tool.group)
            started = name == "exec" and arguments.get("yield_time_ms") is not None
            if started and SHELL_GROUP in known:  # it started an exec session
                loaded.add(SHELL_GROUP)
    return loaded


class LoadToolsTool(Tool):
    """Load deferred tool groups into the conversation.

    Its description is the catalogue of the registry's groups, built when the definition is
    asked for (the same bytes while the set of tools is unchanged).
    """

    name: ClassVar[str] = LOAD_TOOLS
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"groups": {"type": "array", "items": {"type": "string"}}},
        "required": ["groups"],
    }
    read_only: ClassVar[bool] = True

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    def definition(self) -> dict[str, Any]:
        """The definition, with the groups of the registry as an enum and in the text."""
        catalogue = self.registry.catalogue()
        entries = []
        for group, names in catalogue.items():
            about = GROUP_ABOUT.get(group)
            entries.append(f"{group} ({', '.join(names)}{': ' + about if about else ''})")
        description = "Load more tools into this chat: " + "; ".join(entries) + "."
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": {
                    **self.parameters,
                    "properties": {
                        "groups": {
                            "type": "array",
                            "items": {"type": "string", "enum": list(catalogue)},
                        }
                    },
                },
            },
        }

    async def execute(self, ctx: ToolContext, *, groups: list[str], **_: Any) -> ToolResult:
        """Add ``groups`` to the conversation's loaded groups."""
        catalogue = self.registry.catalogue()
        unknown = [g for g in groups if g not in catalogue]
        if unknown:
            return ToolResult.error(
                f"Error: no tool group {', '.join(unknown)}; groups: {', '.join(catalogue)}"
            )
        wanted = list(dict.fromkeys(groups))
        if ctx.tool_groups is not None:
            ctx.tool_groups.update(wanted)
        listed = "; ".join(f"{g}: {', '.join(catalogue[g])}" for g in wanted)
        return ToolResult(f"Loaded {listed}. Call them now.")
