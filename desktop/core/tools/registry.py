"""The tool registry: definitions for the model, and safe dispatch of calls.

Every result leaves :meth:`ToolRegistry.execute` with the secrets the app knows masked
(:func:`~desktop.core.utils.redact.redact_known`): a key a tool read from a file, a command's
output or ``/proc`` never reaches the session file or the next request to the provider.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Collection
from typing import Any

from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.validation import cast_params, validate_params
from desktop.core.utils.redact import redact, redact_known

log = logging.getLogger(__name__)

ERROR_HINT = "\n\n[Analyse the error above and try a different approach.]"


class ToolRegistry:
    """Holds tools by name; builtin tools first (sorted), then MCP tools (sorted).

    Definitions are byte-identical between turns while the set of tools is unchanged, which
    keeps provider-side prompt caches warm.
    """

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._external: set[str] = set()
        # An ApprovalGate (desktop.core.agent.approval) the runner asks before risky calls.
        self.approval: Any = None

    def register(self, tool: Tool, *, external: bool = False) -> None:
        """Add (or replace) a tool; ``external`` tools (MCP) are listed after builtins."""
        if not tool.name:
            raise ValueError(f"{type(tool).__name__} has no name")
        self._tools[tool.name] = tool
        if external:
            self._external.add(tool.name)
        else:
            self._external.discard(tool.name)

    def unregister(self, name: str) -> None:
        """Remove a tool if present."""
        self._tools.pop(name, None)
        self._external.discard(name)

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in definition order."""
        builtin = sorted(n for n in self._tools if n not in self._external)
        return builtin + sorted(self._external & self._tools.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def definitions(self, groups: Collection[str] | None = None) -> list[dict[str, Any]]:
        """Function definitions for the request, in a stable order.

        Args:
            groups: The deferred groups loaded in the conversation: tools of other groups are
                left out. ``None``: every tool.
        """
        return [
            tool.definition()
            for tool in map(self._tools.__getitem__, self.names())
            if groups is None or not tool.group or tool.group in groups
        ]

    def catalogue(self) -> dict[str, list[str]]:
        """The deferred groups and their tools' names, sorted."""
        found: dict[str, list[str]] = {}
        for name in self.names():
            group = self._tools[name].group
            if group:
                found.setdefault(group, []).append(name)
        return dict(sorted(found.items()))

    def unknown_tool_message(self, name: str) -> str:
        """An error for a name we do not have, with the closest matches."""
        close = difflib.get_close_matches(name, self.names(), n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        return (
            f"Error: there is no tool named '{name}'.{hint} Available: {', '.join(self.names())}."
        )

    async def execute(self, name: str, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Cast, validate and run a call. Every failure becomes an error result with a hint.

        The result's text has every registered secret masked.
        """
        result = await self._execute(name, arguments, ctx)
        text, diff = redact_known(result.text), redact_known(result.diff)
        if text == result.text and diff == result.diff:
            return result
        return ToolResult(text, result.images, result.is_error, diff)

    async def _execute(self, name: str, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        tool = self._tools.get(name)
        if tool is None:
            return ToolResult.error(self.unknown_tool_message(name) + ERROR_HINT)
        if tool.group and ctx.tool_groups is not None:
            ctx.tool_groups.add(tool.group)  # called without loading: offered from now on
        try:
            params = cast_params(tool.parameters, arguments)
            problems = validate_params(tool.parameters, params)
            if problems:
                return ToolResult.error(
                    f"Error: invalid arguments for {name}: " + "; ".join(problems) + ERROR_HINT
                )
            known = tool.parameters.get("properties")
            if isinstance(known, dict):
                dropped = sorted(set(params) - set(known))
                if dropped:
                    log.info("tool %s: ignoring unknown argument(s) %s", name, ", ".join(dropped))
                params = {k: v for k, v in params.items() if k in known}
            result = await tool.execute(ctx, **params)
        except Exception as exc:  # a tool bug must not end the turn
            log.exception("tool %s failed", name)
            return ToolResult.error(
                f"Error: {name} failed: {redact(f'{type(exc).__name__}: {exc}')}{ERROR_HINT}"
            )
        if result.is_error and ERROR_HINT not in result.text:
            return ToolResult(result.text + ERROR_HINT, result.images, True, result.diff)
        return result
