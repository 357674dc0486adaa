"""WhatsApp as a linked device: the channel's real neonize module (its event protobufs and
JIDs) with a fake only at neonize's client boundary (:mod:`tests.channels.whatsapp.neonize_fake`:
no WhatsApp servers here). Selected because the section has no ``bridgeUrl``."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.whatsapp import linked
from desktop.core.channels.whatsapp.markup import TEXT_LIMIT, pieces, to_whatsapp
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.whatsapp.neonize_fake import ME_PHONE, FakeWhatsApp, install, message
from tests.typed import present

USERS = {"alice": "4915112345678@s.whatsapp.net", "mallory": "4930999999@s.whatsapp.net"}


def _document(text: str, name: str, **fields: Any) -> Any:
    """A ``MessageEv`` carrying a document (its real protobuf) with ``text`` as caption."""
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import DocumentMessage
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message as Body

    event = message(text, **fields)
    body = Body(documentMessage=DocumentMessage(fileName=name, mimetype="text/plain"))
    body.documentMessage.caption = text
    event.Message.CopyFrom(body)
    return event


class WhatsAppLinked:
    """The linked-device WhatsApp channel under test (a person's direct chat)."""

    name = "whatsapp"
    caps = Capabilities(limit=TEXT_LIMIT, flavour="whatsapp", approvals="words")
    person, stranger = "alice", "mallory"
    person_entry = USERS["alice"].split("@")[0]
    account = ME_PHONE

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.world = FakeWhatsApp()
        install(request.getfixturevalue("monkeypatch"), self.world)
        self._ids = itertools.count(1)

    async def start_server(self) -> None:
        return None

    async def stop_server(self) -> None:
        return None

    def section(self) -> dict[str, Any]:
        return {"enabled": True}  # no bridgeUrl: the linked device

    def chat(self) -> str:
        return USERS[self.person]

    def sender_id(self, who: str) -> str:
        return USERS[who].split("@")[0]  # the phone number (0.3.5's sender id)

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        chat = USERS[sender or self.person]
        fields = {"chat": chat, "msg_id": f"3EB0{next(self._ids):06d}"}
        event = message(text, **fields)  # type: ignore[arg-type]
        for name, data in files:  # one attachment per message, its caption the text
            self.world.media = data
            event = _document(text, name, **fields)
        await self.world.client.fire(present(linked._API).message, event)

    def sent(self) -> list[Sent]:
        out = []
        for item in self.world.sent:
            if item.to != USERS[self.person]:
                continue
            if item.kind == "text":
                out.append(Sent(item.body, item.body, [], [], item))
            else:
                name = str(item.extra.get("filename") or Path(item.body).name)
                out.append(Sent("", "", [(name, Path(item.body).read_bytes())], [], item))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = pieces(to_whatsapp(markdown))
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        """neonize's connection ends (the manager starts a new client, which connects)."""
        before = len(self.world.clients)
        self.world.client.end("websocket closed")
        await until(
            lambda: len(self.world.clients) > before and self.world.client.me is not None,
            60,
            "a new client connected",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.world.client.me is not None, what="linked and connected")
