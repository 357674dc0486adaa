"""Tool approval: which calls need a person's yes, and how their answers are remembered.

Before a call that runs a shell command (``exec``), writes a file outside the workspace
(``write_file``, ``edit_file``, ``notebook_edit``) or calls an MCP server tool (``mcp_*``),
the runner asks an :class:`ApprovalGate`. The gate consults the :class:`ApprovalPolicy`
(mode, always-allowed tools, per-chat allowances) and, when the policy has no answer, awaits
an :class:`Approver` — the desktop window shows a prompt in the chat and resolves a future
from its buttons (no nested event loop). A denial becomes the tool's result, a clear text the
model reads (:data:`DENIED_RESULT`).

This module is Qt-free; the prompt lives in ``desktop.ui.chat``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Literal, Protocol

from desktop.core.tools.base import ToolContext

log = logging.getLogger(__name__)

ApprovalMode = Literal["ask", "autonomous"]
APPROVAL_MODES: tuple[str, ...] = ("ask", "autonomous")
SHELL_TOOLS = frozenset({"exec"})
WRITE_TOOLS = frozenset({"write_file", "edit_file", "notebook_edit"})
MCP_PREFIX = "mcp_"
DENIED_RESULT = (
    "Denied by the user: the person did not allow this {tool} call, so it was not executed. "
    "Do not repeat it; ask the person what they want, or continue without it."
)
NO_APPROVER_RESULT = (
    "Not executed: this {tool} call needs the person's approval and nobody can approve it "
    "right now. Continue without it, or ask the person to allow it."
)


class Decision(str, Enum):
    """A person's answer to an approval prompt."""

    ALLOW_ONCE = "allow_once"
    ALLOW_SESSION = "allow_session"
    ALWAYS = "always"
    DENY = "deny"

    @property
    def allows(self) -> bool:
        """Whether the call may run."""
        return self is not Decision.DENY


@dataclass(frozen=True)
class ApprovalRequest:
    """One call waiting for a yes or no.

    Attributes:
        session_key: The conversation the call belongs to (its origin chat for subagents).
        call_id: The model's tool call id.
        tool: Tool name.
        arguments: The full arguments, as the model sent them.
        reason: Why approval is needed, for the person ("runs a shell command").
        channel: Channel of the conversation.
        chat_id: Chat within the channel.
    """

    session_key: str
    call_id: str
    tool: str
    arguments: dict[str, Any]
    reason: str
    channel: str = "desktop"
    chat_id: str = ""


class Approver(Protocol):
    """Asks a person; the coroutine ends when they answer (or is cancelled by ``/stop``)."""

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        """Return the person's decision for ``request``."""
        ...


def origin_session(key: str) -> str:
    """The chat a session key belongs to (a subagent's ``desktop:x#sub-1`` → ``desktop:x``)."""
    return key.split("#", 1)[0]


