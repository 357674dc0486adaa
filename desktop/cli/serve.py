"""``nanobot-desktop serve``: the agent behind an OpenAI-compatible API (nanobot 0.3.5's
``serve``: ``/v1/chat/completions``, ``/v1/models``, ``/health``).

* **Where**: ``--host``/``--port``/``--timeout``, else the config's ``api`` section
  (``127.0.0.1``, port 8900, 120 s per request).
* **Token**: every request needs ``Authorization: Bearer <token>``. The token is the config's
  ``api.apiKey``, kept in the OS keyring. With none yet, the first ``serve`` on this machine
  makes one, keeps it in the keyring and prints it once; ``serve token`` shows it again
  (``--new`` replaces it). Without a keyring the token lives for this run only (printed at
  start) unless ``api.apiKey`` is set as a ``${VAR}`` reference or ``NANOBOT_API__API_KEY``.
  A host other machines can reach is refused until a token has been set up that way: a token
  made up for this run only is not handed to the network.
* **Sessions**: ``api:<session_id>`` from the request body, else ``api:default`` (nanobot's
  keys, so a conversation continues in either program).
* **Approvals** follow ``desktop.json`` (``approvalMode``, always-allowed tools). Nobody can be
  asked over the API: a call that needs a yes runs only when the person allowed the tool (or
  the mode is ``autonomous``); otherwise the model is told it was not executed.
* **Spend**: the turns count as the ``api`` source in the usage ledger, under the budgets.

The agent, its tools, skills, memory and MCP servers run in this process; reminders, the
heartbeat and chat channels do not (``gateway`` runs those). Stops on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import TYPE_CHECKING

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

if TYPE_CHECKING:
    from desktop.core.bus.events import OutboundMessage
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore


def add_serve_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    """Register ``serve`` and ``serve token``."""
    serve = commands.add_parser(
        "serve", parents=[common], help="answer OpenAI-compatible API requests with the agent"
    )
    serve.add_argument("--host", "-H", help="address to listen on (default: api.host, 127.0.0.1)")
    serve.add_argument("--port", "-p", type=int, help="port (default: api.port, 8900; 0: any)")
    serve.add_argument(
        "--timeout", "-t", type=float, help="seconds per request (default: api.timeout, 120)"
    )
    actions = serve.add_subparsers(dest="serve_command", metavar="ACTION")
    token = actions.add_parser(
        "token", parents=[common], help="show the API token kept in the keyring"
    )
    token.add_argument("--new", action="store_true", help="replace it with a new one")


def _say(text: str) -> None:
    sys.stdout.write(f"{text}\n")
    sys.stdout.flush()


def _print_outbound(message: OutboundMessage) -> None:
    if not message.metadata.get("progress") and not message.metadata.get("tool_hint"):
        _say(f"→ {message.channel}:{message.chat_id}: {message.content}")


async def _token(config: Config, store: SecretStore, *, new: bool) -> int:
    from desktop.core.api.token import current_token, new_token
    from desktop.core.config.secrets import KeyringUnavailable

    state = await current_token(config, store)
    if state.found and not new:
        _say(state.value)
        print(f"(from {state.detail})", file=sys.stderr)
        return EXIT_OK
    try:
        token = await new_token(config, store)
    except KeyringUnavailable as exc:
        return fail(
            f"{exc} For the API token: set api.apiKey to a ${{VAR}} reference, or set "
            "NANOBOT_API__API_KEY.",
            EXIT_FAILED,
        )
    _say(token)
    print("A new API token is kept in the OS keyring (clients with the old one are refused).",
          file=sys.stderr)  # fmt: skip
    return EXIT_OK


async def _resolve_token(config: Config, store: SecretStore, host: str) -> tuple[str, str] | int:
    """``(token, how to tell the person)``, or an exit code after saying why not."""
    from desktop.core.api.server import is_loopback_host
    from desktop.core.api.token import current_token, generate_token, new_token
    from desktop.core.config.secrets import KeyringUnavailable

    state = await current_token(config, store)
    if state.found:
        return state.value, f"token: from {state.detail} (show it: nanobot-desktop serve token)"
    if not is_loopback_host(host):
        return fail(
            f"{host} can be reached from other machines, and no API token is set up. Make one "
            "first with 'nanobot-desktop serve token' (or set api.apiKey), give it to the "
            "clients, then start again."
        )
    try:
        token = await new_token(config, store)
        where = "a new token, kept in the OS keyring (show it again: nanobot-desktop serve token)"
    except KeyringUnavailable:
        token = generate_token()
        where = "a token for this run only: no OS keyring (set api.apiKey to keep one)"
    return token, f"{where}:\n  {token}"


async def _serve(config: Config, args: argparse.Namespace) -> int:
    from desktop.cli.usage import say_budget_events
    from desktop.core.agent.approval_prefs import policy_from_prefs
    from desktop.core.api.request import DEFAULT_SESSION
    from desktop.core.api.service import start_api
    from desktop.core.config.loader import config_origin
    from desktop.core.config.prefs import PrefsStore
    from desktop.core.config.prefs_peek import prefs_path
    from desktop.core.config.secret_fields import inject_stored_secrets
    from desktop.core.config.secrets import SecretStore
    from desktop.core.providers.factory import MissingKeyError, abuild_provider
    from desktop.core.providers.matching import ProviderNotFound
    from desktop.core.providers.presets import default_target
    from desktop.core.utils.tasks import TaskOwner

    store = SecretStore()
    await inject_stored_secrets(config, store)
    if args.serve_command == "token":
        return await _token(config, store, new=args.new)
    host = args.host if args.host is not None else config.api.host
    port = args.port if args.port is not None else config.api.port
    timeout = args.timeout if args.timeout is not None else config.api.timeout
    if not 0 <= port <= 65535 or not timeout > 0:
        return fail("the port must be 0 to 65535 and the timeout a positive number of seconds")
    resolved = await _resolve_token(config, store, host)
    if isinstance(resolved, int):
        return resolved
    token, token_line = resolved
    try:
        built = await abuild_provider(config, store)
    except (ProviderNotFound, MissingKeyError) as exc:
        return fail(str(exc))
    prefs = await asyncio.to_thread(PrefsStore, prefs_path(config_origin(config).path))
    if prefs.warning:
        print(f"warning: {prefs.warning}", file=sys.stderr)
    prefs_owner = TaskOwner("serve-prefs")
    policy = policy_from_prefs(prefs, prefs_owner)
    try:
        service = await start_api(
            config,
            built.provider,
            token=token,
            host=host,
            port=port,
            timeout_s=timeout,
            approval=policy,
            prefs=prefs,
            secrets=store,
            fallback=_print_outbound,
        )
    except OSError as exc:
        await prefs_owner.aclose()
        return fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", EXIT_FAILED)
    service.runtime.bus.subscribe(say_budget_events)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        shown = f"[{host}]" if ":" in host else host
        _say(f"nanobot API: http://{shown}:{service.port}/v1 (POST /chat/completions, GET /models)")
        _say(f"model: {default_target(config).model}; session: {DEFAULT_SESSION} unless session_id")
        _say(f"timeout: {timeout:g} s per request; approvals: {policy.mode}"
             + (" (tools that need a yes run only if always allowed)"
                if policy.mode == "ask" else ""))  # fmt: skip
        _say(token_line)
        _say("running; Ctrl-C to stop")
        await stop.wait()
        _say("stopping…")
        return EXIT_OK
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        await service.stop()
        await prefs_owner.aclose()


def run_serve(args: argparse.Namespace) -> int:
    """Serve the API until interrupted (or ``serve token``)."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    try:
        return asyncio.run(_serve(config, args))
    except KeyboardInterrupt:
        return 130
