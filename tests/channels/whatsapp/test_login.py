"""Linking WhatsApp: ``nanobot-desktop channels login`` run as a user runs it (a subprocess)
against the local bridge, its drawings read back by a real QR decoder (ZBar); and the running
channel's status carrying the code for Settings."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from desktop.core.bus.events import ChannelStatusChanged, RunEvent
from desktop.core.channels.whatsapp.channel import NOT_LINKED
from desktop.core.utils.qr import QUIET_ZONE
from tests.channels.whatsapp.bridge_server import TOKEN, BridgeServer, login_code
from tests.channels.whatsapp.conftest import config_file, start_runtime, until
from tests.conftest import REPO, cli_env
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.qr_decode import blocks_to_modules, decode, write_png, zbarimg

DRAWN = "\x1b[30;107m"  # a line of a drawn code starts black on white


class Login:
    """A running ``channels login`` and what it printed so far."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._readers: set[asyncio.Future[None]] = set()  # kept until the output ends
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, lines in ((process.stdout, self.out), (process.stderr, self.err)):
            reader = asyncio.ensure_future(self._read(stream, lines))
            self._readers.add(reader)
            reader.add_done_callback(self._readers.discard)

    @staticmethod
    async def _read(stream: asyncio.StreamReader | None, lines: list[str]) -> None:
        assert stream is not None
        async for raw in stream:
            lines.append(raw.decode().rstrip("\n"))  # noqa: PERF401 - read while it runs

    @classmethod
    async def start(cls, config: Path, home: Path, *args: str, **env: str) -> Login:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "desktop", "channels", "login", "--config", str(config), *args,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home, **env), cwd=REPO,
        )  # fmt: skip
        return cls(process)

    async def end(self, timeout: float = 30.0) -> int:
        """Wait for the exit code (and the rest of the output)."""
        try:
            async with asyncio.timeout(timeout):
                code = await self.process.wait()
                while self._readers:
                    await asyncio.sleep(0.01)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise AssertionError(f"still running; printed {self.out} {self.err}") from None
        return code

    def drawings(self) -> list[list[str]]:
        """The codes drawn so far, each as its lines."""
        found: list[list[str]] = []
        previous = False
        for line in self.out:
            drawn = line.startswith(DRAWN)
            if drawn and not previous:
                found.append([])
            if drawn:
                found[-1].append(line)
            previous = drawn
        return found

    @property
    def stderr(self) -> str:
        return "\n".join(self.err)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _read_back(lines: list[str], png: Path) -> list[str]:
    """Decode a drawing from the terminal: each half block back to two modules, to a PNG."""
    modules = blocks_to_modules(lines)
    width = len(modules[0])
    assert all(len(row) == width for row in modules), "a drawn line of another width"
    for edge in (modules[:QUIET_ZONE], modules[-QUIET_ZONE:]):  # the quiet zone, all light
        assert not any(any(row) for row in edge), "no light border above/below"
    assert not any(any(row[:QUIET_ZONE] + row[-QUIET_ZONE:]) for row in modules), "left/right"
    return decode(write_png(modules, png))


async def test_login_draws_each_code_replaces_it_and_ends_when_linked(
    bridge: BridgeServer, tmp_path: Path, isolated_env: Path
) -> None:
    """The token comes from nanobot's whatsapp-auth/bridge-token beside the config file (the
    channel's own lookup); each code drawn decodes to exactly the bridge's text; messages that
    arrive meanwhile are left to the running channel (nothing journaled)."""
    zbarimg()
    config = config_file(tmp_path, bridge, bridgeToken="")
    token_file = config.parent / "whatsapp-auth" / "bridge-token"
    token_file.parent.mkdir()
    token_file.write_text(f"{TOKEN}\n")
    first, second = login_code(), login_code()
    login = await Login.start(config, isolated_env, "--blocks")
    await until(lambda: bridge.clients, what="the login authenticated at the bridge")
    assert bridge.auths == [{"type": "auth", "token": TOKEN}]
    await bridge.offer_qr(first)
    await until(lambda: any("Waiting for the scan" in line for line in login.out), what="drawn")
    await bridge.say("hello while linking")
    await bridge.offer_qr(second)
    await until(lambda: len(login.drawings()) == 2, what="the second code drawn")
    await until(lambda: sum("Waiting for the scan" in x for x in login.out) == 2, what="whole")
    await bridge.link()
    assert await login.end() == 0, login.stderr
    assert login.out[-1] == "WhatsApp is linked."
    assert "Link a device" in "\n".join(login.out)
    one, two = login.drawings()
    assert _read_back(one, tmp_path / "first.png") == [first]
    assert _read_back(two, tmp_path / "second.png") == [second]
    assert not (config.parent / "channel-state" / "whatsapp.json").exists(), "no message taken"
    assert first not in login.stderr and TOKEN not in login.stderr


