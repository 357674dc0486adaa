"""The channel side of pairing: who is paired, and the code a stranger's direct message gets.

:meth:`~desktop.core.channels.base.BaseChannel.is_allowed` (synchronous, called on the event
loop) consults an in-memory copy of the approved senders (:func:`approved_senders`);
:func:`admit` refreshes that copy from ``pairing.json`` in a worker thread first, then decides.
A sender neither in ``allowFrom`` nor paired who wrote *directly* (a private chat, a DM) is
sent a pairing code and the window is told (:class:`~desktop.core.bus.events.PairingRequested`);
nothing of the message reaches the agent. In a group nobody gets a code (as in nanobot 0.3.5:
the message is ignored). A channel that cannot tell a direct message from a group one (email)
never issues codes, though senders approved another way are let in.

A paired sender matches as ``allowFrom`` entries do (:func:`~desktop.core.channels.base.allowed`
with the channel's sender shape): a Telegram sender approved as ``123|alice`` is still let in
after renaming to ``123|alicia``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from desktop.core.bus.events import OutboundMessage, PairingRequested
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.pairing.store import PairingRequest, PairingStore
from desktop.core.channels.state import ChannelStateStore


class Gated(Protocol):
    """What the gate needs of a channel (:class:`~desktop.core.channels.base.BaseChannel`;
    not imported: that module imports this one)."""

    @property
    def name(self) -> str:
        """The channel's config name."""
        ...

    @property
    def state(self) -> ChannelStateStore:
        """Its state file (the pairing file is found from it)."""
        ...

    @property
    def bus(self) -> MessageBus:
        """Where the code reply and the window's event go."""
        ...

    def is_allowed(self, sender: str) -> bool:
        """``allowFrom``, or paired (:func:`approved_senders`)."""
        ...


log = logging.getLogger(__name__)

CODE_META_KEY = "_pairing_code"
"""Metadata key marking an outbound pairing-code reply (0.3.5's name)."""

_approved: dict[Path, tuple[object, dict[str, list[str]]]] = {}
"""Per pairing file: the signature it had when read, and its approved senders."""


def folder_of(channel: Gated) -> Path:
    """The folder of ``channel``'s ``pairing.json``: the config folder, which holds the
    ``channel-state`` folder of the channel's state file (else the state file's folder)."""
    folder = Path(channel.state.path).parent
    return folder.parent if folder.name == "channel-state" else folder


def _signature(path: Path) -> object:
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _reload(folder: Path) -> None:
    """Re-read the approved senders when the file changed since the last read."""
    store = PairingStore(folder)
    signature = _signature(store.path)
    cached = _approved.get(store.path)
    if cached is not None and cached[0] == signature:
        return
    try:
        approved = store.approved()
    except OSError as exc:
        log.warning(
            "pairing: %s cannot be read (%s); paired senders are not let in", store.path, exc
        )
        approved = {}
    _approved[store.path] = (signature, approved)


def reload(channel: Gated) -> None:
    """Re-read ``channel``'s approved senders if the file changed (blocking: in a thread; for
    channels that screen senders in a worker thread, such as Email)."""
    _reload(folder_of(channel))


def approved_senders(channel: Gated) -> list[str]:
    """The senders approved on ``channel`` (in-memory copy, as last read; no I/O).
    :meth:`~desktop.core.channels.base.BaseChannel.is_allowed` matches them as ``allowFrom``
    entries."""
    cached = _approved.get(folder_of(channel) / "pairing.json")
    return list(cached[1].get(channel.name, [])) if cached is not None else []


def display_name(channel: str) -> str:
    """A channel's name for people (``Feishu / Lark``); the config name when unknown."""
    from desktop.core.channels.registry import CHANNELS

    info = CHANNELS.get(channel)
    return info.display_name if info is not None else channel


def is_direct(metadata: Mapping[str, Any] | None) -> bool:
    """Whether a message's metadata marks it as sent directly to the bot (``is_direct``, else
    ``is_group`` set to false); unmarked messages count as not direct."""
    meta = metadata or {}
    direct = meta.get("is_direct")
    if isinstance(direct, bool):
        return direct
    return meta.get("is_group") is False


def pairing_reply(code: str) -> str:
    """What a stranger's direct message is answered with."""
    return (
        "Hello! This assistant only talks to people its owner has let in.\n\n"
        f"Your pairing code: {code}\n\n"
        "Send the code to the owner. They can approve it in the nanobot Desktop window, "
        f"from its tray menu, or with `nanobot-desktop channels pair approve {code}`. "
        "The code is valid for 10 minutes."
    )


async def admit(channel: Gated, sender: str, chat_id: str, *, direct: bool) -> bool:
    """Whether ``sender`` may talk to the agent on ``channel`` (``allowFrom`` or paired).

    When not, and the message was ``direct``, the sender is given a pairing code in
    ``chat_id`` and a :class:`PairingRequested` event goes to the window.
    """
    if channel.is_allowed(sender):
        return True
    folder = folder_of(channel)
    await asyncio.to_thread(_reload, folder)
    if approved_senders(channel) and channel.is_allowed(sender):
        return True
    if direct:
        await offer_code(channel, sender, chat_id, folder)
    return False


async def offer_code(channel: Gated, sender: str, chat_id: str, folder: Path) -> None:
    """Give ``sender`` a pairing code (the pending one if any) and tell the window."""
    store = PairingStore(folder)
    try:
        request: PairingRequest
        request, new = await asyncio.to_thread(store.request, channel.name, sender)
    except OSError as exc:
        log.warning(
            "%s: no pairing code for %s: %s cannot be written (%s)",
            channel.name,
            sender,
            store.path,
            exc,
        )
        return
    reply = OutboundMessage(
        channel.name,
        chat_id,
        pairing_reply(request.code),
        metadata={CODE_META_KEY: request.code},
    )
    # Through the bus, as every answer: the manager delivers it (with retries) outside this
    # receive loop, which a network that confirms sends on the same connection needs.
    await channel.bus.publish_outbound(reply)
    log.info("%s: pairing code for %s in chat %s", channel.name, sender, chat_id)
    if new:
        await channel.bus.emit(
            PairingRequested(channel.name, sender, request.code, request.expires_at)
        )