def _outside(raw: Any, workspace: Path) -> Path | None:
    """The resolved path when ``raw`` points outside ``workspace``, else ``None``."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    root = Path(os.path.realpath(Path(workspace).expanduser()))
    candidate = Path(os.path.expanduser(raw))
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = Path(os.path.realpath(candidate))
    if resolved == root or root in resolved.parents:
        return None
    return resolved


def approval_reason(tool: str, arguments: dict[str, Any], workspace: Path) -> str | None:
    """Why ``tool`` with ``arguments`` needs approval, or ``None`` when it does not."""
    if tool in SHELL_TOOLS:
        return "runs a shell command"
    if tool in WRITE_TOOLS:
        target = _outside(arguments.get("path"), workspace)
        return f"writes outside the workspace: {target}" if target is not None else None
    if tool.startswith(MCP_PREFIX):
        return "calls a tool of an MCP server"
    return None


@dataclass
class ApprovalPolicy:
    """What is allowed without asking.

    Args:
        mode: ``"ask"`` (prompt before risky calls) or ``"autonomous"`` (nanobot's behaviour:
            never ask).
        always_allowed: Tool names allowed everywhere (persisted by the app).
        on_change: Called with the policy after :attr:`mode` or :attr:`always_allowed`
            changed (the app saves its prefs there). Per-chat allowances are not persisted.
    """

    mode: ApprovalMode = "ask"
    always_allowed: set[str] = field(default_factory=set)
    on_change: Callable[[ApprovalPolicy], Any] | None = None
    session_allowed: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.mode not in APPROVAL_MODES:
            raise ValueError(f"approval mode must be one of {APPROVAL_MODES}, not {self.mode!r}")
        self.always_allowed = set(self.always_allowed)

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception:  # saving prefs must not break a turn
                log.exception("approval policy on_change failed")

    def set_mode(self, mode: ApprovalMode) -> None:
        """Switch between ``ask`` and ``autonomous``."""
        if mode not in APPROVAL_MODES:
            raise ValueError(f"approval mode must be one of {APPROVAL_MODES}, not {mode!r}")
        if mode != self.mode:
            self.mode = mode
            self._changed()

    def allow_always(self, tool: str) -> None:
        """Never ask about ``tool`` again."""
        if tool not in self.always_allowed:
            self.always_allowed.add(tool)
            self._changed()

    def revoke(self, tool: str) -> None:
        """Ask about ``tool`` again."""
        if tool in self.always_allowed:
            self.always_allowed.discard(tool)
            self._changed()

    def allow_for_session(self, session_key: str, tool: str) -> None:
        """Don't ask about ``tool`` again in this chat (until the app restarts)."""
        self.session_allowed.setdefault(origin_session(session_key), set()).add(tool)

    def forget_session(self, session_key: str) -> None:
        """Drop the chat's allowances (the chat was deleted)."""
        self.session_allowed.pop(origin_session(session_key), None)

    def is_allowed(self, session_key: str, tool: str) -> bool:
        """Whether ``tool`` may run in this chat without asking."""
        if self.mode == "autonomous" or tool in self.always_allowed:
            return True
        return tool in self.session_allowed.get(origin_session(session_key), set())

    def record(self, request: ApprovalRequest, decision: Decision) -> None:
        """Remember what a decision implies for later calls."""
        if decision is Decision.ALWAYS:
            self.allow_always(request.tool)
        elif decision is Decision.ALLOW_SESSION:
            self.allow_for_session(request.session_key, request.tool)


class ApprovalGate:
    """What the runner consults before each tool call.

    Args:
        policy: The rules and remembered answers.
        approver: Who asks the person; ``None`` means nobody can be asked, and calls that need
            approval are refused with :data:`NO_APPROVER_RESULT` (unless the policy allows).
    """

    def __init__(self, policy: ApprovalPolicy, approver: Approver | None = None) -> None:
        self.policy = policy
        self.approver = approver

    def needs_approval(self, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """The reason to ask about this call, or ``None`` when it may run."""
        reason = approval_reason(tool, arguments, ctx.workspace)
        if reason is None or self.policy.is_allowed(ctx.session_key, tool):
            return None
        return reason

    async def check(
        self, call_id: str, tool: str, arguments: dict[str, Any], ctx: ToolContext
    ) -> str | None:
        """``None`` when the call may run, else the tool result text explaining the refusal.

        Awaits the approver when needed; cancelling the turn cancels the wait.
        """
        reason = self.needs_approval(tool, arguments, ctx)
        if reason is None:
            return None
        if self.approver is None:
            return NO_APPROVER_RESULT.format(tool=tool)
        request = ApprovalRequest(
            origin_session(ctx.session_key),
            call_id,
            tool,
            dict(arguments),
            reason,
            ctx.channel,
            ctx.chat_id,
        )
        decision = Decision(await self.approver.request_approval(request))
        self.policy.record(request, decision)
        log.info("approval for %s in %s: %s", tool, request.session_key, decision.value)
        return None if decision.allows else DENIED_RESULT.format(tool=tool)


def install_gate(agent: Any, gate: ApprovalGate | None) -> None:
    """Make ``agent`` (an AgentLoop) and its subagents consult ``gate`` before tool calls.

    Sets ``agent.tools.approval`` and wraps the subagent tool factory so every registry a
    subagent gets carries the gate too. ``None`` removes the gate. Idempotent.
    """
    agent.tools.approval = gate
    subagents = getattr(agent, "subagents", None)
    if subagents is None:
        return
    factory = getattr(subagents, "tools_factory", None)
    base = getattr(factory, "__wrapped_factory__", factory)
    if base is None:
        return

    def gated() -> Any:
        registry = base()
        registry.approval = gate
        return registry

    gated.__wrapped_factory__ = base  # type: ignore[attr-defined]
    subagents.tools_factory = gated
