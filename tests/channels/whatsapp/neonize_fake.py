"""A fake at neonize's client boundary: ``NewAClient``'s methods the channel calls, driven by
the test with neonize's real event protobufs (``MessageEv``, ``ConnectedEv``…) and real JIDs.

What is fake is only what needs WhatsApp's servers: the connection (``connect`` returns a
task that runs until ``stop`` or :meth:`FakeClient.end`), the QR codes, the link, the sends
(recorded) and media downloads (bytes the test chose). The channel's neonize module is
otherwise the real one (:func:`install`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from desktop.core.channels.whatsapp import events as ev
from desktop.core.channels.whatsapp import linked
from tests.typed import present

ME_PHONE = "4917600000001"
ME_LID = "99000000000001"


def jid(text: str) -> Any:
    """neonize's JID for ``user@server``."""
    from neonize.utils.jid import build_jid

    user, server = text.split("@", 1)
    return build_jid(user, server)


@dataclass
class Sent:
    """One thing the channel sent: ``kind`` text/image/video/audio/document."""

    kind: str
    to: str
    body: str
    extra: dict[str, Any] = field(default_factory=dict)


class FakeClient:
    """One ``NewAClient`` (see the module docstring)."""

    world: ClassVar[FakeWhatsApp]

    def __init__(self, name: str) -> None:
        self.name = name
        self.handlers: dict[Any, Any] = {}
        self.on_qr: Any = None
        self.offered: list[str] = []  # the QR codes shown so far, in order
        self.me: Any = None
        self.task: asyncio.Task[None] | None = None
        self._end: asyncio.Future[None] | None = None
        self.proxy: Any = None
        self.world.clients.append(self)

    # -- neonize's API ---------------------------------------------------------------------
    def qr(self, handler: Any) -> None:
        self.on_qr = handler

    def event(self, kind: Any) -> Any:
        def register(handler: Any) -> Any:
            self.handlers[kind] = handler
            return handler

        return register

    async def connect(self, proxy: Any = None) -> asyncio.Task[None]:
        self.proxy = proxy
        self._end = asyncio.get_running_loop().create_future()
        self.task = asyncio.get_running_loop().create_task(self._run())
        return self.task

    async def _run(self) -> None:
        assert self._end is not None
        Path(self.name).write_bytes(b"SQLite format 3\x00" if self.world.linked else b"")
        if self.world.linked:
            await self.connected()
        else:
            await self.offer_qr("2@first-code,abc,def")
        await self._end

    async def stop(self) -> None:
        if self._end is not None and not self._end.done():
            self._end.set_result(None)

    async def get_me(self) -> Any:
        return self.me

    async def send_message(self, to: Any, text: str) -> None:
        self.world.sent.append(Sent("text", ev.jid_text(to), text))

    async def send_image(self, to: Any, path: str) -> None:
        self.world.sent.append(Sent("image", ev.jid_text(to), path))

    async def send_video(self, to: Any, path: str) -> None:
        self.world.sent.append(Sent("video", ev.jid_text(to), path))

    async def send_audio(self, to: Any, path: str) -> None:
        self.world.sent.append(Sent("audio", ev.jid_text(to), path))

    async def send_document(self, to: Any, path: str, **extra: Any) -> None:
        self.world.sent.append(Sent("document", ev.jid_text(to), path, extra))

    async def download_any(self, message: Any, path: str) -> None:
        Path(path).write_bytes(self.world.media)

    # -- driving it ------------------------------------------------------------------------
    async def fire(self, kind: Any, event: Any) -> None:
        handler = self.handlers.get(kind)
        if handler is not None:
            await handler(self, event)

    async def offer_qr(self, code: str) -> None:
        await self.on_qr(self, code.encode())
        self.offered.append(code)

    async def connected(self) -> None:
        from neonize.proto.Neonize_pb2 import Device

        self.me = Device(JID=jid(f"{ME_PHONE}:3@s.whatsapp.net"), LID=jid(f"{ME_LID}@lid"))
        await self.fire(present(linked._API).connected, present(linked._API).connected())

    async def scan(self) -> None:
        """The person scans the code: the session is saved and WhatsApp accepts it."""
        self.world.linked = True
        Path(self.name).write_bytes(b"SQLite format 3\x00")
        pair = present(linked._API).pair_status
        await self.fire(pair, pair(ID=jid(f"{ME_PHONE}:3@s.whatsapp.net")))
        await self.connected()

    async def drop(self) -> None:
        """WhatsApp drops the connection for a moment (whatsmeow reconnects by itself)."""
        kind = present(linked._API).disconnected
        await self.fire(kind, kind())

    def end(self, error: str) -> None:
        """neonize's connection ends with ``error`` (the channel's run ends)."""
        assert self._end is not None
        if not self._end.done():
            self._end.set_exception(RuntimeError(error))


@dataclass
class FakeWhatsApp:
    """WhatsApp as the fake clients see it."""

    linked: bool = True
    clients: list[FakeClient] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    media: bytes = b"\x89PNG\r\n\x1a\n fake image"

    @property
    def client(self) -> FakeClient:
        """The newest client."""
        return self.clients[-1]

    def texts(self) -> list[str]:
        return [item.body for item in self.sent if item.kind == "text"]


def install(monkeypatch: pytest.MonkeyPatch, world: FakeWhatsApp) -> None:
    """Make the channel's neonize the real one with :class:`FakeClient` as its client."""
    real = linked._import()
    FakeClient.world = world
    monkeypatch.setattr(linked, "_API", linked.Neonize(**{**real.__dict__, "client": FakeClient}))


def message(
    text: str,
    *,
    chat: str = "4915112345678@s.whatsapp.net",
    sender: str = "",
    sender_alt: str = "",
    group: bool = False,
    msg_id: str = "3EB0A1",
    mentions: tuple[str, ...] = (),
    image: bool = False,
    timestamp: float = 4_000_000_000,
) -> Any:
    """A ``MessageEv`` as neonize delivers it (its real protobuf)."""
    from neonize.proto.Neonize_pb2 import Message as MessageEv
    from neonize.proto.Neonize_pb2 import MessageInfo, MessageSource
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import (
        ContextInfo,
        ExtendedTextMessage,
        ImageMessage,
    )
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message as Body

    source = MessageSource(Chat=jid(chat), Sender=jid(sender or chat), IsGroup=group)
    if sender_alt:
        source.SenderAlt.CopyFrom(jid(sender_alt))
    info = MessageInfo(MessageSource=source, ID=msg_id, Timestamp=int(timestamp))
    if image:
        body = Body(imageMessage=ImageMessage(caption=text, mimetype="image/png"))
    elif mentions:
        context = ContextInfo(mentionedJID=list(mentions))
        body = Body(extendedTextMessage=ExtendedTextMessage(text=text, contextInfo=context))
    else:
        body = Body(conversation=text)
    return MessageEv(Info=info, Message=body)
