"""Tool approval: which calls need a person's yes, and how their answers are remembered.

Before a call that runs a shell command (``exec``, or input for a running one through
``exec_session``), writes a file outside the workspace (``write_file``, ``edit_file``,
``notebook_edit``, an ``apply_patch`` edit), calls an MCP server tool (``mcp_*``), changes the
agent's own settings (``my`` with ``set``) or, from a chat network's chat (not the window or the
terminal), reads or messages the person's other chats (the session tools), the runner asks an
:class:`ApprovalGate`. The gate consults the :class:`ApprovalPolicy`
(mode, always-allowed tools, per-chat allowances) and, when the policy has no answer, awaits
an :class:`Approver` — the desktop window shows a prompt in the chat and resolves a future
from its buttons (no nested event loop). A denial becomes the tool's result, a clear text the
model reads (:data:`DENIED_RESULT`).

This module is Qt-free; the prompt lives in ``desktop.ui.chat``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Literal, Protocol

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.tools.base import ToolContext
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

log = logging.getLogger(__name__)

ApprovalMode = Literal["ask", "autonomous"]
APPROVAL_MODES: tuple[str, ...] = ("ask", "autonomous")
SHELL_TOOLS = frozenset({"exec"})
# Input typed into a running exec session is a new command: it is asked about like ``exec``,
# and one allowance covers both (an allowance of either is recorded as ``exec``'s).
EXEC_SESSION_TOOLS = frozenset({"exec_session"})
WRITE_TOOLS = frozenset({"write_file", "edit_file", "notebook_edit"})
SESSION_TOOLS = frozenset({"list_sessions", "read_session", "search_sessions"})
#: Channels whose chats are the person at the machine: the window and the terminal.
PERSON_CHANNELS = frozenset({DESKTOP_CHANNEL, "cli"})
MCP_PREFIX = "mcp_"
DENIED_RESULT = (
    "Denied by the user: the person did not allow this {tool} call, so it was not executed. "
    "Do not repeat it; ask the person what they want, or continue without it."
)
NO_APPROVER_RESULT = (
    "Not executed: this {tool} call needs the person's approval and nobody can approve it "
    "right now. Continue without it, or ask the person to allow it."
)
TIMED_OUT_RESULT = (
    "Not executed: nobody answered the approval request for this {tool} call within "
    "{waited}, so it timed out and was treated as denied. Continue without it, or ask the "
    "person."
)
DEFAULT_TIMEOUT_S = 600.0
"""An unanswered approval request counts as denied after ten minutes unless set otherwise."""


class Decision(str, Enum):  # noqa: UP042 - StrEnum would change str(): kept as it was
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
        turn_id: The turn the call belongs to (call ids are unique within a turn only).
    """

    session_key: str
    call_id: str
    tool: str
    arguments: dict[str, Any]
    reason: str
    channel: str = DESKTOP_CHANNEL
    chat_id: str = ""
    turn_id: str = ""


class Approver(Protocol):
    """Asks a person; the coroutine ends when they answer (or is cancelled by ``/stop``).

    An approver may also have ``serves(request) -> bool``: it is asked only about the
    requests it serves (a terminal: the turns it started).
    """

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


def allowance_name(tool: str) -> str:
    """The tool name an allowance of ``tool`` is kept under (``exec_session`` → ``exec``)."""
    return "exec" if tool in EXEC_SESSION_TOOLS else tool


def approval_reason(  # noqa: C901  # one rule per tool family, in the documented order
    tool: str, arguments: dict[str, Any], workspace: Path, channel: str = DESKTOP_CHANNEL
) -> str | None:
    """Why ``tool`` with ``arguments`` needs approval, or ``None`` when it does not.

    ``channel``: where the call's conversation is (the session tools ask only outside the
    window and the terminal).
    """
    if tool in SHELL_TOOLS:
        return Phrase(QT_TR_NOOP("runs a shell command"))
    if tool in EXEC_SESSION_TOOLS:  # reading output, closing the input, terminating: nothing new
        data = arguments.get("input")
        if isinstance(data, str) and data:
            return Phrase(
                QT_TR_NOOP("types a command into a running program (allowing it allows exec too)")
            )
        return None
    if tool in WRITE_TOOLS:
        target = _outside(arguments.get("path"), workspace)
        return _outside_reason(target) if target is not None else None
    if tool == "apply_patch":
        edits = arguments.get("edits")
        for edit in edits if isinstance(edits, list) else []:
            target = _outside(edit.get("path") if isinstance(edit, dict) else None, workspace)
            if target is not None:
                return _outside_reason(target)
        return None
    if tool.startswith(MCP_PREFIX):
        return Phrase(QT_TR_NOOP("calls a tool of an MCP server"))
    if tool == "my" and arguments.get("action") == "set":
        return Phrase(
            QT_TR_NOOP("changes the agent's own setting {key} to {value}"),
            key=str(arguments.get("key")),
            value=repr(arguments.get("value")),
        )
    if channel.split(":", 1)[0] not in PERSON_CHANNELS:
        if tool in SESSION_TOOLS:
            return Phrase(QT_TR_NOOP("reads your other chats from this chat"))
        if tool == "send_session_message":
            return Phrase(
                QT_TR_NOOP("sends a message into your chat {chat}"), chat=str(arguments.get("to"))
            )
    return None


