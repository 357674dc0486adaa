"""What the Matrix channel does with a sync batch: invites, then each room's new messages.

A mixin of :class:`~desktop.core.channels.matrix.channel.MatrixChannel` (it uses the
channel's state, config and ``publish``). Every timeline event is handled on its own: one that
cannot be read is logged and skipped, and the rest of the batch goes on.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlparse

import aiohttp
from nio import (
    AsyncClient,
    BadEvent,
    InviteMemberEvent,
    MegolmEvent,
    MessageDirection,
    RoomEncryptedImage,
    RoomEncryptedMedia,
    RoomGetEventResponse,
    RoomMemberEvent,
    RoomMessageEmote,
    RoomMessageImage,
    RoomMessageMedia,
    RoomMessagesResponse,
    RoomMessageText,
    SyncResponse,
    UnknownBadEvent,
)

from desktop.core.channels.base import BaseChannel
from desktop.core.channels.matrix import crypto
from desktop.core.channels.matrix.content import (
    is_edit,
    mentions,
    reply_target,
    strip_reply_fallback,
)
from desktop.core.channels.pairing.gate import admit
from desktop.core.config.channels.matrix import MatrixConfig
from desktop.core.utils.atomic import atomic_write_bytes

log = logging.getLogger(__name__)

MESSAGE_TYPES = frozenset({"m.room.message", "m.room.encrypted"})
MEDIA = (RoomMessageMedia, RoomEncryptedMedia)
BACKFILL_PAGES = 10  # a gap longer than this many pages of 100 events is not filled
ENCRYPTED_NOTICE = (
    "This room is end-to-end encrypted, and encryption is not set up for this bot, so it "
    "cannot read the messages here. Please write to me in a room without encryption."
)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(name: str, limit: int = 60) -> str:
    return _UNSAFE.sub("_", name).strip("._")[:limit] or "file"


class InboundHandler(BaseChannel[MatrixConfig]):
    """Turns sync batches into published messages (mixed into the channel)."""

    if TYPE_CHECKING:  # defined by MatrixChannel
        _me: str
        _downloads: asyncio.Semaphore

        async def send_notice(self, client: AsyncClient, room_id: str, text: str) -> None: ...

        def sent_by_me(self, event_id: str) -> bool: ...

    async def handle_sync(
        self, client: AsyncClient, response: SyncResponse, *, since: str | None
    ) -> None:
        """Join allowed invites; publish the new messages of every joined room, in order.

        Args:
            client: The connected client.
            response: The sync batch.
            since: The token the batch was asked from; ``None`` for the very first sync
                (history: nothing is answered).
        """
        for room_id, info in response.rooms.invite.items():
            await self._on_invite(client, room_id, info.invite_state)
        if since is None:
            return
        for room_id, info in response.rooms.join.items():
            events = list(info.timeline.events)
            joined = [
                i
                for i, event in enumerate(events)
                if isinstance(event, RoomMemberEvent)
                and event.state_key == self._me
                and event.membership == "join"
                and event.prev_membership != "join"
            ]
            if joined:  # we just joined: only what was said after that is for us
                events = events[joined[-1] + 1 :]
            elif info.timeline.limited and info.timeline.prev_batch:
                events = (
                    await self._backfill(client, room_id, info.timeline.prev_batch, since) + events
                )
            for event in events:
                await self._on_timeline_event(client, room_id, event)

    async def _on_invite(self, client: AsyncClient, room_id: str, state: list[Any]) -> None:
        inviter = next(
            (
                e.sender
                for e in state
                if isinstance(e, InviteMemberEvent)
                and e.state_key == self._me
                and e.membership == "invite"
            ),
            None,
        )
        if inviter is None:
            return
        if not self.is_allowed(inviter):
            log.info(
                "matrix: invite to %s from %s left pending (not in allowFrom)", room_id, inviter
            )
            return
        result = await client.join(room_id)
        if getattr(result, "room_id", None) != room_id:
            log.warning(
                "matrix: joining %s failed: %s", room_id, getattr(result, "message", result)
            )
        else:
            log.info("matrix: joined %s (invited by %s)", room_id, inviter)

    async def _backfill(
        self, client: AsyncClient, room_id: str, start: str, until: str
    ) -> list[Any]:
        """The events of a gap in a room's timeline (more arrived than one sync carries)."""
        pages: list[list[Any]] = []
        for _ in range(BACKFILL_PAGES):
            page = await client.room_messages(
                room_id, start=start, end=until, direction=MessageDirection.back, limit=100
            )
            if not isinstance(page, RoomMessagesResponse):
                log.warning("matrix: the gap in %s could not be read (%s)", room_id, page.message)
                break
            if not page.chunk:
                break
            pages.append(list(reversed(page.chunk)))
            if not page.end or page.end == start:
                break
            start = page.end
        else:
            log.warning("matrix: a long gap in %s was only partly read", room_id)
        return [event for page in reversed(pages) for event in page]

    async def _on_timeline_event(self, client: AsyncClient, room_id: str, event: Any) -> None:
        source = event.source if isinstance(getattr(event, "source", None), dict) else {}
        event_id = source.get("event_id")
        if source.get("type") not in MESSAGE_TYPES or not isinstance(event_id, str):
            return
        if source.get("sender") == self._me or self.state.seen(event_id):
            return
        try:
            await self._on_message(client, room_id, event, source)
        except asyncio.CancelledError:
            raise
        except (ConnectionError, aiohttp.ClientError, TimeoutError):
            raise  # the homeserver went away: the batch is read again after reconnecting
        except Exception:
            log.exception("matrix: event %s in %s could not be handled; skipped", event_id, room_id)
        await asyncio.to_thread(self.state.update, seen=[event_id])

    async def _on_message(
        self, client: AsyncClient, room_id: str, event: Any, source: dict[str, Any]
    ) -> None:
        sender = source.get("sender")
        if sender == self._me or not isinstance(sender, str):
            return
        if isinstance(event, (BadEvent, UnknownBadEvent)):
            log.warning(
                "matrix: malformed event %s from %s in %s skipped",
                source.get("event_id"),
                sender,
                room_id,
            )
            return
        room = client.rooms.get(room_id)
        direct = room is not None and room.member_count <= 2
        if not await admit(self, sender, room_id, direct=direct):
            log.info("matrix: message from %s in %s ignored (not in allowFrom)", sender, room_id)
            return
        if isinstance(event, MegolmEvent):  # still encrypted: no key for it
            if client.olm is None:
                await self._encrypted_room(client, room_id)
            else:
                log.warning("matrix: event %s in %s could not be decrypted (its key was not "
                            "shared with this device); skipped", source.get("event_id"), room_id)  # fmt: skip
            return
        raw_content = source.get("content")
        content: dict[str, Any] = raw_content if isinstance(raw_content, dict) else {}
        if is_edit(content) or not isinstance(event, (RoomMessageText, RoomMessageEmote, *MEDIA)):
            return  # edits, notices (other bots), reactions, unknown message types
        if not await self._addressed(client, room_id, content):
            return
        media: list[str] = []
        if isinstance(event, MEDIA):
            text, media = await self._attachment(client, event, content)
        else:
            text = strip_reply_fallback(event.body)
            if isinstance(event, RoomMessageEmote):
                text = f"* {sender} {text}"
        room = client.rooms.get(room_id)
        metadata = {
            "event_id": source.get("event_id"),
            "room": room.display_name if room is not None else room_id,
        }
        await self.publish(
            sender,
            room_id,
            text,
            media=media,
            metadata=metadata,
            message_id=str(source.get("event_id")),
            journal=True,  # the sync token moves past it before the agent has it safe
        )

    async def _addressed(self, client: AsyncClient, room_id: str, content: dict[str, Any]) -> bool:
        """Whether the room's policy lets the bot answer this message."""
        room = client.rooms.get(room_id)
        if room is not None and room.member_count <= 2:
            return True  # a direct chat
        policy = self.config.group_policy
        if policy == "open":
            return True
        if policy == "allowlist":
            return room_id in (self.config.group_allow_from or [])
        if mentions(content, self._me, room_mentions=self.config.allow_room_mentions):
            return True
        target = reply_target(content)
        if target is None:
            return False
        if self.sent_by_me(target):
            return True
        original = await client.room_get_event(room_id, target)
        return isinstance(original, RoomGetEventResponse) and original.event.sender == self._me

    async def _encrypted_room(self, client: AsyncClient, room_id: str) -> None:
        notified = list(self.state.get("encrypted_notice", []) or [])
        if room_id in notified:
            return
        log.warning("matrix: %s is encrypted; encrypted messages are not supported", room_id)
        await self.send_notice(client, room_id, ENCRYPTED_NOTICE)
        await asyncio.to_thread(self.state.update, encrypted_notice=[*notified, room_id][-500:])

    async def _attachment(
        self, client: AsyncClient, event: Any, content: dict[str, Any]
    ) -> tuple[str, list[str]]:
        """Download a received file into the media folder: (text for the agent, media paths).

        Images go to the model; other files are named in the text by their saved path.
        """
        name = event.body if isinstance(event.body, str) and event.body.strip() else "file"
        raw_info = content.get("info")
        info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
        size = info.get("size")
        limit = int(self.config.max_media_bytes)
        if isinstance(size, int) and size > limit:
            return f"[attachment: {name} - too large]", []
        async with self._downloads:
            data = await self._download(client, event.url, limit)
        if data is not None and isinstance(event, RoomEncryptedMedia):
            data = crypto.decrypt_file(event, data)
        if data is None:
            return f"[attachment: {name} - download failed or too large]", []
        event_part = _safe(str(event.event_id).lstrip("$"), 24)
        path = Path(self.media_dir) / f"matrix-{event_part}-{_safe(Path(name).name)}"
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(atomic_write_bytes, path, data)
        if isinstance(event, (RoomMessageImage, RoomEncryptedImage)):
            return name, [str(path)]
        return f"{name}\n[attachment: {path}]", []

    async def _download(self, client: AsyncClient, mxc: str, limit: int) -> bytes | None:
        """The bytes behind an ``mxc://`` URI (authenticated media API), or ``None``."""
        parsed = urlparse(mxc)
        media_id = parsed.path.strip("/")
        if parsed.scheme != "mxc" or not parsed.netloc or not media_id or limit <= 0:
            return None
        url = (
            f"{client.homeserver}/_matrix/client/v1/media/download/"
            f"{quote(parsed.netloc, safe='')}/{quote(media_id, safe='')}"
        )
        session = client.client_session
        if session is None:
            return None
        headers = {"Authorization": f"Bearer {client.access_token}"}
        async with session.get(url, headers=headers, proxy=client.proxy) as response:
            if response.status != 200:
                log.warning("matrix: downloading %s failed (HTTP %s)", mxc, response.status)
                return None
            data = bytearray()
            async for chunk in response.content.iter_chunked(64 * 1024):
                data.extend(chunk)
                if len(data) > limit:
                    log.warning("matrix: %s is larger than maxMediaBytes; not kept", mxc)
                    return None
            return bytes(data)
