"""``nanobot-desktop channels login [whatsapp]``: link WhatsApp by scanning a QR code.

The command runs the channel's own login with the channel's settings: as a linked device
through neonize (:meth:`~desktop.core.channels.whatsapp.linked.LinkedChannel.login`; the
session is saved where nanobot 0.3.5 keeps it, so one linking serves both programs), or, when
``bridgeUrl`` is set, as a second client of the legacy bridge
(:meth:`~desktop.core.channels.whatsapp.channel.WhatsAppChannel.login`). Each code offered is drawn in the terminal with Unicode half
blocks, black on white whatever the terminal's colours, with the quiet zone around it; a new
code replaces the old one. It ends when WhatsApp is linked.

``channels login weixin`` logs the WeChat channel in the same way with the iLink API's QR code
(:meth:`~desktop.core.channels.weixin.channel.WeixinChannel.login`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

if TYPE_CHECKING:
    from desktop.core.channels.whatsapp.login import LoginUpdate
    from desktop.core.config.schema import Config

LOGIN_CHANNELS = ("whatsapp", "weixin")
"""Channels with a login step (the others take a token or password in Settings)."""
EXIT_INTERRUPTED = 130
STEPS = "On your phone open WhatsApp → Settings → Linked devices → Link a device, then scan"
_BLACK_ON_WHITE, _RESET = "\x1b[30;107m", "\x1b[0m"
_CLEAR = "\x1b[H\x1b[2J"
_CELLS = {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}

HELP = """\
Link WhatsApp by scanning a QR code with your phone. This app becomes a linked device of
your account; the session is saved in whatsapp-auth/neonize.db beside the config file (or
channels.whatsapp.databasePath), where nanobot 0.3.5 keeps it: one linking serves both.
With channels.whatsapp.bridgeUrl set (the legacy bridge) it links the running bridge instead,
with the channel's Bridge address and Bridge token.

Output: on a terminal the code is drawn in block characters and redrawn when the bridge offers
a new one; when the output is not a terminal the code's text is printed instead (--blocks draws
anyway); --json prints one JSON object per line: {"event": "qr", "qr": TEXT},
{"event": "reconnecting"}, {"event": "linked"}.

A saved session that WhatsApp accepts needs no code. (The legacy bridge says nothing while
WhatsApp is linked, so a bridge that offers no code within --wait seconds, default 65, is
taken as linked.)

WeChat (channels login weixin): the iLink API's QR code, to scan with WeChat on your phone; the
bot token it gives is saved in the weixin folder beside the config file (account.json, where
nanobot keeps it). With a saved login nothing is shown. --wait does not apply.

