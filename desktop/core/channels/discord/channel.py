"""The Discord channel: a bot on the gateway (WebSocket) and the REST API, with discord.py.

Connecting. The token is checked with ``GET /users/@me`` (discord.py's login); the gateway
address comes from ``GET /gateway/bot`` (or ``gatewayUrl`` when it was changed); then
discord.py's gateway client identifies with ``intents`` and receives. While the connection is
up, discord.py itself reconnects a dropped socket and RESUMEs the session, so the events
Discord sent in between arrive (only a resume can replay them); the status says
``connecting`` meanwhile and ``connected`` again once resumed. What discord.py gives up on
(a closed session, a refused token, missing intents) ends :meth:`DiscordChannel.run`, and the
manager restarts it with backoff (or reports it as unavailable).

discord.py has no setting for the API address: ``apiBase`` is applied to
``discord.http.Route.BASE`` and the gateway address to ``DiscordWebSocket.DEFAULT_GATEWAY``
(both process-wide, and only this channel uses discord.py); the client is built in
:mod:`~desktop.core.channels.discord.client`.

Receiving. Messages are handled one after the other, in the order the gateway sent them: a
message from the bot itself or another bot, from a sender outside ``allowFrom``, outside
``allowChannels``, or (``groupPolicy: mention``) a server message that neither mentions the
bot nor replies to it is skipped. Each handed-over message is kept in the channel's journal
until the agent saved it (the gateway confirms nothing, so a message received just before the
app ends would otherwise be lost) and its id is remembered, so a replayed event is not
answered twice. An event discord.py cannot parse is logged and skipped; the connection goes
on. A fresh session (READY, not RESUMED) does not replay what was sent while the app was not
running, so the channel first fetches, per recent conversation, the messages after the last
one it handled (:mod:`~desktop.core.channels.discord.catchup`) and hands them to the same
handler, oldest first, before the live ones that arrived meanwhile.

Sending. Answers are converted (:mod:`~desktop.core.channels.discord.markup`) and split under
2,000 characters; the first piece replies to the message it answers (without pinging its
author), files go with it (ten per message). Each message is a piece of the answer's delivery
(:mod:`~desktop.core.channels.outbox`): a retry resumes at the piece that failed. While a turn runs, the chat shows
``typing…`` and the message gets ``readReceiptEmoji``. Approval questions come with buttons
(:mod:`~desktop.core.channels.discord.buttons`).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

import aiohttp
import discord
import yarl
from discord.gateway import DiscordWebSocket

from desktop.core.bus.events import OutboundMessage, RunEvent
from desktop.core.channels.activity import message_of
from desktop.core.channels.base import (
    BaseChannel,
    ChannelStatus,
    ChannelUnavailable,
    SenderShape,
)
from desktop.core.channels.discord import markup
from desktop.core.channels.discord.activity import Activity
from desktop.core.channels.discord.buttons import PREFIX as BUTTON_PREFIX
from desktop.core.channels.discord.buttons import ButtonApprover
from desktop.core.channels.discord.catchup import Positions, fetch_after
from desktop.core.channels.discord.client import (
    ClientEvents,
    GatewayClient,
    build_client,
    close_client,
)
from desktop.core.channels.discord.inbound import describe, mentions_me
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.config.channels.discord import DEFAULT_GATEWAY_URL, DiscordConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import finish

log = logging.getLogger(__name__)

FILES_PER_MESSAGE = 10
REMEMBERED = 1000
_TOKEN_HINT = QT_TR_NOOP(
    "Check the bot token in Settings → Channels → Discord (Developer Portal → Bot)."
)


def _sender(user: discord.abc.User) -> str:
    """``"<id>|<name>"``: ``allowFrom`` takes the id (or the pair), never the name alone."""
    return f"{user.id}|{user.name}" if user.name else str(user.id)


class DiscordChannel(BaseChannel[DiscordConfig]):
    """A Discord bot (see the module docstring)."""

    name: ClassVar[str] = "discord"
    display_name: ClassVar[str] = "Discord"
    sender_shape: ClassVar[SenderShape] = "id|name"
    typing_every: ClassVar[float] = 8.0
    secret_fields: ClassVar[tuple[str, ...]] = ("token", "proxy_password")
    ready_wait: ClassVar[float] = 10.0
    """How long catch-up waits for discord.py's ``ready`` (the servers' channels known)."""
    fetch_timeout: ClassVar[float] = 15.0
    """How long one conversation's catch-up request may take (discord.py retries inside)."""
    catch_up_limit: ClassVar[float] = 60.0
    """How long catch-up may go on fetching before the remaining conversations are skipped."""
    guild_ready_timeout: ClassVar[float] = 2.0
    """After READY, the quiet spell without a GUILD_CREATE after which discord.py calls the
    servers announced and dispatches ``ready`` (which catch-up waits for)."""

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._client: GatewayClient | None = None
        self._inbox: asyncio.Queue[discord.Message | None] = asyncio.Queue()  # None: catch up
        self._ready = asyncio.Event()
        # Keys handed over by this process: the journal forgets a message a moment before its
        # id is saved as seen (a worker thread), and catch-up may bring it again just then.
        self._handed: OrderedDict[str, None] = OrderedDict()
        # Conversations whose catch-up failed: their position stays where it was, so the next
        # fresh session fetches the gap again (what was handled meanwhile is recognised).
        self._behind: set[int] = set()
        self._activity = Activity(lambda: self._client, self.owner, typing_every=self.typing_every)
        self._positions = Positions(self.state)

    def make_approver(self) -> ButtonApprover:
        """Approval questions with buttons."""
        return ButtonApprover(self)

    # -- connection -----------------------------------------------------------------------
    def _token(self) -> str:
        token = (self.config.token or "").strip()
        if not token:
            raise ChannelUnavailable(
                QT_TR_NOOP("No bot token is set."),
                QT_TR_NOOP(
                    "Create an application in Discord's Developer Portal, add a bot and enter its "
                    "token in Settings → Channels → Discord."
                ),
            )
        return token

    def _make_client(self) -> GatewayClient:
        """A client for these settings, its events handed to this channel."""
        return build_client(
            self.config,
            ClientEvents(
                connected=self._connected,
                disconnected=self._disconnected,
                ready=self._ready.set,
                fresh_session=self._fresh_session,
                message=self._inbox.put_nowait,
                interaction=self._on_interaction,
            ),
            guild_ready_timeout=self.guild_ready_timeout,
        )

    def _fresh_session(self) -> None:
        self._ready.clear()
        self._inbox.put_nowait(None)  # before any MESSAGE_CREATE of the new session

    async def _login(self, client: GatewayClient) -> None:
        try:
            await client.login(self._token())
        except discord.LoginFailure:
            raise ChannelUnavailable(
                QT_TR_NOOP("Discord did not accept the bot token."), _TOKEN_HINT
            ) from None

    async def _gateway(self, client: GatewayClient) -> yarl.URL:
        """The gateway address (discord.py adds the version and encoding itself)."""
        configured = (self.config.gateway_url or "").strip()
        if configured and configured != DEFAULT_GATEWAY_URL:
            url = configured
        else:
            _, url, _ = await client.http.get_bot_gateway()
        return yarl.URL(url).with_query(None)

    async def run(self) -> None:
        """Connect, then receive until stopped (a connection discord.py gives up raises)."""
        client = self._make_client()
        self._client = client
        worker = self.owner.spawn(self._work(), name="inbox")
        try:
            await self._login(client)
            DiscordWebSocket.DEFAULT_GATEWAY = await self._gateway(client)
            try:
                await client.connect(reconnect=True)
            except discord.PrivilegedIntentsRequired:
                raise ChannelUnavailable(
                    QT_TR_NOOP("Discord refused the message content intent."),
                    QT_TR_NOOP(
                        "Turn on Message Content Intent (Developer Portal → Bot → Privileged "
                        "Gateway Intents)."
                    ),
                ) from None
            except discord.ConnectionClosed as exc:
                if exc.code == 4004:
                    raise ChannelUnavailable(
                        QT_TR_NOOP("Discord did not accept the bot token."), _TOKEN_HINT
                    ) from None
                if exc.code in (4013, 4014):
                    raise ChannelUnavailable(
                        QT_TR_NOOP("Discord refused the gateway intents."),
                        QT_TR_NOOP(
                            "Check the intents setting and the privileged intents in the Developer "
                            "Portal."
                        ),
                    ) from None
                raise ConnectionError(
                    Phrase(QT_TR_NOOP("Discord closed the connection (code {code})"), code=exc.code)
                ) from None
            if not self.stopping:
                raise ConnectionError(Phrase(QT_TR_NOOP("the connection to Discord ended")))
        finally:
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)
            if self._client is client:
                self._client = None
            await close_client(client)

    def _connected(self) -> None:
        client = self._client
        user = client.user if client is not None else None
        account = f"@{user.name}" if user is not None else ""
        self.set_status(ChannelStatus("connected", account=account))
        self.spawn(self._replay(), name="replay")

    async def _replay(self) -> None:
        await self.replay_journal()

    def _disconnected(self) -> None:
        if not self.stopping:
            self.set_status(
                ChannelStatus(
                    "connecting", QT_TR_NOOP("The connection to Discord was lost; resuming.")
                )
            )

    async def stop(self) -> None:
        """Stop receiving, cancel typing indicators, close the connection."""
        await super().stop()
        client = self._client
        if client is not None:
            try:
                await close_client(client)
            except Exception as exc:  # noqa: BLE001 - stopping must go on
                log.debug("closing the Discord connection failed: %s", redact(exc))

    async def check(self) -> str:
        """Settings → "Test": log in with these settings (``GET /users/@me``)."""
        client = self._make_client()
        try:
            try:
                await client.login(self._token())
            except discord.LoginFailure:
                raise ValueError(
                    Phrase(QT_TR_NOOP("Discord did not accept the bot token."))
                ) from None
            user = client.user
            return (
                Phrase(QT_TR_NOOP("Connected as @{user}"), user=user.name)
                if user is not None
                else Phrase(QT_TR_NOOP("Connected"))
            )
        except ChannelUnavailable as exc:
            raise ValueError(exc.reason) from None
        finally:
            await close_client(client)

    # -- receiving ------------------------------------------------------------------------
    async def _work(self) -> None:
        """Handle the received messages in order (a failing one is logged and skipped)."""
        while True:
            message = await self._inbox.get()
            if message is None:
                try:
                    await self._catch_up()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("Discord: catching up failed")
                continue
            await self._handle(message)

    async def _handle(self, message: discord.Message) -> None:
        try:
            await self._on_message(message)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Discord: handling message %s failed; skipped", message.id)

    async def _catch_up(self) -> None:
        """After a fresh session: the messages sent since the last handled one, per recent
        conversation, through the live handler, oldest first (see the module docstring)."""
        try:
            async with asyncio.timeout(self.ready_wait):
                await self._ready.wait()
        except TimeoutError:
            log.info("Discord: not ready after %s s; catching up anyway", self.ready_wait)
        client = self._client
        due = self._positions.due()
        if client is None or not due:
            return
        log.info("Discord: catching up on %d conversations", len(due))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.catch_up_limit
        for index, (chat_id, after, guild_id) in enumerate(due):
            if loop.time() > deadline:
                log.warning("Discord: catching up took too long; the other conversations wait")
                self._behind.update(chat for chat, _, _ in due[index:])
                return
            try:
                async with asyncio.timeout(self.fetch_timeout):
                    found = await fetch_after(client.http, chat_id, after)
            except (TimeoutError, discord.DiscordServerError) as exc:
                log.warning(
                    "Discord: could not fetch the messages missed in %s (%s); catch-up stopped",
                    chat_id,
                    redact(repr(exc)) if not isinstance(exc, TimeoutError) else "no answer",
                )
                self._behind.update(chat for chat, _, _ in due[index:])
                return
            except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                log.warning(
                    "Discord: could not fetch the messages missed in %s: %s", chat_id, redact(exc)
                )
                continue
            state = client._connection
            for data in found:
                try:
                    if guild_id is not None:
                        data.setdefault("guild_id", str(guild_id))  # REST leaves it out
                    channel, _ = state._get_guild_channel(data)
                    message = discord.Message(state=state, channel=channel, data=data)  # type: ignore[arg-type]  # a REST message dict, not discord.py's TypedDict
                except Exception as exc:  # noqa: BLE001 - like a malformed live event
                    log.warning("Discord: skipped a malformed missed message (%s)", redact(exc))
                    continue
                await self._handle(message)

    def _addressed(self, message: discord.Message, me: int) -> bool:
        """Whether a server message is for the bot (``groupPolicy``)."""
        return self.config.group_policy == "open" or mentions_me(message, me)

    async def _on_message(self, message: discord.Message) -> None:
        client = self._client
        me = client.user.id if client is not None and client.user is not None else None
        if me is None or message.author.id == me:
            return
        chat_id = str(message.channel.id)
        is_dm = isinstance(message.channel, discord.DMChannel | discord.GroupChannel)
        allowed_channels = [str(c).strip() for c in self.config.allow_channels if str(c).strip()]
        if not is_dm and allowed_channels and chat_id not in allowed_channels:
            return
        guild = message.guild.id if message.guild is not None else None
        guild = None if is_dm else guild or getattr(message.channel, "guild_id", None)
        tracked = message.channel.id not in self._behind
        if tracked:  # a new conversation is known before its first message is handed over
            await finish(self._positions.know(message.channel.id, message.id - 1, guild))
        await self._receive(message, me, is_dm)
        # Only once handed over (journaled): a crash before this fetches it again (and the
        # journal or the seen ids recognise it). Saved to the end even when a stop comes.
        if tracked:
            await finish(self._positions.advance(message.channel.id, message.id, guild))

    async def _receive(self, message: discord.Message, me: int, is_dm: bool) -> None:
        if message.author.bot:
            return
        chat_id = str(message.channel.id)
        key = f"{chat_id}:{message.id}"
        if key in self._handed or self.state.seen(key):
            log.info("Discord: message %s was handled before", message.id)
            return
        sender = _sender(message.author)
        if not await admit(self, sender, chat_id, direct=message.guild is None):
            log.info("Discord: message from %s ignored (not in allowFrom)", sender)
            return
        if not is_dm and not self._addressed(message, me):
            return
        received = await describe(message, self.media_dir, me)
        reference = message.reference
        metadata = {
            "message_id": str(message.id),
            "user_id": str(message.author.id),
            "username": message.author.name,
            "display_name": message.author.display_name,
            "guild_id": str(message.guild.id) if message.guild is not None else None,
            "is_group": not is_dm,
            "reply_to": str(reference.message_id) if reference and reference.message_id else None,
        }
        published = await self.publish(
            sender,
            chat_id,
            received.content,
            media=received.media,
            metadata=metadata,
            message_id=key,
            journal=True,  # the gateway confirms nothing: keep it until the agent saved it
            seen=[key],
        )
        self._handed[key] = None
        while len(self._handed) > REMEMBERED:
            self._handed.popitem(last=False)
        emoji = self.config.read_receipt_emoji
        if published and emoji:
            self._activity.react(chat_id, message.id, emoji)

    async def _on_interaction(self, interaction: discord.Interaction) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id") or "")
        if interaction.type is not discord.InteractionType.component:
            return
        if not custom_id.startswith(f"{BUTTON_PREFIX}:"):
            return
        who = _sender(interaction.user)
        if not self.is_allowed(who):
            log.info("Discord: button click from %s ignored (not in allowFrom)", who)
            try:
                await interaction.response.send_message("You may not answer this.", ephemeral=True)
            except discord.DiscordException as exc:
                log.info("Discord: answering a button click failed: %s", redact(exc))
            return
        assert isinstance(self.approvals, ButtonApprover)
        await self.approvals.on_click(interaction, custom_id, f"@{interaction.user.name}")

    # -- run events -----------------------------------------------------------------------
    @property
    def activity(self) -> Activity:
        """Typing indicators and reactions."""
        return self._activity

    async def on_event(self, event: RunEvent) -> None:
        """Typing while a turn of a Discord chat runs; the reaction goes when it ends."""
        self._activity.on_event(event, reaction=self.config.read_receipt_emoji)

    # -- sending --------------------------------------------------------------------------
    def _require_client(self) -> GatewayClient:
        client = self._client
        if client is None or client.is_closed() or not self.status.ok:
            raise ConnectionError(Phrase(QT_TR_NOOP("Discord is not connected")))
        return client

    def _reply_target(self, message: OutboundMessage) -> int | None:
        if message.reply_to and str(message.reply_to).isdigit():
            return int(message.reply_to)
        meta = message.metadata
        if meta.get("progress") or meta.get("reminder") or meta.get("tool_hint"):
            return None
        request_id = str(meta.get("request_id") or "")
        if not request_id and meta.get("turn_id"):
            request_id = self._activity.request_of(str(meta["turn_id"])) or ""
        return message_of(message.chat_id, request_id) if request_id else None

    @staticmethod
    def _texts(message: OutboundMessage) -> list[str]:
        if message.metadata.get("tool_hint"):
            lines = [f"-# {line}" for line in message.content.splitlines() if line.strip()]
            return markup.split("\n".join(lines))
        return markup.split(markup.to_discord(message.content))

    async def _files(self, paths: list[str]) -> list[discord.File]:
        files: list[discord.File] = []
        for name in paths:
            path = Path(name)
            try:
                data = await asyncio.to_thread(path.read_bytes)
            except OSError as exc:
                log.warning("Discord: attachment %s not sent: %s", path.name, exc)
                continue
            files.append(discord.File(io.BytesIO(data), filename=path.name))
        return files

    async def pieces(self, message: OutboundMessage) -> list[tuple[str, list[str]]]:
        """The text pieces, each with its batch of files (ten per message)."""
        try:
            int(message.chat_id)
        except ValueError:
            raise ValueError(f"{message.chat_id!r} is not a Discord channel id") from None
        texts = self._texts(message)
        media = list(message.media)
        batches = [
            media[i : i + FILES_PER_MESSAGE] for i in range(0, len(media), FILES_PER_MESSAGE)
        ]
        count = max(len(texts), len(batches))
        return [
            (texts[i] if i < len(texts) else "", batches[i] if i < len(batches) else [])
            for i in range(count)
        ]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One message: a text piece with its files; the first replies to the message it
        answers (discord.py does not enforce a nonce: a piece in doubt is sent again)."""
        text, batch = piece
        client = self._require_client()
        target = client.get_partial_messageable(int(delivery.message.chat_id))
        mentions = discord.AllowedMentions(everyone=False, roles=False, replied_user=False)
        options: dict[str, Any] = {"allowed_mentions": mentions}
        if text:
            options["content"] = text
        if batch:
            options["files"] = await self._files(batch)
        reply_to = self._reply_target(delivery.message) if index == 0 else None
        if reply_to is not None:
            options["reference"] = discord.MessageReference(
                message_id=reply_to, channel_id=target.id, fail_if_not_exists=False
            )
        if options.get("content") or options.get("files"):
            await self._deliver(target, options)

    @staticmethod
    async def _deliver(target: discord.PartialMessageable, options: dict[str, Any]) -> None:
        try:
            await target.send(**options)
        except (discord.Forbidden, discord.NotFound) as exc:
            raise ChannelUnavailable(
                Phrase(QT_TR_NOOP("Discord refused the message ({error})."), error=redact(exc)),
                QT_TR_NOOP("Check that the bot is in that channel and may send messages there."),
            ) from None

    async def send_question(self, chat_id: str, text: str, view: discord.ui.View) -> int:
        """An approval question with its buttons; returns its message id."""
        client = self._require_client()
        target = client.get_partial_messageable(int(chat_id))
        sent = await target.send(content=text, view=view)
        return int(sent.id)

    async def edit_question(self, chat_id: str, message_id: int, text: str) -> None:
        """Show an approval question's outcome and drop its buttons (best effort)."""
        client = self._client
        if client is None:
            return
        partial = client.get_partial_messageable(int(chat_id)).get_partial_message(message_id)
        try:
            await partial.edit(content=text, view=None)
        except discord.DiscordException as exc:
            log.info("Discord: updating an approval question failed: %s", redact(exc))
