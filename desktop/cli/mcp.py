"""``nanobot-desktop mcp login|logout NAME``: OAuth sign-in of an HTTP MCP server from a terminal.

For a machine that runs the gateway without the window: the sign-in page opens in the browser
(Python's ``webbrowser``, which honours ``$BROWSER``) and its address is printed too, for a
browser on another screen; the tokens go to the OS keyring like the window's sign-in.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

HELP = """\
Sign in to an MCP server whose entry says "auth": "oauth" (tools.mcpServers.NAME in
config.json). The sign-in page opens in your browser; finish it there and the command ends.
The tokens are kept in the OS keyring and refreshed when they expire.

Exit codes: 0 signed in (or out); 1 the sign-in failed or timed out, or no keyring;
2 an unknown server, a server without "auth": "oauth", or an unreadable config file."""


def add_mcp_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """``mcp login NAME [--timeout S]`` and ``mcp logout NAME``."""
    mcp = commands.add_parser(
        "mcp",
        parents=[common],
        help="sign in to (or out of) an MCP server that uses OAuth",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    login = actions.add_parser("login", parents=[common], help="sign in in the browser")
    login.add_argument("name", help="the server's name in tools.mcpServers")
    login.add_argument(
        "--timeout", type=float, default=300.0, help="seconds to wait for the sign-in (300)"
    )
    logout = actions.add_parser("logout", parents=[common], help="forget the sign-in")
    logout.add_argument("name", help="the server's name in tools.mcpServers")


def run_mcp(args: argparse.Namespace) -> int:
    """Run ``mcp login`` or ``mcp logout``."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    entry = config.tools.mcp_servers.get(args.name)
    if entry is None:
        return fail(f"no MCP server named {args.name!r} in the config")
    if entry.auth != "oauth" or not entry.url:
        return fail(f'MCP server {args.name!r} is not an HTTP server with "auth": "oauth"')
    from desktop.core.config.secrets import KeyringUnavailable, SecretStore
    from desktop.core.tools.mcp import oauth
    from desktop.core.utils.redact import redact

    store = SecretStore()
    if args.mcp_command == "logout":
        try:
            existed = asyncio.run(oauth.sign_out(args.name, store))
        except KeyringUnavailable as exc:
            return fail(str(exc), EXIT_FAILED)
        print(f"Signed out of {args.name}." if existed else f"{args.name} was not signed in.")
        return EXIT_OK

    async def open_url(url: str) -> None:
        import webbrowser

        print(f"Opening the sign-in page; if no browser opens, visit:\n{url}", file=sys.stderr)
        await asyncio.to_thread(webbrowser.open, url)

    try:
        asyncio.run(oauth.sign_in(args.name, entry, store, open_url, timeout=args.timeout))
    except TimeoutError:
        return fail(f"the sign-in was not finished within {args.timeout:g} s", EXIT_FAILED)
    except Exception as exc:  # noqa: BLE001 - every failure becomes one line for the person
        return fail(f"the sign-in failed: {redact(str(exc) or type(exc).__name__)}", EXIT_FAILED)
    print(f"Signed in to {args.name}; the tokens are in the OS keyring.")
    return EXIT_OK
