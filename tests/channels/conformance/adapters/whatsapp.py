"""WhatsApp: the channel against the local bridge (the JSON protocol of nanobot's WhatsApp
bridge on a local WebSocket; the bridge process itself talks to WhatsApp Web)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.whatsapp.channel import WhatsAppChannel
from desktop.core.channels.whatsapp.markup import TEXT_LIMIT, pieces, to_whatsapp
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.whatsapp.bridge_server import ALICE, TOKEN, BridgeServer

USERS = {"alice": ALICE, "mallory": "4915199999999@s.whatsapp.net"}


class WhatsApp:
    """The WhatsApp channel under test (a person's direct chat)."""

    name = "whatsapp"
    caps = Capabilities(limit=TEXT_LIMIT, flavour="whatsapp", approvals="words")
    person, stranger = "alice", "mallory"
    person_entry = ALICE.split("@")[0]
    # The bridge protocol never says which number is linked: the status and the connection
    # test name the bridge instead.
    account = ""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        # After the token, the channel waits auth_grace (0.5 s) for a refusal that never comes
        # here (no case gives a wrong token; tests/channels/whatsapp shows the refusal with
        # the product's grace): dead time on every connect and connection test.
        monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        monkeypatch.setattr(WhatsAppChannel, "auth_grace", 0.05)
        self.server = BridgeServer()
        # The bridge downloads attachments itself and hands over their paths.
        self.bridge_media: Path = request.getfixturevalue("tmp_path") / "bridge-media"

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {"enabled": True, "bridgeUrl": self.server.url, "bridgeToken": TOKEN}

    def chat(self) -> str:
        return ALICE

    def sender_id(self, who: str) -> str:
        return USERS[who].split("@")[0]  # nanobot's "phone|lid", here the phone alone

    def media_root(self, workspace: Path) -> Path:
        """Where the attachments a person sends end up (the bridge's folder)."""
        return self.bridge_media

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        paths = []
        for name, data in files:
            self.bridge_media.mkdir(parents=True, exist_ok=True)
            path = self.bridge_media / name
            path.write_bytes(data)
            paths.append(str(path))
        extra: dict[str, Any] = {"media": paths} if paths else {}
        await self.server.say(text, chat=USERS[sender or self.person], **extra)

    def sent(self) -> list[Sent]:
        out = []
        for command in self.server.sent(ALICE):
            if command["type"] == "send_media":
                path = command["filePath"]
                name = str(command.get("fileName") or Path(path).name)
                caption = str(command.get("caption") or "")
                out.append(Sent(caption, caption, [(name, self.server.files[path])], [], command))
            else:
                out.append(Sent(command["text"], command["text"], [], [], command))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = pieces(to_whatsapp(markdown))
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = len(self.server.auths)
        await self.server.drop()
        await until(
            lambda: len(self.server.auths) > before and self.server.clients,
            what="back on the bridge",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.server.clients, what="authenticated at the bridge")
