"""Background subagents: a runner with a reduced tool set, reporting back to the origin chat.

A subagent gets file, search, shell and web tools only (no ``message``, ``spawn`` or ``cron``),
its own iteration cap, and runs as a task owned by the origin session (``/stop`` cancels it).
When it ends, its report is published on the ``system`` channel; the loop routes it to the
origin session, where the agent summarises it for the user.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import platform
from collections.abc import Awaitable, Callable
from typing import Any

from desktop.core.agent.work import SessionWork
from desktop.core.bus.events import SYSTEM_CHANNEL, InboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.engine.runner import AgentRunner, ApprovalCheck
from desktop.core.providers.base import LLMError, LLMProvider
from desktop.core.providers.switchable import usage_scope
from desktop.core.tools.base import ToolContext
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.resources import aread_template
from desktop.core.utils.tasks import TaskOwner, finish

log = logging.getLogger(__name__)

SUBAGENT_MAX_ITERATIONS = 15


class SubagentManager:
    """Starts and tracks subagents.

    Args:
        provider: Model backend.
        bus: Where results are announced.
        tools_factory: Builds the subagent's (reduced) tool registry.
        work: Where a subagent is registered under its origin session (``/stop`` cancels it).
        owner: Owns the subagent tasks (closed with the runtime).
        approval: Asked before a subagent's risky tool calls, as for the main agent.
        max_concurrent: Subagents allowed at once.
        on_end: Called with a subagent's own session key when it ends (its exec sessions
            end with it).
    """

    def __init__(
        self,
        provider: LLMProvider,
        bus: MessageBus,
        tools_factory: Callable[[], ToolRegistry],
        *,
        work: SessionWork,
        owner: TaskOwner,
        approval: ApprovalCheck | None = None,
        max_concurrent: int = 4,
        max_iterations: int = SUBAGENT_MAX_ITERATIONS,
        context_window: int = 65_536,
        max_tokens: int = 8192,
        on_end: Callable[[str], Awaitable[object]] | None = None,
    ) -> None:
        self.provider = provider
        self.bus = bus
        self.tools_factory = tools_factory
        self.max_concurrent = max_concurrent
        self.max_iterations = max_iterations
        self.context_window = context_window
        self.max_tokens = max_tokens
        self.work = work
        self.approval = approval
        self.on_end = on_end
        self._owner = owner
        self.running: dict[str, asyncio.Task[Any]] = {}
        self._inline = 0  # subagents a turn waits for (spawn with wait), in the turn's task
        self._ids = itertools.count(1)

    async def spawn(self, task: str, label: str, ctx: ToolContext) -> str:
        """Start a subagent for ``task``; returns its id.

        Raises:
            RuntimeError: Too many subagents are running.
        """
        if len(self.running) + self._inline >= self.max_concurrent:
            raise RuntimeError(
                f"{len(self.running)} background tasks are already running (limit {self.max_concurrent}); "
                "wait for one to finish"
            )
        task_id = f"sub-{next(self._ids)}"
        job = self._owner.spawn(self._run(task_id, task, label, ctx), name=f"subagent:{task_id}")
        self.running[task_id] = job
        job.add_done_callback(lambda _t: self.running.pop(task_id, None))
        self.work.add_child(ctx.session_key, job)
        return task_id

    async def _work(self, task_id: str, task: str, ctx: ToolContext) -> tuple[str, str]:
        """Run the subagent to its end: ``(status, report)``; a cancel goes through."""
        system = (
            (await aread_template("agent", "subagent.md"))
            .format(
                runtime=f"{platform.system()} {platform.machine()}",
                workspace=ctx.workspace,
            )
            .strip()
        )
        runner = AgentRunner(
            self.provider,
            self.tools_factory(),
            max_iterations=self.max_iterations,
            context_window=self.context_window,
            max_tokens=self.max_tokens,
            approval=self.approval,
        )
        sub_ctx = ToolContext(
            workspace=ctx.workspace,
            session_key=f"{ctx.session_key}#{task_id}",
            channel=ctx.channel,
            chat_id=ctx.chat_id,
            restrict_to_workspace=ctx.restrict_to_workspace,
            protected_paths=ctx.protected_paths,
            source="subagent",
            agent_workspace=ctx.agent_workspace,
        )
        messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
        try:
            with usage_scope(source="subagent", session=ctx.session_key, run=task_id):
                result = await runner.run(messages, sub_ctx, session_key=sub_ctx.session_key)
            if result.stop_reason == "empty":
                return "failed", "the model returned no answer"
            return "completed", result.content
        except asyncio.CancelledError:
            log.info("subagent %s cancelled", task_id)
            raise
        except LLMError as exc:
            return "failed", exc.message
        except Exception as exc:  # report, don't vanish
            log.exception("subagent %s crashed", task_id)
            return "failed", f"{type(exc).__name__}: {exc}"
        finally:
            if self.on_end is not None:
                await finish(self.on_end(sub_ctx.session_key))

    async def run_inline(self, task: str, label: str, ctx: ToolContext) -> str:
        """Run a subagent in the calling task (``spawn`` with ``wait``) and return its report.

        It counts against the concurrency limit while it runs; ``/stop`` of the turn cancels it.

        Raises:
            RuntimeError: Too many subagents are running.
        """
        if len(self.running) + self._inline >= self.max_concurrent:
            raise RuntimeError(
                f"{len(self.running) + self._inline} subagents are already running "
                f"(limit {self.max_concurrent}); wait for one to finish"
            )
        task_id = f"sub-{next(self._ids)}"
        self._inline += 1
        try:
            status, report = await self._work(task_id, task, ctx)
        finally:
            self._inline -= 1
        return f"Subagent {task_id} ({label}) {status}:\n{report}"

    async def _run(self, task_id: str, task: str, label: str, ctx: ToolContext) -> None:
        status, report = await self._work(task_id, task, ctx)
        content = (
            (await aread_template("agent", "subagent_result.md"))
            .format(label=label, status=status, result=report)
            .strip()
        )
        await self.bus.publish_inbound(
            InboundMessage(
                SYSTEM_CHANNEL,
                "subagent",
                f"{ctx.channel}:{ctx.chat_id}",
                content,
                metadata={
                    "subagent": task_id,
                    "origin_channel": ctx.channel,
                    "origin_chat_id": ctx.chat_id,
                },
                session_key_override=ctx.session_key,
            )
        )

    def set_limits(self, *, context_window: int, max_tokens: int) -> None:
        """Use a new context window for subagents started from now on."""
        self.context_window = context_window
        self.max_tokens = max_tokens

    async def idle(self) -> None:
        """Wait until no subagent runs (tests)."""
        await self._owner.idle()

    async def cancel_all(self) -> None:
        """Cancel every running subagent and wait for them."""
        jobs = list(self.running.values())
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)
