"""``nanobot-desktop agent``: chat from the terminal with streamed answers."""

from __future__ import annotations

import argparse
import asyncio
import sys

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load
from desktop.core.agent.direct import run_direct_turn
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMError, StreamDelta
from desktop.core.providers.factory import MissingKeyError, abuild_provider
from desktop.core.providers.matching import ProviderNotFound
from desktop.core.session.manager import SessionManager
from desktop.core.utils.threads import run_daemon


def _print_delta(delta: StreamDelta) -> None:
    if delta.kind == "text":
        sys.stdout.write(delta.text)
        sys.stdout.flush()
    elif delta.kind == "reset":
        sys.stdout.write("\n")
        sys.stderr.write("[connection lost; retrying]\n")
        sys.stdout.flush()


async def _chat(config: Config, args: argparse.Namespace) -> int:
    try:
        built = await abuild_provider(config, SecretStore(), model=args.model)
    except (ProviderNotFound, MissingKeyError) as exc:
        return fail(str(exc))
    sessions = SessionManager(config.workspace_path)

    async def turn(text: str) -> bool:
        try:
            _, response = await run_direct_turn(
                config, built.provider, sessions, args.session, text, on_delta=_print_delta
            )
        except LLMError as exc:
            sys.stdout.write("\n")
            fail(f"{exc.message} (your message is saved in session {args.session})", EXIT_FAILED)
            return False
        if not response.content:
            sys.stdout.write("(the model returned no text)")
        sys.stdout.write("\n")
        sys.stdout.flush()
        return True

    if args.message is not None:
        return EXIT_OK if await turn(args.message) else EXIT_FAILED
    print(f"nanobot ({built.choice.model} via {built.choice.spec.display_name}). Ctrl-D to quit.")
    while True:
        try:
            text = await run_daemon(lambda: input("you> "), "stdin")
        except EOFError:
            print()
            return EXIT_OK
        if not text.strip():
            continue
        if text.strip() in ("/exit", "/quit"):
            return EXIT_OK
        sys.stdout.write("nanobot> ")
        await turn(text)


def run_agent(args: argparse.Namespace) -> int:
    """Run one message (``-m``) or an interactive prompt."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    if args.message is not None and not args.message.strip():
        return fail("the message is empty")
    try:
        return asyncio.run(_chat(config, args))
    except KeyboardInterrupt:
        print()
        return 130
