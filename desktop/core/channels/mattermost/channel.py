"""The Mattermost channel: a bot account over Mattermost's REST API v4 and its WebSocket.

aiohttp does both (its WebSocket client included), as it does for the Slack and Mochat
channels: nanobot 0.3.5 uses httpx with websockets; the maintained Python client
(mattermostdriver) has had no release since 2022.

Connecting. ``GET /users/me`` with the token says who the bot is; then the WebSocket
(``/api/v4/websocket``) is opened and authenticated with an ``authentication_challenge``. A
refused token makes the channel ``unavailable`` with a hint; a lost connection ends
:meth:`MattermostChannel.run` with an error, so the manager shows it and reconnects with its
backoff.

Receiving. Each ``posted`` event is one person's post (system posts and the bot's own are
skipped). In a direct message every post is read (nanobot's ``dm`` policy applies); in a
channel only as ``groupPolicy`` says (``groupPolicyInThread`` inside a thread): with a
``@mention`` of the bot, every post, or in the listed channels. A sender let in by neither
``allowFrom`` nor the ``dm`` policy who writes a direct message gets a pairing code (as in
nanobot 0.3.5); a paired sender passes both. A reply word to an approval
question waiting in a thread is always read. ``teamId`` limits channels to one team. The
conversation is nanobot's: a channel post is answered in a thread under it when
``replyInThread`` is on, and a thread is its own chat ``"<channel id>:<root post id>"``, so
its session key is 0.3.5's ``mattermost:<channel id>:<root id>``; a direct message (not in a
thread) is ``mattermost:<channel id>``. The WebSocket cannot wait for the agent to save a
post, so the post is kept in the channel's journal first and handed over again after a
restart until it is safe; posts are known by id and handled once. Attached files are
downloaded into ``<media>/mattermost/`` and described to the agent (images also passed as
images).

Sending. Mattermost renders Markdown itself, so an answer is sent as it is, in pieces under
its 16383-character limit, then the attachments (uploaded, one post each), all into the
chat's thread when it has one. The post a turn answers gets ``reactEmoji`` while it runs and
``doneEmoji`` once answered. Approval questions are asked in the chat and answered by a reply
word: Mattermost's message buttons call back an integration URL on a server the Mattermost
server can reach, which a desktop app does not have.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

import aiohttp

from desktop.core.bus.events import (
    OutboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.channels.activity import remember
from desktop.core.channels.base import (
    BaseChannel,
    ChannelStatus,
    ChannelUnavailable,
    allowed,
    split_message,
)
from desktop.core.channels.mattermost.api import MattermostApi, MattermostError, TokenRefused
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import approved_senders, folder_of, offer_code, reload
from desktop.core.config.channels.mattermost import MattermostConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

MAX_CHARS = 16383  # Mattermost's longest post
MAX_FILE_BYTES = 50 * 1024 * 1024  # Mattermost's default MaxFileSize
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
DM_TYPE = "D"


def join_chat(channel_id: str, root_id: str | None) -> str:
    """The chat id of a channel, or of a thread in it."""
    return f"{channel_id}:{root_id}" if root_id else channel_id


def split_chat(chat_id: str) -> tuple[str, str | None]:
    """The channel id and thread root (``None``) of a chat id."""
    channel, _, root = chat_id.partition(":")
    return channel, root or None


class MattermostChannel(BaseChannel[MattermostConfig]):
    """A Mattermost bot account (see the module docstring)."""

    name: ClassVar[str] = "mattermost"
    display_name: ClassVar[str] = "Mattermost"

    secret_fields: ClassVar[tuple[str, ...]] = ("token",)

    def setup(self) -> None:
        """The connection and what the channel learns of the server while it runs."""
        self._api: MattermostApi | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._me: dict[str, Any] = {}
        self._identities: dict[str, dict[str, str]] = {}  # user id → username, email
        self._teams: dict[str, str] = {}  # channel id → team id
        self._turns: OrderedDict[str, str] = OrderedDict()  # turn id → post id

    # -- connection -----------------------------------------------------------------------
    def _make_api(self) -> MattermostApi:
        url, token = (self.config.server_url or "").strip(), (self.config.token or "").strip()
        if not url or not token:
            missing = (
                QT_TR_NOOP("No server address and token is set.")
                if not url and not token
                else QT_TR_NOOP("No server address is set.")
                if not url
                else QT_TR_NOOP("No token is set.")
            )
            raise ChannelUnavailable(
                missing,
                QT_TR_NOOP(
                    "Create a bot account (docs/channels/mattermost.md) and enter the server "
                    "address and its token in Settings → Channels → Mattermost."
                ),
            )
        if not url.startswith(("http://", "https://")):
            raise ChannelUnavailable(
                Phrase(QT_TR_NOOP("The server address {url} is not a web address."), url=repr(url)),
                QT_TR_NOOP('Write it as "https://chat.example.org".'),
            )
        return MattermostApi(url, token)

    @staticmethod
    def _refused(exc: TokenRefused) -> ChannelUnavailable:
        return ChannelUnavailable(
            str(exc),
            QT_TR_NOOP("Check the bot's token (Integrations → Bot Accounts → Create New Token)."),
        )

    async def _login(self, api: MattermostApi) -> dict[str, Any]:
        try:
            return await api.me()
        except TokenRefused as exc:
            raise self._refused(exc) from None

    async def run(self) -> None:
        """Connect, then receive until stopped (a lost connection raises)."""
        api = self._api = self._make_api()
        try:
            self._me = await self._login(api)
            try:
                ws = self._ws = await api.connect()
            except TokenRefused as exc:
                raise self._refused(exc) from None
            self.set_status(ChannelStatus("connected", account=self._account()))
            # A replayed message is known as handled from now on (the journal keeps it until
            # safe), so the network delivering it again later is not answered twice.
            replayed = [m.id for m in self.journal.pending()]
            await asyncio.to_thread(self.state.update, seen=replayed)
            await self.replay_journal()
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                await self._on_frame(message.data)
            if not self.stopping:
                raise ConnectionError(Phrase(QT_TR_NOOP("The connection to Mattermost was lost.")))
        finally:
            ws_left, self._ws = self._ws, None
            if ws_left is not None:
                await ws_left.close()
            self._api = None
            await api.close()

    def _account(self) -> str:
        username = str(self._me.get("username") or "")
        return f"@{username}" if username else str(self._me.get("id") or "")

    async def stop(self) -> None:
        """Stop receiving and cancel the channel's background work."""
        await super().stop()
        ws, api = self._ws, self._api
        if ws is not None:
            await ws.close()
        if api is not None:  # here, where no cancellation cuts the close short
            await api.close()

    async def check(self) -> str:
        """Settings → "Test": ``GET /users/me`` with the token."""
        api = self._make_api()
        try:
            me = await self._login(api)
        except ChannelUnavailable as exc:
            raise ValueError(exc.reason) from None
        finally:
            await api.close()
        return Phrase(
            QT_TR_NOOP("Connected as @{user} on {server}"),
            user=str(me.get("username")),
            server=api.server_url,
        )

    # -- receiving ------------------------------------------------------------------------
    async def _on_frame(self, raw: str) -> None:
        try:
            frame = json.loads(raw)
            if isinstance(frame, dict) and frame.get("event") == "posted":
                await self._on_posted(frame.get("data") or {}, frame.get("broadcast") or {})
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - one bad event must not stop the channel
            log.warning("Mattermost: skipping an event that could not be handled: %s", redact(exc))

    async def _on_posted(self, data: dict[str, Any], broadcast: dict[str, Any]) -> None:  # noqa: C901  # the checks a post passes, in the order they apply
        raw = data.get("post")
        post = json.loads(raw) if isinstance(raw, str) else raw
        if not isinstance(post, dict) or str(post.get("type") or "").startswith("system_"):
            return
        sender, channel_id = str(post.get("user_id") or ""), str(post.get("channel_id") or "")
        post_id, root_id = str(post.get("id") or ""), str(post.get("root_id") or "")
        if not sender or not channel_id or not post_id or sender == self._me.get("id"):
            return
        is_dm = data.get("channel_type") == DM_TYPE
        text = str(post.get("message") or "")
        thread = root_id or (post_id if self.config.reply_in_thread and not is_dm else None)
        chat_id = join_chat(channel_id, thread)
        if self.state.seen(post_id) or post_id in self.journal:
            return
        if not is_dm:
            team = str(data.get("team_id") or broadcast.get("team_id") or "")
            if (
                self.config.team_id
                and (team or await self._team_of(channel_id)) != self.config.team_id
            ):
                return
            answering = bool(root_id) and bool(self.approvals.pending(chat_id))
            if not answering and not self._addressed(text, channel_id, in_thread=bool(root_id)):
                return
        await self._identify(sender)
        if not await self._admitted(sender, channel_id, is_dm=is_dm):
            return
        text = self._without_mention(text)
        lines, images = await self._files(list(post.get("file_ids") or []))
        content = "\n".join(p for p in (text, *lines) if p)
        if not content:
            return
        published = await self.publish(
            sender,
            chat_id,
            content,
            media=images,
            metadata={
                "message_id": post_id,
                "user_id": sender,
                "channel_id": channel_id,
                "root_id": root_id,
                "is_group": not is_dm,
            },
            message_id=post_id,
            journal=True,  # the WebSocket does not wait for the agent to save it
            seen=[post_id],
        )
        if post_id not in self.journal:  # consumed (an approval answer) or already safe
            await asyncio.to_thread(self.state.update, seen=[post_id])
        if published and self.config.react_emoji:
            self.spawn(self._react(post_id, self.config.react_emoji), "react")

    def _addressed(self, text: str, channel_id: str, *, in_thread: bool) -> bool:
        policy = self.config.group_policy_in_thread if in_thread else self.config.group_policy
        if policy == "open":
            return True
        if policy == "allowlist":
            return channel_id in self.config.group_allow_from
        return self._mention().search(text) is not None

    def _mention(self) -> re.Pattern[str]:
        username = str(self._me.get("username") or "") or "\0"
        return re.compile(rf"(?<![@\w])@{re.escape(username)}(?![\w@])")

    def _without_mention(self, text: str) -> str:
        return re.sub(r"\s{2,}", " ", self._mention().sub("", text)).strip()

    async def _team_of(self, channel_id: str) -> str:
        if channel_id not in self._teams:
            self._teams[channel_id] = str(
                (await self._require_api().channel(channel_id)).get("team_id") or ""
            )
        return self._teams[channel_id]

    async def _identify(self, user_id: str) -> None:
        """Look up a sender's username and e-mail when ``allowFromMatchMode`` needs them."""
        if self.config.allow_from_match_mode == "id" or user_id in self._identities:
            return
        try:
            user = await self._require_api().user(user_id)
        except (MattermostError, aiohttp.ClientError) as exc:
            log.warning("Mattermost: looking up user %s failed: %s", user_id, redact(exc))
            return
        self._identities[user_id] = {
            "username": str(user.get("username") or ""),
            "email": str(user.get("email") or "").lower(),
        }

    def _identity(self, user_id: str) -> str:
        """What ``allowFrom`` entries name for ``user_id`` under ``allowFromMatchMode``."""
        mode = self.config.allow_from_match_mode
        return user_id if mode == "id" else self._identities.get(user_id, {}).get(mode, "")

    def _matches(self, entries: list[str], user_id: str) -> bool:
        if self.config.allow_from_match_mode == "email":
            entries = [e.lower() for e in entries]
        return allowed(entries, self._identity(user_id))

    def is_allowed(self, sender: str) -> bool:
        """``allowFrom`` by user id, or by username or e-mail (``allowFromMatchMode``)."""
        if self.config.allow_from_match_mode == "id":
            return super().is_allowed(sender)
        return self._matches(list(self.config.allow_from or []), sender) or self._paired(sender)

    def _paired(self, sender: str) -> bool:
        """Whether ``sender`` (a user id) was approved by pairing (as last read)."""
        return allowed(approved_senders(self), sender)

    def _dm_allowed(self, sender: str) -> bool:
        dm = self.config.dm_policy
        if not dm.enabled:
            return False
        return dm.policy == "open" or self._matches(list(dm.allow_from), sender)

    def _passes(self, sender: str, *, is_dm: bool) -> bool:
        if self._paired(sender):
            return not is_dm or self.config.dm_policy.enabled
        return (not is_dm or self._dm_allowed(sender)) and self.is_allowed(sender)

    async def _admitted(self, sender: str, channel_id: str, *, is_dm: bool) -> bool:
        """Whether ``sender``'s post is read: ``allowFrom`` (and in a direct message the
        ``dm`` policy), or paired. As in nanobot 0.3.5, a stranger's direct message (direct
        messages enabled) is answered with a pairing code; a channel post gets nothing."""
        if self._passes(sender, is_dm=is_dm):
            return True
        await asyncio.to_thread(reload, self)  # approvals made since the last read
        if self._passes(sender, is_dm=is_dm):
            return True
        log.info("Mattermost: message from %s ignored (not allowed)", sender)
        if is_dm and self.config.dm_policy.enabled:
            await offer_code(self, sender, channel_id, folder_of(self))
        return False

    async def _files(self, file_ids: list[Any]) -> tuple[list[str], list[str]]:
        """Download a post's files into ``<media>/mattermost/``: a line each, and the images."""
        lines: list[str] = []
        images: list[str] = []
        api = self._require_api()
        for file_id in (str(f) for f in file_ids if f):
            try:
                info = await api.file_info(file_id)
                name = str(info.get("name") or file_id)
                is_image = str(info.get("mime_type") or "").startswith("image/")
                label = "image" if is_image else "file"
                size = info.get("size")
                if isinstance(size, int) and size > MAX_FILE_BYTES:
                    lines.append(f"[{label}: {name} — too large to download]")
                    continue
                content = await api.download(file_id, MAX_FILE_BYTES)
                safe = _SAFE.sub("_", Path(name).name)[-80:].strip("._") or "file"
                path = self.media_dir / "mattermost" / f"{_SAFE.sub('_', file_id)[:40]}_{safe}"
                await asyncio.to_thread(_write, path, content)
            except (MattermostError, aiohttp.ClientError, OSError, TimeoutError) as exc:
                log.warning("Mattermost: downloading file %s failed: %s", file_id, redact(exc))
                lines.append(f"[file: {file_id} — download failed]")
                continue
            lines.append(f"[{label}: {path}]")
            if is_image:
                images.append(str(path))
        return lines, images

    # -- run events -----------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """The answered post loses ``reactEmoji`` and gets ``doneEmoji`` when its turn ends."""
        if isinstance(event, TurnStarted):
            if event.channel == self.name and event.request_id:
                remember(self._turns, event.turn_id, event.request_id)
            return
        if not isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            return
        post_id = self._turns.pop(event.turn_id, None)
        if not post_id:
            return
        if self.config.react_emoji:
            self.spawn(self._react(post_id, self.config.react_emoji, remove=True), "unreact")
        if self.config.done_emoji and isinstance(event, TurnFinished):
            self.spawn(self._react(post_id, self.config.done_emoji), "react-done")

    async def _react(self, post_id: str, emoji: str, *, remove: bool = False) -> None:
        api, me = self._api, str(self._me.get("id") or "")
        name = emoji.strip().strip(":")
        if api is None or not me or not name:
            return
        try:
            await api.react(me, post_id, name, remove=remove)
        except Exception as exc:  # noqa: BLE001 - a reaction is decoration
            log.debug("Mattermost: reaction %s failed: %s", name, redact(exc))

    # -- sending --------------------------------------------------------------------------
    def _require_api(self) -> MattermostApi:
        if self._api is None:
            raise ConnectionError(Phrase(QT_TR_NOOP("Mattermost is not connected")))
        return self._api

    async def pieces(self, message: OutboundMessage) -> list[str | Path]:
        """The Markdown in pieces under Mattermost's limit, then the attachments."""
        text = split_message(message.content, MAX_CHARS) if message.content.strip() else []
        return [*text, *(Path(m) for m in message.media)]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One post (text, or one uploaded file), into the chat's thread."""
        channel_id, root_id = split_chat(delivery.message.chat_id)
        api = self._require_api()
        if isinstance(piece, Path):
            content = await asyncio.to_thread(piece.read_bytes)
            file_id = await api.upload(channel_id, piece, content)
            await api.create_post(channel_id, "", root_id, [file_id])
        else:
            await api.create_post(channel_id, str(piece), root_id)


def _write(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