Exit codes: 0 linked; 1 WhatsApp or the bridge is not reachable or refused the token, the settings cannot
be used, or WhatsApp logged the bridge out; 2 an unknown channel or an unreadable config file;
130 interrupted (Ctrl-C)."""


def add_login_parser(actions: Any, common: argparse.ArgumentParser) -> None:
    """``channels login [CHANNEL] [--json | --blocks] [--wait SECONDS]``."""
    login = actions.add_parser(
        "login",
        parents=[common],
        help="link WhatsApp or WeChat: show the QR code to scan",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    login.add_argument(
        "channel", nargs="?", default="whatsapp", help="the channel to link: whatsapp or weixin"
    )
    output = login.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON lines instead")
    output.add_argument(
        "--blocks", action="store_true", help="draw the code even when not on a terminal"
    )
    login.add_argument(
        "--wait",
        type=float,
        default=None,
        metavar="SECONDS",
        help="legacy bridge only: silence that means WhatsApp is linked already (default 65)",
    )


def terminal_lines(modules: Sequence[Sequence[bool]]) -> list[str]:
    """A QR code (rows of modules, quiet zone included) as terminal lines: two module rows
    per line in half blocks, black on white."""
    rows = [list(r) for r in modules]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    return [
        _BLACK_ON_WHITE + "".join(_CELLS[pair] for pair in zip(top, bottom, strict=True)) + _RESET
        for top, bottom in zip(rows[::2], rows[1::2], strict=True)
    ]


class _Screen:
    """Shows the login's progress in the chosen form (blocks, text or JSON)."""

    def __init__(
        self,
        out: TextIO,
        mode: str,
        draw: Callable[[str], list[list[bool]]],
        steps: str = STEPS,
        network: str = "WhatsApp",
        bridge: bool = True,
    ) -> None:
        self.out, self.mode, self.draw = out, mode, draw
        self.steps, self.network, self.bridge = steps, network, bridge
        self.codes = 0
        self.tty = out.isatty()

    def _emit(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def update(self, update: LoginUpdate) -> None:
        if self.mode == "json":
            fields = {"event": update.kind, **({"qr": update.qr} if update.kind == "qr" else {})}
            self._emit(json.dumps(fields))
            return
        if update.kind == "reconnecting":
            who = "The bridge is reconnecting" if self.bridge else "Reconnecting"
            self._emit(f"{who} to WhatsApp; a new code follows.")
            return
        self.show(update.qr)

    def show(self, qr: str) -> None:
        """Show a new code to scan."""
        if self.mode == "json":
            self._emit(json.dumps({"event": "qr", "qr": qr}))
            return
        self.codes += 1
        if self.mode == "text":
            if self.codes == 1:
                self._emit(f"{self.steps} the QR code of this text (it changes now and then):")
            self._emit(qr)
            return
        try:
            lines = terminal_lines(self.draw(qr))
        except ValueError as exc:  # not a QR code's worth of text: show the text itself
            lines = [f"(cannot draw this code: {exc}) {qr}"]
        head = _CLEAR if self.codes > 1 and self.tty else ("\n" if self.codes > 1 else "")
        self._emit(f"{head}{self.steps} this code:\n")
        self._emit("\n".join(lines))
        self._emit("\nWaiting for the scan (a new code replaces this one; Ctrl-C stops)…")

    def linked(self, already: bool) -> None:
        if self.mode == "json":
            self._emit(json.dumps({"event": "linked"}))
        elif already and self.network != "WhatsApp":
            self._emit(f"{self.network} is logged in already (a saved login).")
        elif already:
            self._emit(
                "WhatsApp is linked. (The bridge offered no QR code: it has its login.)"
                if self.bridge
                else "WhatsApp is linked. (The saved session was accepted: no code needed.)"
            )
        else:  # on a terminal the used code goes (nobody should scan it again)
            clear = _CLEAR if self.mode == "blocks" and self.codes and self.tty else ""
            self._emit(f"{clear}{self.network} is linked.")


def _unreachable(url: str, exc: OSError) -> str:
    """Why the bridge at ``url`` could not be reached or used, and what to do."""
    import socket

    from desktop.core.utils.redact import redact

    if type(exc) is ConnectionError:  # the bridge hung up (the channel's own words)
        return f"{redact(str(exc))}. Check that the bridge runs at {url} and try again."
    if isinstance(exc, ConnectionRefusedError) or "Connect call failed" in str(exc):
        why = "nothing is listening there"
    elif isinstance(exc, socket.gaierror):
        why = "the host name is unknown"
    elif isinstance(exc, TimeoutError):
        why = "it did not answer"
    else:
        why = redact(str(exc)) or type(exc).__name__
    return (
        f"cannot reach the WhatsApp bridge at {url}: {why}.\nIs it running? Start it as "
        "docs/channels/whatsapp.md says, or set the Bridge address in Settings → Channels → "
        "WhatsApp (channels.whatsapp.bridgeUrl)."
    )


def _draw(text: str) -> list[list[bool]]:
    from desktop.core.utils.qr import qr_modules

    return qr_modules(text)


async def _login(config: Config, mode: str, wait: float | None) -> int:
    from desktop.core.assembly import channel_state_dir
    from desktop.core.bus.queue import MessageBus
    from desktop.core.channels.base import ChannelUnavailable
    from desktop.core.channels.manager import ChannelManager
    from desktop.core.channels.registry import CHANNELS
    from desktop.core.channels.whatsapp.channel import WhatsAppChannel
    from desktop.core.channels.whatsapp.linked import LinkedChannel
    from desktop.core.channels.whatsapp.protocol import LOGIN_QUIET_S
    from desktop.core.config.channels.whatsapp import uses_bridge
    from desktop.core.config.secret_fields import inject_stored_secrets
    from desktop.core.config.secrets import SecretStore
    from desktop.core.utils.qr import QrUnavailable
    from desktop.core.utils.redact import redact
    from desktop.core.utils.tasks import TaskOwner

    if mode == "blocks":
        try:
            _draw("probe")  # segno missing: say so before connecting
        except QrUnavailable as exc:
            return fail(f"{exc} Or use --json to get the code's text.", EXIT_FAILED)
    await inject_stored_secrets(config, SecretStore())
    owner = TaskOwner("channels-login")
    manager = ChannelManager(
        MessageBus(), owner, config=config, state_dir=channel_state_dir(config)
    )
    section = config.channels.whatsapp
    bridge = uses_bridge(section)
    url = redact(section.bridge_url)
    quiet = LOGIN_QUIET_S if wait is None else wait
    screen = _Screen(sys.stdout, mode, _draw, bridge=bridge)
    try:
        channel = await manager.create(CHANNELS["whatsapp"])
        assert isinstance(channel, WhatsAppChannel | LinkedChannel)
        if isinstance(channel, LinkedChannel):
            print(f"Connecting to WhatsApp (session: {channel.database_path()})…", file=sys.stderr)
        else:
            print(
                f"Connecting to the WhatsApp bridge at {url}… (when WhatsApp is linked already "
                f"the bridge offers no code, which shows after {quiet:g} s)",
                file=sys.stderr,
            )
        linked_now = await channel.login(screen.update, quiet=quiet)
    except ChannelUnavailable as exc:
        return fail(f"{exc.reason.rstrip('.')}. {exc.hint}".strip(), EXIT_FAILED)
    except OSError as exc:  # ConnectionError included
        if not bridge:
            return fail(f"cannot reach WhatsApp: {redact(str(exc))}", EXIT_FAILED)
        return fail(_unreachable(url, exc), EXIT_FAILED)
    finally:
        await owner.aclose()
    screen.linked(already=not linked_now)
    if not section.enabled:
        print(
            "Note: the WhatsApp channel is off. Turn it on in Settings → Channels → WhatsApp "
            "(channels.whatsapp.enabled) for the agent to answer there.",
            file=sys.stderr,
        )
    return EXIT_OK


WEIXIN_STEPS = "Open WeChat on your phone and scan"


async def _login_weixin(config: Config, mode: str) -> int:
    """Log the WeChat channel in by QR code (the token goes where nanobot keeps it)."""
    from desktop.core.assembly import channel_state_dir
    from desktop.core.bus.queue import MessageBus
    from desktop.core.channels.base import ChannelUnavailable
    from desktop.core.channels.manager import ChannelManager
    from desktop.core.channels.registry import CHANNELS
    from desktop.core.channels.weixin.channel import WeixinChannel
    from desktop.core.config.secret_fields import inject_stored_secrets
    from desktop.core.config.secrets import SecretStore
    from desktop.core.utils.redact import redact
    from desktop.core.utils.tasks import TaskOwner

    await inject_stored_secrets(config, SecretStore())
    owner = TaskOwner("channels-login")
    manager = ChannelManager(
        MessageBus(), owner, config=config, state_dir=channel_state_dir(config)
    )
    screen = _Screen(sys.stdout, mode, _draw, WEIXIN_STEPS, "WeChat")
    try:
        channel = await manager.create(CHANNELS["weixin"])
        assert isinstance(channel, WeixinChannel)
        new = await channel.login(screen.show)
    except ChannelUnavailable as exc:
        return fail(f"{exc.reason.rstrip('.')}. {exc.hint}".strip(), EXIT_FAILED)
    except Exception as exc:  # noqa: BLE001 - aiohttp errors, the API's refusals: said plainly
        url = redact(config.channels.weixin.base_url)
        return fail(f"the WeChat login at {url} failed: {redact(exc)}", EXIT_FAILED)
    finally:
        await owner.aclose()
    screen.linked(already=not new)
    if not config.channels.weixin.enabled:
        print(
            "Note: the WeChat channel is off. Turn it on in Settings → Channels → WeChat "
            "(channels.weixin.enabled) for the agent to answer there.",
            file=sys.stderr,
        )
    return EXIT_OK


def run_login(args: argparse.Namespace) -> int:
    """Run ``channels login``."""
    import asyncio

    name = str(args.channel).strip().lower()
    if name not in LOGIN_CHANNELS:
        return fail(
            f"{args.channel!r} has no login. Channels with one: {', '.join(LOGIN_CHANNELS)} "
            "(the others take a token or password in Settings → Channels)."
        )
    if args.wait is not None and args.wait <= 0:
        return fail("--wait takes a number of seconds above 0.")
    config = load(args)
    if config is None:
        return EXIT_USAGE
    mode = "json" if args.json else "blocks" if args.blocks or sys.stdout.isatty() else "text"
    try:
        if name == "weixin":
            return asyncio.run(_login_weixin(config, mode))
        return asyncio.run(_login(config, mode, args.wait))
    except KeyboardInterrupt:
        network = "WeChat" if name == "weixin" else "WhatsApp"
        return fail(f"stopped; {network} was not linked.", EXIT_INTERRUPTED)