def _outside_reason(target: object) -> str:
    return Phrase(QT_TR_NOOP("writes outside the workspace: {target}"), target=str(target))


def _clause(sentence: str) -> str:
    """``sentence`` without its final period, still a phrase when it is one (the marked
    template without the period is listed too: ``unsandboxed_warning``'s clause)."""
    if isinstance(sentence, Phrase) and sentence.template.endswith("."):
        return Phrase(sentence.template[:-1], **sentence.fields)
    return sentence.rstrip(".")


def _check_timeout(seconds: float | None) -> None:
    if seconds is not None and not seconds > 0:
        raise ValueError(f"an approval timeout must be positive seconds or None, not {seconds!r}")


def describe_wait(seconds: float) -> str:
    """``10 minutes``, ``1 minute``, ``90 seconds``, ``0.2 seconds`` (for the model's result)."""
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    if seconds >= 1 and float(seconds).is_integer():
        return f"{int(seconds)} second{'s' if seconds != 1 else ''}"
    return f"{seconds:g} seconds"


@dataclass
class ApprovalPolicy:
    """What is allowed without asking.

    Args:
        mode: ``"ask"`` (prompt before risky calls) or ``"autonomous"`` (nanobot's behaviour:
            never ask).
        always_allowed: Tool names allowed everywhere (persisted by the app).
        on_change: Called with the policy after :attr:`mode`, :attr:`always_allowed` or
            :attr:`timeout_s` changed (the app saves its prefs there). Per-chat allowances are
            not persisted.
        timeout_s: An unanswered request counts as denied after this many seconds (``None``:
            wait until answered or the turn is stopped). The gate reads it for every request,
            so a change applies to the next request without a restart.
    """

    mode: ApprovalMode = "ask"
    always_allowed: set[str] = field(default_factory=set)
    on_change: Callable[[ApprovalPolicy], Any] | None = None
    session_allowed: dict[str, set[str]] = field(default_factory=dict)
    timeout_s: float | None = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.mode not in APPROVAL_MODES:
            raise ValueError(f"approval mode must be one of {APPROVAL_MODES}, not {self.mode!r}")
        self.always_allowed = set(self.always_allowed)
        _check_timeout(self.timeout_s)

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

    def set_timeout(self, seconds: float | None) -> None:
        """Count an unanswered request as denied after ``seconds`` (``None``: never).

        Raises:
            ValueError: ``seconds`` is not a positive number.
        """
        _check_timeout(seconds)
        if seconds != self.timeout_s:
            self.timeout_s = seconds
            self._changed()

    def allow_always(self, tool: str) -> None:
        """Never ask about ``tool`` again."""
        tool = allowance_name(tool)
        if tool not in self.always_allowed:
            self.always_allowed.add(tool)
            self._changed()

    def revoke(self, tool: str) -> None:
        """Ask about ``tool`` again."""
        tool = allowance_name(tool)
        if tool in self.always_allowed:
            self.always_allowed.discard(tool)
            self._changed()

    def allow_for_session(self, session_key: str, tool: str) -> None:
        """Don't ask about ``tool`` again in this chat (until the app restarts)."""
        tool = allowance_name(tool)
        self.session_allowed.setdefault(origin_session(session_key), set()).add(tool)

    def revoke_for_session(self, session_key: str, tool: str) -> None:
        """Ask about ``tool`` again in this chat."""
        tool = allowance_name(tool)
        allowed = self.session_allowed.get(origin_session(session_key))
        if allowed is not None:
            allowed.discard(tool)
            if not allowed:
                self.session_allowed.pop(origin_session(session_key), None)

    def forget_session(self, session_key: str) -> None:
        """Drop the chat's allowances (the chat was deleted)."""
        self.session_allowed.pop(origin_session(session_key), None)

    def is_allowed(self, session_key: str, tool: str) -> bool:
        """Whether ``tool`` may run in this chat without asking."""
        tool = allowance_name(tool)
        if self.mode == "autonomous" or tool in self.always_allowed:
            return True
        return tool in self.session_allowed.get(origin_session(session_key), set())

    def record(self, request: ApprovalRequest, decision: Decision) -> None:
        """Remember what a decision implies for later calls."""
        if decision is Decision.ALWAYS:
            self.allow_always(request.tool)
        elif decision is Decision.ALLOW_SESSION:
            self.allow_for_session(request.session_key, request.tool)


def serves(approver: Approver, request: ApprovalRequest) -> bool:
    """Whether ``approver`` takes ``request`` (see :class:`Approver`)."""
    check = getattr(approver, "serves", None)
    return bool(check(request)) if callable(check) else True


class _Keep(Enum):
    """The gate leaves the policy's timeout as it is."""

    KEEP = "keep"


