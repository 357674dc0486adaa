"""``my``: the agent checks (and, where the person allows, changes) its own runtime settings.

nanobot 0.3.5's tool, its arguments (``action`` ``check``/``set``, ``key``, ``value``) and its
config (``tools.my.enable``, ``tools.my.allowSet``, off by default). What it shows: the model,
``max_iterations``, ``max_tokens``, ``context_window_tokens``, ``temperature``, the workspace
and its restriction, the exec and web settings, the tools offered, the running subagents, the
current request (``request.channel`` …) and a scratchpad of notes (kept until the app
restarts, as in 0.3.5). Nothing secret is ever shown (keys, tokens, passwords).

What it may change (``set``): ``max_iterations`` (1–100), ``max_tokens`` (256–1,000,000) and
``temperature`` (0–2) for the turns that follow, in memory only (the config file is not
rewritten), and scratchpad notes. Only with ``tools.my.allowSet`` on, and every change goes
through the approval gate (:func:`~desktop.core.agent.approval.approval_reason`) like a write
outside the workspace. The model, the workspace, the sandbox and the approval rules are never
the agent's to change: they are the person's (Settings).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, ClassVar

from desktop.core.config.schema import Config
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.registry import ToolRegistry

SENSITIVE = re.compile(r"key|secret|password|token|credential|auth", re.IGNORECASE)
SETTABLE: dict[str, tuple[type, float, float]] = {
    "max_iterations": (int, 1, 100),
    "max_tokens": (int, 256, 1_000_000),
    "temperature": (float, 0.0, 2.0),
}
MAX_NOTES = 64
MAX_NOTE_CHARS = 4000


class MyTool(Tool):
    """Check the agent's own settings; change a few where allowed."""

    name: ClassVar[str] = "my"
    description: ClassVar[str] = (
        "Check your own runtime settings (check; key: dot-path, or none for all) or set "
        "max_iterations, max_tokens, temperature or a scratchpad note (set; if allowed)."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["check", "set"]},
            "key": {"type": "string"},
            "value": {},
        },
        "required": ["action"],
    }
    read_only: ClassVar[bool] = False
    group: ClassVar[str] = "self"

    def __init__(
        self,
        config: Config,
        registry: ToolRegistry,
        *,
        model: Callable[[], str],
        subagents: Callable[[], list[str]] = list,
    ) -> None:
        self.config = config
        self.registry = registry
        self.model = model
        self.subagents = subagents
        self.scratchpad: dict[str, Any] = {}

    def definition(self) -> dict[str, Any]:
        """The definition; it says when ``set`` is off (so the model does not ask for it)."""
        found = super().definition()
        if not self.config.tools.my.allow_set:
            found["function"]["description"] += " set is off here."
        return found

    def snapshot(self, ctx: ToolContext) -> dict[str, Any]:
        """Everything ``check`` can show (nothing secret)."""
        defaults = self.config.agents.defaults
        tools = self.config.tools
        return {
            "model": self.model(),
            "max_iterations": defaults.max_tool_iterations,
            "max_tokens": defaults.max_tokens,
            "context_window_tokens": defaults.context_window_tokens,
            "temperature": defaults.temperature,
            "workspace": str(self.config.workspace_path),
            "restrict_to_workspace": tools.restrict_to_workspace,
            "exec_config": {
                "timeout": tools.exec.timeout,
                "sandbox": tools.exec.sandbox or "auto",
                "sandbox_network": tools.exec.sandbox_network,
            },
            "web_config": {"search_provider": tools.web.search.provider},
            "tool_names": self.registry.names(),
            "tool_groups_loaded": sorted(ctx.tool_groups or ()),
            "subagents": self.subagents(),
            "request": {"channel": ctx.channel, "chat_id": ctx.chat_id},
            "allow_set": tools.my.allow_set,
            "scratchpad": dict(self.scratchpad),
        }

    def _check(self, ctx: ToolContext, key: str) -> ToolResult:
        value: Any = self.snapshot(ctx)
        if not key:
            return ToolResult(json.dumps(value, ensure_ascii=False, default=str))
        parts = key.split(".")
        for part in parts:
            if SENSITIVE.search(part) or part.startswith("_"):
                return ToolResult.error(f"Error: '{part}' is not accessible")
        for part in parts:
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif key in self.scratchpad:
                value = self.scratchpad[key]
                break
            else:
                return ToolResult.error(f"Error: no setting '{key}'; check without key lists them")
        return ToolResult(f"{key}: {json.dumps(value, ensure_ascii=False, default=str)}")

    def _set(self, key: str, value: Any) -> ToolResult:  # noqa: C901  # one guard per refused key or value
        if not self.config.tools.my.allow_set:
            return ToolResult.error(
                "Error: set is off (the person has not allowed tools.my.allowSet)"
            )
        if not key.strip():
            return ToolResult.error("Error: set needs a key")
        if SENSITIVE.search(key) or key.startswith("_"):
            return ToolResult.error(f"Error: '{key}' is protected")
        defaults = self.config.agents.defaults
        if key in SETTABLE:
            kind, low, high = SETTABLE[key]
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                return ToolResult.error(f"Error: '{key}' needs a number")
            try:
                number = kind(value)
            except ValueError:
                return ToolResult.error(f"Error: '{key}' needs a number, not {value!r}")
            if not low <= number <= high:
                return ToolResult.error(f"Error: '{key}' must be between {low:g} and {high:g}")
            field = "max_tool_iterations" if key == "max_iterations" else key
            old = getattr(defaults, field)
            setattr(defaults, field, number)
            return ToolResult(f"Set {key} = {number!r} (was {old!r}) for the turns that follow.")
        if key in self.snapshot(ToolContext(workspace=self.config.workspace_path)):
            return ToolResult.error(f"Error: '{key}' is the person's to change (Settings)")
        encoded = json.dumps(value, ensure_ascii=False, default=str)
        if len(encoded) > MAX_NOTE_CHARS:
            return ToolResult.error(f"Error: a note may hold {MAX_NOTE_CHARS} characters")
        if key not in self.scratchpad and len(self.scratchpad) >= MAX_NOTES:
            return ToolResult.error(
                f"Error: the scratchpad holds {MAX_NOTES} notes; set one to null"
            )
        if value is None:
            self.scratchpad.pop(key, None)
            return ToolResult(f"Removed scratchpad.{key}.")
        self.scratchpad[key] = json.loads(encoded)
        return ToolResult(f"Set scratchpad.{key} = {encoded}")

    async def execute(
        self, ctx: ToolContext, *, action: str, key: str = "", value: Any = None, **_: Any
    ) -> ToolResult:
        """``check`` a setting (or all), or ``set`` one."""
        if action == "check":
            return self._check(ctx, key.strip())
        if action == "set":
            return self._set(key.strip(), value)
        return ToolResult.error("Error: action must be 'check' or 'set'")
