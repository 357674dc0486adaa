"""The Telegram channel: a bot that long-polls the Bot API (python-telegram-bot's ``Bot``).

Receiving. Polling is driven here with ``Bot.get_updates`` rather than PTB's ``Application``:
the Application's updater confirms updates to Telegram before its handlers have run and
retries lost connections on its own, while this channel must mark an update handled only
after :meth:`publish` returned and must raise a lost connection to the manager (status,
backoff). Updates are handled one after the other in the order Telegram sent them, so the
order within a chat is kept. After each one the new offset and the update's key (chat and
message id) are saved; a malformed update is logged and skipped (see
:mod:`~desktop.core.channels.telegram.polling`).

After a (re)start the first ``getUpdates`` carries no offset: Telegram itself remembers which
updates were confirmed and sends the rest. Those already handled (a crash between handling
and confirming) are recognised by their saved keys and skipped; a saved offset is not sent
because Telegram picks update ids at random after a week without updates, and an old offset
would then confirm (drop) the new messages unseen.

A message Telegram has confirmed may still wait in the agent's queue: it is kept in the
channel's journal (:mod:`~desktop.core.channels.journal`) until the agent has saved it in its
session, and handed over again after a restart if it had not.

Sending. Markdown answers become Telegram HTML, split under 4,096 characters between blocks
(:mod:`~desktop.core.channels.telegram.markup`); a piece Telegram refuses to parse is sent as
plain text. Each message is a piece of the answer's delivery
(:mod:`~desktop.core.channels.outbox`): a retry resumes at the piece that failed.

While a turn runs for a chat, ``typing…`` is shown (renewed every 4 s); the message being
worked on gets ``reactEmoji``. Approval questions come with buttons
(:mod:`~desktop.core.channels.telegram.buttons`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from telegram import Bot, BotCommand, CallbackQuery, InlineKeyboardMarkup, Message, User
from telegram.constants import ParseMode
from telegram.error import BadRequest, Conflict, InvalidToken, RetryAfter, TelegramError
from telegram.request import HTTPXRequest

from desktop.core.bus.events import OutboundMessage, RunEvent
from desktop.core.channels.activity import message_of
from desktop.core.channels.base import (
    BaseChannel,
    ChannelStatus,
    ChannelUnavailable,
    SenderShape,
)
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.channels.telegram import outbound
from desktop.core.channels.telegram.activity import Activity
from desktop.core.channels.telegram.buttons import PREFIX as BUTTON_PREFIX
from desktop.core.channels.telegram.buttons import ButtonApprover, quietly
from desktop.core.channels.telegram.inbound import ConnectionLost, Received, describe
from desktop.core.channels.telegram.markup import Piece
from desktop.core.channels.telegram.polling import Fetched, UpdateFeed
from desktop.core.config.channels.telegram import DEFAULT_BASE_URL, TelegramConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

ALLOWED_UPDATES = ("message", "callback_query")
COMMANDS = (
    BotCommand("new", "Start a new conversation"),
    BotCommand("stop", "Stop the current task"),
    BotCommand("compact", "Compact this chat's context"),
    BotCommand("status", "Model, tokens and running tasks"),
    BotCommand("dream", "Distil recent history into memory now"),
    BotCommand("dream_log", "Show the latest Dream change"),
    BotCommand("dream_restore", "Undo a Dream change"),
    BotCommand("dream_prompt", "How Dream organises memory here"),
    BotCommand("help", "Show the commands"),
)
# Telegram commands cannot contain "-"; /start (sent when a chat with the bot opens) greets
# with the command list.
ALIASES = {
    "/start": "/help",
    "/dream_log": "/dream-log",
    "/dream_restore": "/dream-restore",
    "/dream_prompt": "/dream-prompt",
}
_COMMAND = re.compile(r"^(/[A-Za-z0-9_-]+)(?:@([A-Za-z0-9_]+))?(?=\s|$)")
DOWNLOAD_ATTEMPTS = 3


def _sender(user: User) -> str:
    """nanobot's sender id: ``"<id>|<username>"`` (or the id alone)."""
    return f"{user.id}|{user.username}" if user.username else str(user.id)


def _key(fetched: Fetched) -> str:
    """What identifies an update across restarts (its message, its button tap)."""
    update = fetched.update
    if update is not None and update.message is not None:
        return f"m:{update.message.chat_id}:{update.message.message_id}"
    if update is not None and update.callback_query is not None:
        return f"c:{update.callback_query.id}"
    return f"u:{fetched.update_id}"