async def test_json_lines_and_the_plain_text_when_not_on_a_terminal(
    bridge: BridgeServer, tmp_path: Path, isolated_env: Path
) -> None:
    config = config_file(tmp_path, bridge)
    code = login_code()
    login = await Login.start(config, isolated_env, "--json")
    await until(lambda: bridge.clients, what="connected")
    await bridge.offer_qr(code)
    await bridge.push({"type": "status", "status": "disconnected"})
    await bridge.link()
    assert await login.end() == 0, login.stderr
    assert [json.loads(line) for line in login.out] == [
        {"event": "qr", "qr": code},
        {"event": "reconnecting"},
        {"event": "linked"},
    ]
    plain = await Login.start(config, isolated_env)  # a pipe, not a terminal: the text
    await until(lambda: len(bridge.auths) == 2 and len(bridge.clients) == 1, what="again")
    await bridge.offer_qr(code)
    await until(lambda: code in plain.out, what="the code's text")
    await bridge.link()
    assert await plain.end() == 0, plain.stderr
    assert not plain.drawings() and plain.out[-1] == "WhatsApp is linked."
    assert "Link a device" in plain.out[0]


async def test_a_bridge_that_offers_no_code_is_linked_already(
    bridge: BridgeServer, tmp_path: Path, isolated_env: Path
) -> None:
    """The bridge repeats nothing to a new client and says nothing while linked: after the
    quiet wait the command says so and succeeds (and notes that the channel is off)."""
    config = config_file(tmp_path, bridge, enabled=False)
    started = time.monotonic()
    login = await Login.start(config, isolated_env, "--wait", "0.3")
    assert await login.end() == 0, login.stderr
    assert time.monotonic() - started < 20
    assert login.out[-1].startswith("WhatsApp is linked.")
    assert "channel is off" in login.stderr
    assert bridge.auths, "it did connect"


async def test_unreachable_bridge_refused_token_bad_address_and_unknown_channel(
    bridge: BridgeServer, tmp_path: Path, isolated_env: Path
) -> None:
    down = config_file(tmp_path / "down", bridge, bridgeUrl=f"ws://127.0.0.1:{_closed_port()}")
    login = await Login.start(down, isolated_env)
    assert await login.end() == 1
    assert "cannot reach the WhatsApp bridge" in login.stderr
    assert "nothing is listening there" in login.stderr and "Errno" not in login.stderr

    wrong = config_file(tmp_path / "wrong", bridge, bridgeToken="not-the-token")
    login = await Login.start(wrong, isolated_env)
    assert await login.end() == 1
    assert "refused the token" in login.stderr and "Bridge token" in login.stderr
    assert "not-the-token" not in login.stderr
    assert bridge.refused == [4003]

    http = config_file(tmp_path / "http", bridge, bridgeUrl="http://127.0.0.1:1")
    login = await Login.start(http, isolated_env)
    assert await login.end() == 1
    assert "is not a ws:// address" in login.stderr

    login = await Login.start(http, isolated_env, "telegram")
    assert await login.end() == 2
    assert "'telegram' has no login. Channels with one: whatsapp" in login.stderr
    assert not login.out

    blocked = tmp_path / "no-segno"  # an installation without the QR library
    blocked.mkdir()
    (blocked / "segno.py").write_text("raise ImportError('not installed')\n")
    login = await Login.start(
        config_file(tmp_path / "ok", bridge), isolated_env, "--blocks",
        PYTHONPATH=f"{blocked}:{REPO}",
    )  # fmt: skip
    assert await login.end() == 1
    assert 'pip install "nanobot-desktop[whatsapp]"' in login.stderr and "--json" in login.stderr


