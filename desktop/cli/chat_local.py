"""``nanobot-desktop agent`` in this process (no app or gateway is running to hand it to).

The terminal is the ``cli`` channel: what the ``message`` tool sends to it and the reports of
background subagents are printed too (a one-shot ``-m`` waits for the subagents it started).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load
from desktop.cli.interactive import HELP, converse
from desktop.core.agent.loop import AgentLoop
from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.bus.events import OutboundMessage, RunEvent, TurnFinished, TurnStarted
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.engine.hooks import AgentHook, HookContext
from desktop.core.providers.base import LLMError, StreamDelta, ToolCallRequest
from desktop.core.providers.factory import MissingKeyError
from desktop.core.providers.matching import ProviderNotFound
from desktop.core.runtime import Runtime


class TerminalHook(AgentHook):
    """Streams the answer to stdout and one line per tool call to stderr."""

    def __init__(self) -> None:
        self.printed = False

    def wants_streaming(self) -> bool:
        return True

    async def on_stream(self, ctx: HookContext, delta: StreamDelta) -> None:
        if delta.kind == "text":
            sys.stdout.write(delta.text)
            sys.stdout.flush()
            self.printed = True
        elif delta.kind == "retry":
            if self.printed:
                sys.stdout.write("\n")
                self.printed = False
            sys.stderr.write(
                f"[{delta.text} Retrying ({delta.attempt + 1}/{delta.max_attempts})…]\n"
            )
        elif delta.kind == "fallback":
            if self.printed:
                sys.stdout.write("\n")
                self.printed = False
            sys.stderr.write(f"[{delta.text}]\n")

    async def on_tool_started(self, ctx: HookContext, call: ToolCallRequest) -> None:
        if self.printed:
            sys.stdout.write("\n")
            self.printed = False
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        sys.stderr.write(f"[{call.name}] {arguments[:120]}\n")


class TerminalChannel:
    """The ``cli`` channel: messages for the terminal's chat are printed."""

    name = "cli"

    def __init__(self, session: str) -> None:
        self.session = session

    async def send(self, message: OutboundMessage) -> None:
        """Print a message the agent sent on its own (``message`` tool)."""
        if message.metadata.get("progress") or message.metadata.get("command"):
            return
        if f"{message.channel}:{message.chat_id}" == self.session:
            sys.stdout.write(f"\n[message] {message.content}\n")
            sys.stdout.flush()


def _print_reports(bus: MessageBus, session: str) -> None:
    """Print the answers of turns that summarise a subagent's report in ``session``."""
    reports: set[str] = set()

    def on_event(event: RunEvent) -> None:
        if isinstance(event, TurnStarted) and event.session_key == session:
            if event.source == "subagent":
                reports.add(event.turn_id)
        elif isinstance(event, TurnFinished) and event.turn_id in reports:
            reports.discard(event.turn_id)
            sys.stdout.write(f"\n[background task] {event.content}\n")
            sys.stdout.flush()

    bus.subscribe(on_event)


async def _settle(runtime: Runtime) -> None:
    """Wait for the subagents this run started and the turns that report them."""
    while True:
        await runtime.subagents.idle()
        await asyncio.sleep(0)
        if runtime.bus.inbound.empty() and not runtime.agent.background:
            return
        await runtime.agent.idle()


async def _turn(loop: AgentLoop, session: str, text: str) -> bool:
    hook = TerminalHook()
    channel, _, chat_id = session.partition(":")
    try:
        answer = await loop.process_direct(
            text,
            session_key=session,
            channel=channel or "cli",
            chat_id=chat_id or "direct",
            hook=hook,
        )
    except LLMError as exc:
        sys.stdout.write("\n" if hook.printed else "")
        fail(f"{exc.message} (your message is saved in session {session})", EXIT_FAILED)
        return False
    if not hook.printed and answer != "Stopped.":  # a stopped turn says so itself
        sys.stdout.write(answer or "(the model returned no text)")
    sys.stdout.write("\n")
    sys.stdout.flush()
    return True


async def _chat(config: Config, args: argparse.Namespace) -> int:
    from desktop.cli.usage import say_budget_events

    bus = MessageBus()
    bus.subscribe(say_budget_events)
    _print_reports(bus, args.session)
    try:
        # The terminal only: no chat networks, no scheduler (the app or gateway runs those).
        runtime = await start_runtime(config, StartOptions.one_command(model=args.model, bus=bus))
    except (ProviderNotFound, MissingKeyError) as exc:
        return fail(str(exc))
    runtime.channels.register(TerminalChannel(args.session))
    choice = runtime.provider.choice
    try:
        code = await _converse(runtime.agent, choice.model, choice.spec.display_name, args)
        if args.message is not None:
            await _settle(runtime)
        return code
    finally:
        await runtime.stop()  # cancels subagents, stops MCP children


async def _converse(loop: AgentLoop, model: str, provider: str, args: argparse.Namespace) -> int:
    if args.message is not None:
        return EXIT_OK if await _turn(loop, args.session, args.message) else EXIT_FAILED
    print(f"nanobot ({model} via {provider}). {HELP}")
    return await converse(
        lambda text: _turn(loop, args.session, text), lambda: loop.stop_session(args.session)
    )


def run_local(args: argparse.Namespace) -> int:
    """Run one message (``-m``) or an interactive prompt with an agent of our own."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    try:
        return asyncio.run(_chat(config, args))
    except KeyboardInterrupt:
        print()
        return 130