class TelegramChannel(BaseChannel[TelegramConfig]):
    """A Telegram bot (see the module docstring)."""

    name: ClassVar[str] = "telegram"
    display_name: ClassVar[str] = "Telegram"
    sender_shape: ClassVar[SenderShape] = "id|name"
    poll_timeout: ClassVar[int] = 25
    """Seconds a ``getUpdates`` long poll waits for news."""
    typing_every: ClassVar[float] = 4.0
    secret_fields: ClassVar[tuple[str, ...]] = ("token",)

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._bot: Bot | None = None
        self._feed: UpdateFeed | None = None
        self._me: User | None = None
        self._activity = Activity(
            self.name, lambda: self._bot, self.owner, typing_every=self.typing_every
        )
        self._attempts: dict[str, int] = {}

    def make_approver(self) -> ButtonApprover:
        """Approval questions with an inline keyboard."""
        return ButtonApprover(self)

    # -- connection -----------------------------------------------------------------------
    def _make_bot(self) -> tuple[Bot, UpdateFeed]:
        token = (self.config.token or "").strip()
        if not token:
            raise ChannelUnavailable(
                QT_TR_NOOP("No bot token is set."),
                QT_TR_NOOP(
                    "Create a bot with @BotFather and enter its token in Settings → Channels → "
                    "Telegram."
                ),
            )
        proxy = self.config.proxy or None
        if proxy and "://" not in proxy:
            proxy = f"http://{proxy}"
        base = (self.config.base_url or DEFAULT_BASE_URL).strip().rstrip("/")
        request = HTTPXRequest(
            connection_pool_size=self.config.connection_pool_size,
            pool_timeout=self.config.pool_timeout,
            connect_timeout=10.0,
            read_timeout=30.0,
            write_timeout=30.0,
            proxy=proxy,
        )
        feed = UpdateFeed(
            HTTPXRequest(
                connection_pool_size=2, connect_timeout=10.0, read_timeout=10.0, proxy=proxy
            )
        )
        bot = Bot(
            token,
            base_url=f"{base}/bot",
            base_file_url=f"{base}/file/bot",
            request=request,
            get_updates_request=feed,
        )
        feed.bot = bot
        return bot, feed

    def _token_refused(self) -> ChannelUnavailable:
        custom = (self.config.base_url or DEFAULT_BASE_URL).rstrip("/") != DEFAULT_BASE_URL
        hint = (
            QT_TR_NOOP(
                "Check the bot token (from @BotFather) in Settings → Channels → Telegram and the "
                "Bot API server address."
            )
            if custom
            else QT_TR_NOOP(
                "Check the bot token (from @BotFather) in Settings → Channels → Telegram."
            )
        )
        return ChannelUnavailable(QT_TR_NOOP("Telegram did not accept the bot token."), hint)

    async def _login(self) -> tuple[Bot, UpdateFeed, User]:
        if self._bot is None or self._feed is None:
            self._bot, self._feed = self._make_bot()
        bot = self._bot
        try:
            if self._me is None:
                await bot.initialize()  # the request pools, and getMe
                me = bot.bot
            else:  # a reconnect: is the Bot API there again?
                me = await bot.get_me()
        except InvalidToken:
            raise self._token_refused() from None
        return bot, self._feed, me

    async def run(self) -> None:
        """Connect, then receive until stopped (a lost connection raises)."""
        if self.config.mode == "webhook":
            raise ChannelUnavailable(
                QT_TR_NOOP(
                    "Webhook mode needs a public HTTPS server; the desktop app receives by polling."
                ),
                QT_TR_NOOP(
                    'Set the Telegram mode to "polling" (this removes the webhook while it runs).'
                ),
            )
        bot, feed, me = await self._login()
        self._me = me
        try:
            await bot.delete_webhook(drop_pending_updates=False)
            await bot.set_my_commands(list(COMMANDS))
        except InvalidToken:
            raise self._token_refused() from None
        except BadRequest as exc:
            log.warning("Telegram: setting up the command menu failed: %s", redact(exc))
        self.set_status(ChannelStatus("connected", account=f"@{me.username}"))
        await self.replay_journal()
        offset: int | None = None  # see the module docstring
        while not self.stopping:
            batch = await self._fetch(bot, feed, offset)
            offset = await self._handle_batch(batch, offset)

    async def _fetch(self, bot: Bot, feed: UpdateFeed, offset: int | None) -> list[Fetched]:
        try:
            await bot.get_updates(
                offset=offset, timeout=self.poll_timeout, allowed_updates=list(ALLOWED_UPDATES)
            )
        except RetryAfter as exc:
            await asyncio.sleep(outbound.seconds(exc.retry_after))
            return []
        except InvalidToken:
            raise self._token_refused() from None
        except Conflict:
            raise ConnectionError(
                "Another program receives this bot's messages (a second app, nanobot, or a "
                "webhook)."
            ) from None
        return feed.take()

    async def stop(self) -> None:
        """Stop receiving, cancel typing indicators, close the connections."""
        await super().stop()
        bot, self._bot = self._bot, None
        if bot is not None:
            try:
                await bot.shutdown()
            except Exception as exc:  # noqa: BLE001 - stopping must go on
                log.debug("closing the Telegram connection failed: %s", redact(exc))

    async def check(self) -> str:
        """Settings → "Test": ``getMe`` with these settings."""
        bot, _ = self._make_bot()
        try:
            await bot.initialize()
            return Phrase(QT_TR_NOOP("Connected as @{user}"), user=bot.bot.username)
        except InvalidToken:
            raise ValueError(self._token_refused().reason) from None
        finally:
            await bot.shutdown()

    # -- receiving ------------------------------------------------------------------------
    @staticmethod
    def _groups(batch: list[Fetched]) -> list[list[Fetched]]:
        """The batch with the photos of one album (same ``media_group_id``) together."""
        groups: list[list[Fetched]] = []
        for item in batch:
            message = item.update.message if item.update is not None else None
            album = message.media_group_id if message is not None else None
            if groups and album is not None:
                previous = groups[-1][-1].update
                prev_message = previous.message if previous is not None else None
                if (
                    message is not None
                    and prev_message is not None
                    and prev_message.media_group_id == album
                    and prev_message.chat_id == message.chat_id
                ):
                    groups[-1].append(item)
                    continue
            groups.append([item])
        return groups

    async def _handle_batch(self, batch: list[Fetched], offset: int | None) -> int | None:
        for group in self._groups(batch):
            keys = [_key(item) for item in group]
            for item in group:
                if item.update is None:
                    log.warning(
                        "Telegram: skipping malformed update %s (%s)", item.update_id, item.error
                    )
            fresh = [
                item
                for item, key in zip(group, keys, strict=True)
                if item.update is not None and not self.state.seen(key)
            ]
            if fresh:
                try:
                    await self._dispatch(fresh, keys[0])
                except (ConnectionError, asyncio.CancelledError):
                    raise
                except Exception:
                    log.exception("Telegram: handling update %s failed; skipped", keys)
            ids = [item.update_id for item in group if item.update_id is not None]
            if ids:
                offset = max(ids) + 1 if offset is None else max(offset, max(ids) + 1)
            self._attempts.pop(keys[0], None)
            await asyncio.to_thread(self.state.update, offset=offset, seen=keys)
        return offset

    async def _dispatch(self, group: list[Fetched], key: str) -> None:
        first = group[0].update
        assert first is not None
        if first.callback_query is not None:
            await self._on_button(first.callback_query)
            return
        messages = [item.update.message for item in group if item.update and item.update.message]
        if messages:
            await self._on_messages(messages, key)

    def _addressed(self, message: Message) -> bool:
        """Whether a group message is for the bot (``groupPolicy: mention``)."""
        if message.chat.type == "private" or self.config.group_policy == "open":
            return True
        me = self._me
        if me is None:
            return False
        text = message.text or message.caption or ""
        if text.startswith("/"):
            return True  # commands reach a bot in privacy mode only when meant for it
        reply = message.reply_to_message
        if reply is not None and reply.from_user is not None and reply.from_user.id == me.id:
            return True
        for entity in (*message.entities, *message.caption_entities):
            if entity.type == "mention" and me.username:
                mention = (message.parse_entity(entity) if message.text else "") or (
                    message.parse_caption_entity(entity) if message.caption else ""
                )
                if mention.lstrip("@").lower() == me.username.lower():
                    return True
            if entity.type == "text_mention" and entity.user and entity.user.id == me.id:
                return True
        return False

    def _command(self, text: str) -> str | None:
        """``/cmd@bot args`` → ``/cmd args`` (aliases mapped); ``None``: for another bot."""
        match = _COMMAND.match(text)
        if match is None:
            return text
        name, target = match.group(1), match.group(2)
        username = self._me.username if self._me is not None else None
        if target and username and target.lower() != username.lower():
            return None
        return ALIASES.get(name.lower(), name) + text[match.end() :]

    async def _on_messages(self, messages: Sequence[Message], key: str) -> None:
        """A message (or an album) from a person: described, then handed to the agent."""
        first = messages[0]
        user = first.from_user
        if user is None or (self._me is not None and user.id == self._me.id):
            return
        sender, chat_id = _sender(user), str(first.chat_id)
        if not await admit(self, sender, chat_id, direct=first.chat.type == "private"):
            log.info("Telegram: message from %s ignored (not in allowFrom)", sender)
            return
        if not self._addressed(first):
            return
        text = first.text
        if text and text.startswith("/"):
            text = self._command(text)
            if text is None:
                return
        bot = self._require_bot()
        give_up = self._attempts.get(key, 0) >= DOWNLOAD_ATTEMPTS - 1
        parts: list[Received] = []
        try:
            for index, message in enumerate(messages):
                parts.append(
                    await describe(
                        bot,
                        message,
                        self.media_dir,
                        self.app_config,
                        bot_id=self._me.id if self._me else None,
                        text=text if index == 0 else message.text,
                        give_up=give_up,
                    )
                )
        except ConnectionLost as exc:
            self._attempts[key] = self._attempts.get(key, 0) + 1
            raise ConnectionError(f"downloading an attachment failed: {exc}") from exc
        contents = [p.content for p in parts if p.content != "[empty message]"]
        media = list(dict.fromkeys(path for p in parts for path in p.media))
        metadata = {
            "message_id": first.message_id,
            "user_id": user.id,
            "username": user.username,
            "first_name": user.first_name,
            "is_group": first.chat.type != "private",
            "message_thread_id": first.message_thread_id,
            "reply_to_message_id": (
                first.reply_to_message.message_id if first.reply_to_message else None
            ),
        }
        published = await self.publish(
            sender,
            chat_id,
            "\n".join(contents) or "[empty message]",
            media=media,
            metadata=metadata,
            message_id=f"{chat_id}:{first.message_id}",
            journal=True,  # getUpdates confirms it before the agent has it safe
        )
        if published and self.config.react_emoji:
            self._activity.react(chat_id, first.message_id, self.config.react_emoji)

    async def _on_button(self, query: CallbackQuery) -> None:
        bot = self._require_bot()
        who = _sender(query.from_user)
        if not self.is_allowed(who):
            log.info("Telegram: button tap from %s ignored (not in allowFrom)", who)
            await quietly(bot.answer_callback_query(query.id, text="You may not answer this."))
            return
        if (query.data or "").startswith(f"{BUTTON_PREFIX}:"):
            name = (
                f"@{query.from_user.username}"
                if query.from_user.username
                else str(query.from_user.first_name or query.from_user.id)
            )
            assert isinstance(self.approvals, ButtonApprover)
            await self.approvals.on_button(bot, query, name)
            return
        await quietly(bot.answer_callback_query(query.id))  # a button of something else

    # -- run events ---------------------------------------------------------------------
    @property
    def activity(self) -> Activity:
        """Typing indicators and reactions."""
        return self._activity

    async def on_event(self, event: RunEvent) -> None:
        """Typing while a turn of a Telegram chat runs; the reaction goes when it ends."""
        self._activity.on_event(event, reaction=self.config.react_emoji)

    # -- sending --------------------------------------------------------------------------
    def _require_bot(self) -> Bot:
        if self._bot is None:
            raise ConnectionError("Telegram is not connected")
        return self._bot

    def _reply_target(self, message: OutboundMessage) -> int | None:
        if message.reply_to and str(message.reply_to).isdigit():
            return int(message.reply_to)
        meta = message.metadata
        if not self.config.reply_to_message or meta.get("progress") or meta.get("reminder"):
            return None
        request_id = str(meta.get("request_id") or "")
        if not request_id and meta.get("turn_id"):
            request_id = self._activity.request_of(str(meta["turn_id"])) or ""
        return message_of(message.chat_id, request_id) if request_id else None

    async def pieces(self, message: OutboundMessage) -> list[str | Piece]:
        """Attachments, then the text in pieces."""
        try:
            int(message.chat_id)
        except ValueError:
            raise ValueError(f"{message.chat_id!r} is not a Telegram chat id") from None
        return [*message.media, *outbound.pieces(message)]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One message; the first replies to the message it answers (Telegram has no
        idempotency key: a piece in doubt is sent again)."""
        bot = self._require_bot()
        chat = int(delivery.message.chat_id)
        reply = self._reply_target(delivery.message) if index == 0 else None
        if isinstance(piece, Piece):
            await outbound.send_text(bot, chat, piece, reply)
        else:
            await outbound.send_file(bot, chat, Path(piece), reply)

    async def send_question(self, chat_id: str, html: str, keyboard: InlineKeyboardMarkup) -> int:
        """An approval question with its buttons; returns its message id."""
        bot = self._require_bot()
        sent = await outbound.retrying(
            bot.send_message, int(chat_id), html, parse_mode=ParseMode.HTML, reply_markup=keyboard
        )
        return int(sent.message_id)

    async def edit_question(self, chat_id: str, message_id: int, html: str) -> None:
        """Show an approval question's outcome and drop its buttons (best effort)."""
        bot = self._bot
        if bot is None:
            return
        try:
            await bot.edit_message_text(
                html, chat_id=int(chat_id), message_id=message_id, parse_mode=ParseMode.HTML
            )
        except TelegramError as exc:
            log.info("Telegram: updating an approval question failed: %s", redact(exc))
