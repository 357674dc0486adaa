"""The shared harness of the channel tests: one way to run a real agent runtime whose chat
channel talks to a local server speaking the platform's protocol, and one protocol,
:class:`ChannelUnderTest`, that every channel's adapter implements for the conformance suite
(``tests/channels/conformance/``).

The helpers every channel's tests had a copy of live here too: :func:`until`,
:func:`user_text`, :func:`echo`, :func:`session_lines`, :func:`channel_state`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.agent.context import RUNTIME_CLOSE
from desktop.core.assembly import build_runtime
from desktop.core.bus.events import ChannelStatusChanged, InboundMessage
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until as until


def user_text(body: dict[str, Any]) -> str:
    """What the person wrote, from a chat-completion request (the last user message)."""
    content = next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return str(content).split(RUNTIME_CLOSE, 1)[-1].strip()


def echo(prefix: str = "echo: ") -> Callable[[dict[str, Any]], Any]:
    """A router for the scripted server that answers with the person's text."""

    def route(body: dict[str, Any]) -> Any:
        return Reply(prefix + user_text(body))

    return route


def session_lines(runtime: Runtime, key: str) -> list[dict[str, Any]]:
    """The messages of a session file (without the metadata line)."""
    path = runtime.sessions.path_for(key)
    return [json.loads(line) for line in path.read_text().splitlines()][1:]


def channel_state(config_dir: Path, name: str) -> dict[str, Any]:
    """A channel's saved state values (``channel-state/<name>.json`` beside the config)."""
    path = config_dir / "channel-state" / f"{name}.json"
    return dict(json.loads(path.read_text())["values"]) if path.exists() else {}


# -- the conformance protocol ------------------------------------------------------------------


@dataclass
class Sent:
    """One message the platform received from the bot.

    Attributes:
        text: The text as the platform got it (with the platform's markup).
        shown: What people see of it (markup removed), for order/loss checks and the limit.
        files: The files it carried: (name, content); the name is empty where the platform
            carries none (an image on Feishu or QQ).
        buttons: Labels of the buttons it carried.
        raw: The server's own record of it.
    """

    text: str
    shown: str = ""
    files: list[tuple[str, bytes]] = field(default_factory=list)
    buttons: list[str] = field(default_factory=list)
    raw: Any = None


Skip = str  # a capability a platform does not have: the reason, for an explicit pytest.skip


@dataclass(frozen=True)
class Capabilities:
    """What a platform offers, so each case asserts the platform's way.

    Attributes:
        limit: The largest message the platform takes, in :attr:`measure` units (``None``: no
            limit worth splitting for).
        measure: How the platform counts a message's length (characters, UTF-16 units, bytes).
        flavour: The markup the platform renders: ``html``, ``mrkdwn``, ``markdown``, ``card``
            (Feishu's card markdown), ``whatsapp``, ``matrix`` (its HTML), ``plain``.
        approvals: ``buttons`` (a question with buttons) or ``words`` (the person replies a
            word), or the reason the platform cannot ask.
        media_out: ``file`` (any file), ``image`` (only pictures go out as files), or why the
            bot cannot send a file there.
        media_in: ``True``, or why a person cannot send one.
        reconnect: ``True``, or why a dropped connection cannot be shown with the local server.
        speaks_first: The bot can write only into a conversation the person has written to it
            in first (a Teams bot keeps the conversation's reference from a person's message).
        xfail: Cases that fail for a known product gap: case name -> the reason (the case
            runs as ``xfail(strict=True)``, so the day it passes the entry must go).
    """

    limit: int | None
    flavour: Literal["html", "mrkdwn", "markdown", "card", "whatsapp", "matrix", "plain"]
    approvals: Literal["buttons", "words"] | Skip
    measure: Callable[[str], int] = len
    media_out: Literal["file", "image"] | Skip = "file"
    media_in: Literal[True] | Skip = True
    reconnect: Literal[True] | Skip = True
    speaks_first: bool = False
    xfail: dict[str, str] = field(default_factory=dict)