_KEEP = _Keep.KEEP


@dataclass(frozen=True)
class _Registered:
    approver: Approver
    channels: frozenset[str] | None


class ApprovalGate:
    """What the runner consults before each tool call.

    The person is asked through every registered approver that serves the call's channel
    (the desktop window serves all channels; a chat channel serves its own chats); the first
    answer wins and the other prompts are withdrawn.

    Args:
        policy: The rules and remembered answers; its :attr:`~ApprovalPolicy.timeout_s` is
            the gate's timeout.
        timeout_s: Set the policy's timeout to this (tests); omitted, the policy's stays.
        shell_warning: Returns what to tell the person when shell commands run without the
            sandbox (``None`` when they do not). The first shell command asked about in each
            channel carries it in full, later ones a short reminder.
    """

    def __init__(
        self,
        policy: ApprovalPolicy,
        *,
        timeout_s: float | _Keep | None = _KEEP,
        shell_warning: Callable[[], Awaitable[str | None]] | None = None,
    ) -> None:
        self.policy = policy
        if not isinstance(timeout_s, _Keep):
            policy.set_timeout(timeout_s)
        self._approvers: list[_Registered] = []
        self._shell_warning = shell_warning
        self._warned: set[str] = set()

    @property
    def timeout_s(self) -> float | None:
        """Seconds until an unanswered request counts as denied (``None``: never); the
        policy's, read for each request."""
        return self.policy.timeout_s

    @timeout_s.setter
    def timeout_s(self, seconds: float | None) -> None:
        self.policy.set_timeout(seconds)

    def add_approver(
        self, approver: Approver, *, channels: Iterable[str] | None = None
    ) -> Callable[[], None]:
        """Ask ``approver`` for calls in ``channels`` (``None``: every channel).

        Returns:
            A function that removes it again.
        """
        entry = _Registered(approver, None if channels is None else frozenset(channels))
        self._approvers.append(entry)

        def remove() -> None:
            if entry in self._approvers:
                self._approvers.remove(entry)

        return remove

    def approvers_for(self, channel: str) -> list[Approver]:
        """The approvers that can answer for ``channel``."""
        return [e.approver for e in self._approvers if e.channels is None or channel in e.channels]

    def needs_approval(self, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """The reason to ask about this call, or ``None`` when it may run."""
        reason = approval_reason(tool, arguments, ctx.workspace, ctx.channel)
        if reason is None or self.policy.is_allowed(ctx.session_key, tool):
            return None
        return reason

    async def _shell_reason(self, reason: str, channel: str) -> str:
        """``reason`` with the no-sandbox warning: in full the first time in ``channel``."""
        warning = await self._shell_warning() if self._shell_warning is not None else None
        if not warning:
            return reason
        if channel in self._warned:
            return Phrase(QT_TR_NOOP("{reason} without the sandbox"), reason=reason)
        self._warned.add(channel)
        return Phrase(QT_TR_NOOP("{reason} — {warning}"), reason=reason, warning=_clause(warning))

    async def check(
        self, call_id: str, tool: str, arguments: dict[str, Any], ctx: ToolContext
    ) -> str | None:
        """``None`` when the call may run, else the tool result text explaining the refusal.

        Awaits the approvers when needed; cancelling the turn cancels the wait.
        """
        reason = self.needs_approval(tool, arguments, ctx)
        if reason is None:
            return None
        if not self.approvers_for(ctx.channel):
            return NO_APPROVER_RESULT.format(tool=tool)
        if tool in SHELL_TOOLS | EXEC_SESSION_TOOLS:
            reason = await self._shell_reason(reason, ctx.channel)
        request = ApprovalRequest(
            origin_session(ctx.session_key),
            call_id,
            tool,
            dict(arguments),
            reason,
            ctx.channel,
            ctx.chat_id,
            ctx.turn_id,
        )
        approvers = [a for a in self.approvers_for(ctx.channel) if serves(a, request)]
        if not approvers:
            return NO_APPROVER_RESULT.format(tool=tool)
        timeout = self.timeout_s
        asks = [asyncio.ensure_future(a.request_approval(request)) for a in approvers]
        try:
            done, _ = await asyncio.wait(asks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for ask in asks:
                ask.cancel()
            await asyncio.gather(*asks, return_exceptions=True)
        answers = [t for t in done if not t.cancelled() and t.exception() is None]
        if not answers:
            if not done:  # nobody answered in time
                log.info("approval for %s in %s timed out", tool, request.session_key)
                return TIMED_OUT_RESULT.format(tool=tool, waited=describe_wait(timeout or 0))
            error = next(iter(done)).exception()
            log.error("approval prompt failed", exc_info=error)
            return NO_APPROVER_RESULT.format(tool=tool)
        decision = Decision(answers[0].result())
        self.policy.record(request, decision)
        log.info("approval for %s in %s: %s", tool, request.session_key, decision.value)
        return None if decision.allows else DENIED_RESULT.format(tool=tool)
