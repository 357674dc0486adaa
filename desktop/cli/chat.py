"""``nanobot-desktop agent``: chat from the terminal with streamed answers.

When the app or a gateway runs on the same config, the message is handed to it over its local
socket (:mod:`desktop.core.ipc`): one agent, one writer per session, and nothing heavy is
imported here. Otherwise the agent runs in this process (:mod:`desktop.cli.chat_local`).

A handed-off turn that needs an approval is asked here too when the terminal can answer (the
first answer wins, here or in the window); otherwise the terminal says where it waits.
Leaving (Ctrl-C, ``timeout``) before the turn began takes the message back.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_FAILED, EXIT_OK, fail
from desktop.cli.interactive import HELP, converse, read_answer
from desktop.core.ipc.client import AgentConnection, socket_path

HAND_OFF_ENV = "NANOBOT_DESKTOP_NO_HANDOFF"  # "1": always run in this process
ANSWERS = {
    **dict.fromkeys(("y", "yes", "allow", "once", "1"), "allow_once"),
    **dict.fromkeys(("c", "chat", "this chat", "2"), "allow_session"),
    **dict.fromkeys(("a", "always", "3"), "always"),
    **dict.fromkeys(("n", "no", "deny", "4"), "deny"),
}
WAITING = "Waiting for your approval in the nanobot Desktop window…"
CLOSED = "[No longer waiting for an answer here: answered in the window, timed out, or stopped.]"


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
            self.newline()
            arguments = json.dumps(event.get("arguments", {}), ensure_ascii=False)
            sys.stderr.write(f"[{event.get('name')}] {arguments[:120]}\n")
        elif kind == "model_retrying":
            self.newline()
            sys.stderr.write(
                f"[{event.get('reason')} Retrying "
                f"({int(event.get('attempt', 0)) + 1}/{event.get('max_attempts')})…]\n"
            )
        elif kind == "stream_reset" and self.printed:
            self.newline()
        elif kind == "outbound" and not event.get("metadata", {}).get("progress"):
            self.newline()
            sys.stdout.write(f"[message] {event.get('content', '')}\n")
        elif kind == "approval_closed":
            sys.stderr.write(f"\n{CLOSED}\n")
            sys.stderr.flush()

    def newline(self) -> None:
        """End the streamed line, if one is open."""
        if self.printed:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.printed = False


def _set_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _read_line() -> str | None:
    """One line typed on standard input, read without blocking the loop (so it can be
    cancelled when the question is answered elsewhere); ``None`` at the end of input."""
    with contextlib.suppress(LookupError):  # the interactive chat's reader owns the terminal
        return await read_answer()
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    data = b""
    while b"\n" not in data:
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, _set_once, ready)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        chunk = os.read(fd, 4096)  # readable: returns at once (a line, on a terminal)
        if not chunk:
            return data.decode(errors="replace") if data else None
        data += chunk
    return data.decode(errors="replace").split("\n", 1)[0]


class _TerminalAsker:
    """Asks a handed-off turn's approval question in the terminal (see the module docstring)."""

    def __init__(self, printer: _Printer) -> None:
        self.printer = printer
        self.tty = sys.stdin is not None and sys.stdin.isatty()

    async def __call__(self, event: dict[str, Any]) -> str | None:
        self.printer.newline()
        window = bool(event.get("window"))
        sys.stderr.write(f"{event.get('question', '')}\n")
        if self.tty:
            where = " (or answer in the window)" if window else ""
            while True:
                sys.stderr.write(f"Allow? [y] once, [c] this chat, [a] always, [n] deny{where}: ")
                sys.stderr.flush()
                line = await _read_line()
                if line is None:
                    break
                decision = ANSWERS.get(" ".join(line.lower().split()))
                if decision is not None:
                    return decision
        if window:
            sys.stderr.write(f"{WAITING}\n")
            sys.stderr.flush()
            return None
        sys.stderr.write("Nobody can answer it here and no window is open: denied.\n")
        return "deny"


async def _remote_turn(connection: AgentConnection, session: str, text: str) -> bool:
    from desktop.core.agent.commands import parse_command

    printer = _Printer()
    result = await connection.turn(
        session,
        text,
        printer,
        command=parse_command(text) is not None,
        ask=_TerminalAsker(printer),
    )
    status = result.get("status")
    if status == "refused":
        fail(str(result.get("message") or "the running agent refused the message"), EXIT_FAILED)
        return False
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


def _same_folder(a: str, b: str) -> bool:
    """Whether ``a`` (``~`` expanded) and ``b`` name the same folder (resolves links: blocking)."""
    return Path(a).expanduser().resolve() == Path(b).resolve()


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
        if wanted and not await asyncio.to_thread(_same_folder, wanted, hello["workspace"]):
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