class ChannelUnderTest(Protocol):
    """One channel with its local server, as the conformance suite drives it.

    ``person`` talks to the bot in ``chat`` (allowed by :attr:`person_entry` in ``allowFrom``);
    ``stranger`` is someone else in the same chat (or their own one) whom ``allowFrom`` leaves
    out. Every operation is the platform's own way of doing it through the local server.
    """

    name: str
    caps: Capabilities
    person: str
    stranger: str
    person_entry: str  # what ``allowFrom`` lists to let ``person`` in
    account: str  # the bot's account as the status and the connection test name it ("":
    # the protocol never says; the adapter's comment says why)

    async def start_server(self) -> None:
        """Start the local server (or attach to a shared one)."""

    async def stop_server(self) -> None:
        """Stop what :meth:`start_server` started."""

    def section(self) -> dict[str, Any]:
        """The ``channels.<name>`` config section pointing at the local server."""

    def chat(self) -> str:
        """The ``chat_id`` the person's messages arrive with (the session is ``name:chat``)."""

    def sender_id(self, who: str) -> str:
        """The ``sender_id`` the channel gives ``who``'s messages."""

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        """``sender`` (default: the person) writes ``text`` in the chat, with ``files``."""

    def sent(self) -> list[Sent]:
        """What the platform received from the bot in the chat so far, in order."""

    def markup(self, markdown: str) -> str:
        """The channel's own rendering of ``markdown`` for this platform (one piece)."""

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        """Press the button (or reply the word) that allows once / denies."""

    async def drop_connection(self) -> None:
        """The server drops the bot's connection (and takes it back when it returns)."""

    async def on_runtime(self, runtime: Runtime) -> None:
        """Called once a runtime's channel is connected (e.g. to join the chat)."""


class Rig:
    """A runtime with one channel pointed at its local server, and a tap on what reaches the bus.

    Args:
        cut: The channel under test.
        model: The scripted model server (through the real LiteLLM path).
        tmp_path: Where the config, its state and the workspace live.
    """

    def __init__(self, cut: ChannelUnderTest, model: ScriptedOpenAIServer, tmp_path: Path):
        self.cut = cut
        self.model = model
        self.tmp_path = tmp_path
        self.config_dir = tmp_path / "nanobot"
        self.workspace = tmp_path / "ws"
        self.inbound: list[InboundMessage] = []
        self.states: list[str] = []
        self.runtime: Runtime | None = None
        self._options: dict[str, Any] = {}

    def config_file(self, **section: Any) -> Path:
        """Write the config: this channel only, its section with ``section`` on top."""
        data = {
            "agents": {"defaults": {"workspace": str(self.workspace), "timezone": "UTC"}},
            "channels": {self.cut.name: {**self.cut.section(), **section}},
        }
        return write_config(self.config_dir / "config.json", data)

    async def start(
        self, *, allow_from: list[str] | None = None, approval: ApprovalPolicy | None = None
    ) -> Runtime:
        """Build and start the runtime; returns once the channel is connected."""
        self._options = {"allow_from": allow_from, "approval": approval}
        config = load_config(self.config_file(allowFrom=allow_from or ["*"]))
        runtime = await asyncio.to_thread(
            build_runtime, config, make_provider(self.model.url), approval=approval
        )
        runtime.channels.backoff = (0.2, 0.4, 0.8)
        runtime.channels.send_delays = (0.3, 1.0)
        self._tap(runtime)
        self.runtime = runtime
        await runtime.start()
        await self.connected()
        await self.cut.on_runtime(runtime)
        return runtime

    def _tap(self, runtime: Runtime) -> None:
        """Record every message the channel hands to the bus, and every status change."""
        bus = runtime.bus
        publish = bus.publish_inbound

        async def tapped(message: InboundMessage) -> None:
            if message.channel == self.cut.name:
                self.inbound.append(message)
            await publish(message)

        bus.publish_inbound = tapped  # type: ignore[method-assign]

        def status(event: object) -> None:
            if isinstance(event, ChannelStatusChanged) and event.channel == self.cut.name:
                self.states.append(event.state)

        bus.subscribe(status)

    async def connected(self) -> None:
        """Wait until the channel says it is connected."""
        runtime = self.runtime
        assert runtime is not None
        name = self.cut.name
        await until(lambda: runtime.channels.status(name).ok, 60, f"{name} connected")

    async def stop(self) -> None:
        """Stop the runtime (the app quits)."""
        runtime, self.runtime = self.runtime, None
        if runtime is not None:
            await runtime.stop()

    async def restart(self) -> Runtime:
        """Stop the runtime and start a new one on the same files (the app restarts)."""
        await self.stop()
        return await self.start(**self._options)

    def received(self, text: str) -> list[InboundMessage]:
        """The messages on the bus whose text contains ``text``."""
        return [m for m in self.inbound if text in m.content]

    def answers(self, text: str) -> list[Sent]:
        """What the bot sent whose visible text contains ``text``."""
        return [s for s in self.cut.sent() if text in (s.shown or s.text)]
