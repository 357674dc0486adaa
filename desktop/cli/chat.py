"""``nanobot-desktop agent``: chat from the terminal with streamed answers.

When the app or a gateway runs on the same config, the message is handed to it over its local
socket (:mod:`desktop.core.ipc`): one agent, one writer per session, and nothing heavy is
imported here. Otherwise the agent runs in this process (:mod:`desktop.cli.chat_local`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_FAILED, EXIT_OK, fail
from desktop.cli.interactive import HELP, converse
from desktop.core.ipc.client import AgentConnection, socket_path

HAND_OFF_ENV = "NANOBOT_DESKTOP_NO_HANDOFF"  # "1": always run in this process


def _config_dir(args: argparse.Namespace) -> Path:
    if getattr(args, "config", None):
        return Path(args.config).expanduser().parent
    return Path.home() / ".nanobot"


class _Printer:
    """Prints a turn's events like the in-process terminal hook does."""

    def __init__(self) -> None:
        self.printed = False

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "text_delta":
            sys.stdout.write(str(event.get("text", "")))
            sys.stdout.flush()
            self.printed = True
        elif kind == "tool_started":
            self._newline()
            arguments = json.dumps(event.get("arguments", {}), ensure_ascii=False)
            sys.stderr.write(f"[{event.get('name')}] {arguments[:120]}\n")
        elif kind == "model_retrying":
            self._newline()
            sys.stderr.write(
                f"[{event.get('reason')} Retrying "
                f"({int(event.get('attempt', 0)) + 1}/{event.get('max_attempts')})…]\n"
            )
        elif kind == "stream_reset" and self.printed:
            self._newline()
        elif kind == "outbound" and not event.get("metadata", {}).get("progress"):
            self._newline()
            sys.stdout.write(f"[message] {event.get('content', '')}\n")

    def _newline(self) -> None:
        if self.printed:
            sys.stdout.write("\n")
            self.printed = False


async def _remote_turn(connection: AgentConnection, session: str, text: str) -> bool:
    from desktop.core.agent.commands import parse_command

    printer = _Printer()
    result = await connection.turn(session, text, printer, command=parse_command(text) is not None)
    status = result.get("status")
    if status == "stopped" and not printer.printed:
        sys.stdout.write("\n")  # the stop says so itself
        sys.stdout.flush()
        return True
    if status == "failed":
        sys.stdout.write("\n" if printer.printed else "")
        fail(f"{result.get('message')} (your message is saved in session {session})", EXIT_FAILED)
        return False
    if not printer.printed:
        sys.stdout.write(str(result.get("content") or "(the model returned no text)"))
    sys.stdout.write("\n")
    sys.stdout.flush()
    return True


async def _remote_stop(path: Path, session: str) -> None:
    """``/stop`` for ``session``, on a connection of its own (the turn's connection is busy
    with its events until the turn ends)."""
    connection = await AgentConnection.open(path)
    if connection is None:
        return
    try:
        await connection.turn(session, "/stop", lambda _event: None, command=True)
    finally:
        await connection.close()


async def _hand_off(args: argparse.Namespace) -> int | None:
    """Talk to a running app or gateway; ``None`` when there is none to talk to."""
    if os.environ.get(HAND_OFF_ENV) == "1" or getattr(args, "model", None):
        return None  # another model for this run: our own agent
    connection = await AgentConnection.open(socket_path(_config_dir(args)))
    if connection is None:
        return None
    try:
        hello = await connection.hello()
        if hello is None:
            return None
        wanted = getattr(args, "workspace", None)
        if wanted and Path(wanted).expanduser().resolve() != Path(hello["workspace"]).resolve():
            return None  # the running agent works in another workspace
        if args.message is not None:
            return EXIT_OK if await _remote_turn(connection, args.session, args.message) else 1
        print(f"nanobot ({hello.get('model')}, in the running app). {HELP}")
        path = socket_path(_config_dir(args))
        return await converse(
            lambda text: _remote_turn(connection, args.session, text),
            lambda: _remote_stop(path, args.session),
        )
    except (ConnectionError, OSError, ValueError) as exc:
        return fail(f"lost the connection to the running agent: {exc}", EXIT_FAILED)
    finally:
        await connection.close()


def run_agent(args: argparse.Namespace) -> int:
    """Run one message (``-m``) or an interactive prompt."""
    if args.message is not None and not args.message.strip():
        return fail("the message is empty")
    try:
        handed = asyncio.run(_hand_off(args))
    except KeyboardInterrupt:
        print()
        return 130
    if handed is not None:
        return handed
    from desktop.cli.chat_local import run_local

    return run_local(args)
