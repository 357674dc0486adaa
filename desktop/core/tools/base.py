"""The tool contract: schema, safety flags, context, results.

A tool is a small class with a JSON-schema ``parameters`` object and an async ``execute``.
``read_only`` tools that are not ``exclusive`` may run concurrently with each other; every other
call runs alone, in order. Errors are returned as results (``is_error``), not raised: the model
reads them and tries another approach.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar


@dataclass(frozen=True)
class ToolContext:
    """What a tool call knows about where it runs.

    Attributes:
        workspace: Where the call works: the chat's project folder when it has one
            (:mod:`desktop.core.session.project`), else the agent's workspace. Relative
            paths start here and ``restrict_to_workspace`` keeps calls inside it.
        session_key: Conversation the call belongs to.
        channel: Channel of the conversation (``desktop``, ``cli``, ``telegram``…).
        chat_id: Chat within the channel.
        restrict_to_workspace: Whether file and exec access must stay inside the workspace.
        protected_paths: Files and folders tools must never write (sessions, config, .git…).
        turn_id: The turn the call belongs to (``""`` outside a turn).
        tool_groups: The deferred tool groups the model has loaded in this conversation
            (:mod:`desktop.core.tools.groups`); ``None``: nothing is deferred (subagents,
            direct calls), every tool's definition is sent.
        source: What started the turn (``message``: a person; ``cron``, ``heartbeat``,
            ``subagent``, ``session``…), for tools that only a person's turn may use.
        agent_workspace: The agent's own workspace when ``workspace`` is a project folder
            (its state stays protected, its skills readable); ``None``: ``workspace`` is it.
    """

    workspace: Path
    session_key: str = "cli:direct"
    channel: str = "cli"
    chat_id: str = "direct"
    restrict_to_workspace: bool = False
    protected_paths: tuple[Path, ...] = ()
    turn_id: str = ""
    tool_groups: set[str] | None = field(default=None, compare=False, hash=False)
    source: str = "message"
    agent_workspace: Path | None = None

    @property
    def own_workspace(self) -> Path:
        """The agent's workspace (SOUL, memory, skills, its protected state)."""
        return self.agent_workspace if self.agent_workspace is not None else self.workspace


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns.

    Attributes:
        text: The text the model reads.
        images: Extra content parts (``{"type": "image_url", ...}``) for image results.
        is_error: Whether the call failed.
        diff: What a file tool changed, as a capped unified diff for the person's view
            (:mod:`desktop.core.tools.diffs`); never sent to the model.
    """

    text: str
    images: tuple[dict[str, Any], ...] = field(default=())
    is_error: bool = False
    diff: str = ""

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failed call with ``message`` for the model."""
        return cls(message, is_error=True)

    def content(self) -> str | list[dict[str, Any]]:
        """Tool-message content: plain text, or text plus image parts."""
        if not self.images:
            return self.text
        return [{"type": "text", "text": self.text}, *self.images]


class Tool(ABC):
    """Base class of every tool.

    Class attributes:
        name: Unique tool name the model calls.
        description: One or two tight sentences (they cost tokens on every request).
        parameters: JSON schema of the arguments (``type: object``).
        read_only: Never changes anything outside the agent.
        exclusive: Must not overlap with any other call (e.g. ``exec``).
        group: The deferred group the tool belongs to (``""``: always offered). A deferred
            tool's definition is sent only once the model loaded its group (or called it);
            see :mod:`desktop.core.tools.groups`.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    read_only: ClassVar[bool] = False
    exclusive: ClassVar[bool] = False
    group: ClassVar[str] = ""

    @property
    def concurrency_safe(self) -> bool:
        """Whether this call may run at the same time as other safe calls."""
        return self.read_only and not self.exclusive

    def definition(self) -> dict[str, Any]:
        """The OpenAI-style function definition sent to the model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(self.parameters),
            },
        }

    @abstractmethod
    async def execute(self, ctx: ToolContext, /, *args: Any, **kwargs: Any) -> ToolResult:
        """Run the tool with validated arguments (always passed by keyword).

        Each tool names its own keyword-only arguments; ``*args: Any, **kwargs: Any`` is how a
        type checker is told that an override may take any arguments.
        """