async def test_a_logged_out_bridge_and_ctrl_c(
    bridge: BridgeServer, tmp_path: Path, isolated_env: Path
) -> None:
    config = config_file(tmp_path, bridge)
    login = await Login.start(config, isolated_env, "--json")
    await until(lambda: bridge.clients, what="connected")
    await bridge.push({"type": "status", "status": "logged_out"})
    assert await login.end() == 1
    assert "WhatsApp logged the bridge out" in login.stderr and "whatsapp-auth" in login.stderr

    login = await Login.start(config, isolated_env, "--json")
    await until(lambda: len(bridge.auths) == 2 and len(bridge.clients) == 1, what="again")
    await bridge.offer_qr(login_code())
    await until(lambda: login.out, what="the code")
    login.process.send_signal(signal.SIGINT)
    assert await login.end() == 130
    assert "stopped; WhatsApp was not linked" in login.stderr
    assert "Traceback" not in login.stderr
    await until(lambda: not bridge.clients, what="the connection closed")


async def test_the_running_channel_status_carries_the_code_until_linked(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The typed path Settings draws from: ChannelStatus.login_code and the bus event's, a
    new code replacing the old one, none once linked; the code stays out of their repr."""
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    events: list[ChannelStatusChanged] = []

    def collect(event: RunEvent) -> None:
        if isinstance(event, ChannelStatusChanged) and event.channel == "whatsapp":
            events.append(event)

    runtime.bus.subscribe(collect)
    first, second = login_code(), login_code()
    try:
        await bridge.offer_qr(first)
        await until(lambda: runtime.channels.status("whatsapp").login_code == first, what="1")
        status = runtime.channels.status("whatsapp")
        assert status.state == "error" and status.reason == NOT_LINKED
        assert first not in repr(status)
        await bridge.offer_qr(second)
        await until(lambda: runtime.channels.status("whatsapp").login_code == second, what="2")
        await bridge.link()
        await until(lambda: runtime.channels.status("whatsapp").ok, what="linked")
        await until(lambda: events and events[-1].state == "connected", what="the event")
    finally:
        await runtime.stop()
    codes: list[Any] = [(e.state, e.login_code) for e in events]
    start = codes.index(("error", first))  # the start's own "connected" may come before it
    assert codes[start : start + 3] == [("error", first), ("error", second), ("connected", "")]
    assert first not in repr(events[0])


def test_on_a_terminal_a_new_code_and_the_link_clear_the_old_code(tmp_path: Path) -> None:
    """A terminal shows one code at a time: a new code redraws the screen, and once linked the
    used code goes (nobody should scan it again). Piped output keeps every line."""
    import io

    from desktop.cli.channel_login import _draw, _Screen
    from desktop.core.channels.whatsapp.login import LoginUpdate

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    clear = "\x1b[H\x1b[2J"
    first, second = login_code(), login_code()
    terminal = Terminal()
    screen = _Screen(terminal, "blocks", _draw)
    screen.update(LoginUpdate("qr", first))
    assert clear not in terminal.getvalue()
    screen.update(LoginUpdate("qr", second))
    screen.linked(already=False)
    shown = terminal.getvalue().split(clear)
    assert len(shown) == 3 and shown[-1] == "WhatsApp is linked.\n"
    for text, code in zip(shown[:2], (first, second), strict=True):
        lines = [line for line in text.splitlines() if line.startswith(DRAWN)]
        assert _read_back(lines, tmp_path / "screen.png") == [code]
    piped = io.StringIO()
    screen = _Screen(piped, "blocks", _draw)
    screen.update(LoginUpdate("qr", first))
    screen.update(LoginUpdate("qr", second))
    screen.linked(already=False)
    assert clear not in piped.getvalue() and piped.getvalue().endswith("\nWhatsApp is linked.\n")
