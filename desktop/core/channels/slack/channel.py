"""The Slack channel: a Slack app in Socket Mode (slack-sdk's aiohttp ``SocketModeClient`` and
``AsyncWebClient``).

Connecting. ``auth.test`` with the bot token (who the bot is), then ``apps.connections.open``
with the app token gives the WebSocket URL. The SDK's own reconnecting is turned off: a lost
connection ends :meth:`SlackChannel.run` with an error, so the manager shows it and reconnects
with its backoff. A ``disconnect`` envelope (Slack asks the app to move to a new connection)
is still followed by the SDK within the same run. Refused tokens make the channel
``unavailable`` with a hint instead of retrying. Every connection ends with the run that
opened it, all of the SDK's tasks awaited (:mod:`.connection`), also when stopping cancels
the run while it is closing.

Receiving. Every envelope is acknowledged, as the protocol requires, with its
``envelope_id``. Slack wants that within three seconds, sooner than the agent may save a
message, so a message is first kept in the channel's journal (saved to disk), then
acknowledged; the journal hands it over again after a restart until the agent has it safe.
Envelopes are handled one after the other in arrival order. Slack delivers an envelope again
when its acknowledgement did not arrive (a dropped connection), and sends both ``message``
and ``app_mention`` for a mention: a message is known by ``<channel>:<ts>`` and handled once.
An event that cannot be understood is logged, acknowledged and skipped.

Catching up. Socket Mode delivers nothing sent while the app was not connected (beyond Slack's
few retries). After every (re)connect the channel fetches, for each conversation it has seen
recently, the messages after the newest one it saw (:mod:`.catchup`: ``conversations.history``
for a channel or DM, ``conversations.replies`` for a thread it answers in), oldest first, and
hands each to the same handler as a live ``message`` event (policy, allowFrom, de-duplication,
journal). Live events and caught-up messages are handled one at a time. A conversation seen
for the first time starts from then: the first start replays no history. A failing fetch is
logged and tried again at the next connect.

Sending. Markdown becomes mrkdwn in pieces under Slack's length (:mod:`.mrkdwn`), then the
attachments are uploaded, all into the chat's thread when it has one. Each is a piece of the
answer's delivery (:mod:`~desktop.core.channels.outbox`): a retry resumes at the piece that
failed. The message a
turn answers gets ``reactEmoji`` while it runs and ``doneEmoji`` afterwards. Approval questions
come with buttons (:mod:`.buttons`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.web.async_client import AsyncWebClient

from desktop.core.bus.events import (
    OutboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.channels.activity import remember
from desktop.core.channels.approvals import CLOSED
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.channels.slack import catchup, files, inbound
from desktop.core.channels.slack.buttons import PREFIX, BlockApprover, section
from desktop.core.channels.slack.connection import SocketClient
from desktop.core.channels.slack.mrkdwn import pieces, to_mrkdwn
from desktop.core.config.channels.slack import DEFAULT_BASE_URL, SlackConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

REFUSED = {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}
WRONG_TOKEN_TYPE = {"not_allowed_token_type", "missing_scope"}
RATE_LIMIT_TRIES = 3
SAVE_EVERY = 10.0  # seconds between saves of positions moved by messages not for the agent


class SlackChannel(BaseChannel[SlackConfig]):
    """A Slack app in Socket Mode (see the module docstring)."""

    name: ClassVar[str] = "slack"
    display_name: ClassVar[str] = "Slack"
    secret_fields: ClassVar[tuple[str, ...]] = ("bot_token", "app_token")
    ping_interval: ClassVar[float] = 5.0
    """Seconds between WebSocket pings (a connection silent for 4 of them is lost)."""
    connect_timeout: ClassVar[float] = 45.0
    close_timeout: ClassVar[float] = 2.0
    """Seconds the WebSocket close handshake may take before the connection is dropped."""

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._web: AsyncWebClient | None = None
        self._socket: SocketClient | None = None
        self._bot_user_id: str | None = None
        self._lost = asyncio.Event()
        self._turns: OrderedDict[str, str] = OrderedDict()  # turn id → request id
        self._handling = asyncio.Lock()  # live and caught-up messages, one at a time
        self._saved_at = 0.0
        self._positions = catchup.Positions(self.state.get(catchup.KEY))

    def make_approver(self) -> BlockApprover:
        """Approval questions with Block Kit buttons."""
        return BlockApprover(self)

    # -- connection -----------------------------------------------------------------------
    def _tokens(self) -> tuple[str, str]:
        if self.config.mode != "socket":
            raise ChannelUnavailable(
                QT_TR_NOOP(
                    "Webhook mode needs a public HTTPS server; the desktop app uses Socket Mode."
                ),
                QT_TR_NOOP(
                    'Set the Slack mode to "socket" and turn on Socket Mode in the app settings.'
                ),
            )
        bot, app = (self.config.bot_token or "").strip(), (self.config.app_token or "").strip()
        if not bot or not app:
            missing = (
                QT_TR_NOOP("No bot token (xoxb-…) and app token (xapp-…) is set.")
                if not bot and not app
                else QT_TR_NOOP("No bot token (xoxb-…) is set.")
                if not bot
                else QT_TR_NOOP("No app token (xapp-…) is set.")
            )
            raise ChannelUnavailable(
                missing,
                QT_TR_NOOP(
                    "Create a Slack app with Socket Mode on (docs/channels/slack.md) and enter its tokens "
                    "in Settings → Channels → Slack."
                ),
            )
        if not app.startswith("xapp-"):
            raise ChannelUnavailable(
                QT_TR_NOOP("The app token is not an app-level token (it starts with xapp-)."),
                QT_TR_NOOP(
                    "Create one under Basic Information → App-Level Tokens with connections:write."
                ),
            )
        return bot, app

    def _make_web(self, token: str) -> AsyncWebClient:
        base = (self.config.base_url or DEFAULT_BASE_URL).strip()
        return AsyncWebClient(token=token, base_url=base, proxy=self.config.proxy or None)

    def _refused(self, which: str, exc: SlackApiError) -> ChannelUnavailable:
        error = str(exc.response.get("error") or "")
        hint = (
            QT_TR_NOOP("Check the bot token (OAuth & Permissions → Bot User OAuth Token).")
            if which == "bot"
            else QT_TR_NOOP(
                "Check the app token (Basic Information → App-Level Tokens, with the "
                "connections:write scope, and Socket Mode turned on)."
            )
        )
        reason = (
            QT_TR_NOOP("Slack did not accept the bot token ({error}).")
            if which == "bot"
            else QT_TR_NOOP("Slack did not accept the app token ({error}).")
        )
        return ChannelUnavailable(Phrase(reason, error=error), hint)

    async def _login(self, web: AsyncWebClient) -> dict[str, Any]:
        try:
            response = await web.auth_test()
        except SlackApiError as exc:
            if exc.response.get("error") in REFUSED | WRONG_TOKEN_TYPE:
                raise self._refused("bot", exc) from None
            raise ConnectionError(f"Slack answered {exc.response.get('error')}") from None
        return dict(response.data) if isinstance(response.data, dict) else {}

    async def run(self) -> None:
        """Connect, then receive until stopped (a lost connection raises)."""
        bot_token, app_token = self._tokens()
        web = self._web = self._make_web(bot_token)
        me = await self._login(web)
        self._bot_user_id = str(me.get("user_id") or "") or None
        queue: asyncio.Queue[SocketModeRequest] = asyncio.Queue()
        self._lost.clear()

        async def on_request(_client: Any, request: SocketModeRequest) -> None:
            queue.put_nowait(request)

        async def on_close(_message: Any) -> None:
            self._lost.set()

        socket = self._socket = SocketClient(
            app_token,
            web_client=web,
            proxy=self.config.proxy or None,
            auto_reconnect_enabled=False,
            ping_interval=self.ping_interval,
            on_close_listeners=[on_close],
            on_error_listeners=[on_close],
            close_timeout=self.close_timeout,
        )
        socket.socket_mode_request_listeners.append(on_request)
        worker: asyncio.Task[None] | None = None
        catching: asyncio.Task[None] | None = None
        try:
            try:
                socket.wss_uri = await socket.issue_new_wss_url()
            except SlackApiError as exc:
                if exc.response.get("error") in REFUSED | WRONG_TOKEN_TYPE:
                    raise self._refused("app", exc) from None
                raise ConnectionError(f"Slack answered {exc.response.get('error')}") from None
            async with asyncio.timeout(self.connect_timeout):
                await socket.connect()
            account = f"@{me.get('user')}" if me.get("user") else str(me.get("user_id") or "")
            team = me.get("team")
            self.set_status(
                ChannelStatus("connected", account=f"{account} ({team})" if team else account)
            )
            await self.replay_journal()
            due = self._positions.due()  # before live messages move them
            worker = self.owner.spawn(self._work(socket, queue), name="slack-envelopes")
            catching = self.owner.spawn(self._catch_up(due), name="slack-catch-up")
            await self._watch(socket)
        finally:
            try:
                for task in (worker, catching):
                    if task is not None:
                        task.cancel()
                        await asyncio.gather(task, return_exceptions=True)
            finally:  # also when the stop cancels this run meanwhile
                self._socket = None
                await socket.aclose()

    async def _watch(self, socket: SocketClient) -> None:
        """Return when stopped; raise when the connection is lost."""
        while not self.stopping:
            self._lost.clear()
            try:
                async with asyncio.timeout(self.ping_interval):
                    await self._lost.wait()
            except TimeoutError:
                pass
            if self.stopping or socket.connect_operation_lock.locked():
                continue  # stopping, or following Slack's request to reconnect
            if not await socket.is_connected():
                raise ConnectionError("The connection to Slack was lost.")

    async def stop(self) -> None:
        """Stop receiving and cancel the channel's background work."""
        self._lost.set()
        await super().stop()
        try:
            if positions := self._positions.to_json():
                await asyncio.to_thread(self._store_positions, positions)
        except OSError as exc:
            log.warning("Slack: saving the read positions failed: %s", exc)
        socket, self._socket = self._socket, None
        if socket is not None:
            await socket.aclose()

    async def check(self) -> str:
        """Settings → "Test": ``auth.test`` with the bot token, ``apps.connections.open`` with
        the app token (the URL it gives is not used)."""
        bot_token, app_token = self._tokens()
        web = self._make_web(bot_token)
        try:
            me = await self._login(web)
            await web.apps_connections_open(app_token=app_token)
        except ChannelUnavailable as exc:
            raise ValueError(exc.reason) from None
        except SlackApiError as exc:
            raise ValueError(self._refused("app", exc).reason) from None
        return Phrase(
            QT_TR_NOOP("Connected as @{user} in {team}"),
            user=str(me.get("user")),
            team=str(me.get("team")),
        )

    # -- receiving ------------------------------------------------------------------------
    async def _work(self, socket: SocketClient, queue: asyncio.Queue[SocketModeRequest]) -> None:
        while True:
            request = await queue.get()
            later = request.type == "events_api"  # acknowledged once the journal has it
            if not later:
                await self._acknowledge(socket, request)
            try:
                if request.type == "events_api":
                    await self._on_event(request.payload)
                elif request.type == "interactive":
                    await self._on_interactive(request.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one bad event must not stop the channel
                log.warning(
                    "Slack: skipping an event that could not be handled (%s): %s",
                    request.envelope_id,
                    redact(exc),
                )
            if later:
                await self._acknowledge(socket, request)

    @staticmethod
    async def _acknowledge(socket: SocketClient, request: SocketModeRequest) -> None:
        try:
            await socket.send_socket_mode_response({"envelope_id": request.envelope_id})
        except Exception as exc:  # noqa: BLE001 - Slack delivers it again
            log.info("Slack: acknowledging %s failed: %s", request.envelope_id, redact(exc))

    async def _on_event(self, payload: Any) -> None:
        event = payload.get("event") if isinstance(payload, dict) else None
        async with self._handling:
            await self._handle(event)

    def _note(self, event: Any, incoming: inbound.Incoming | None) -> bool:
        """Move the conversation's position to ``event`` (a channel or DM always; a thread
        when the bot answers in it); ``True`` when it moved."""
        if not isinstance(event, dict):
            return False
        channel, ts, thread = event.get("channel"), event.get("ts"), event.get("thread_ts")
        if not isinstance(channel, str) or not isinstance(ts, str):
            return False
        moved = False
        if isinstance(thread, str) and thread and thread != ts:
            key = inbound.join_chat(channel, thread)
            if key in self._positions or incoming is not None:
                moved = self._positions.note(key, ts)
        else:
            moved = self._positions.note(channel, ts)
        if incoming is not None and incoming.thread_ts:
            moved = self._positions.note(incoming.chat_id, ts) or moved
        return moved

    async def _handle(self, event: Any) -> None:
        """A ``message`` event, live or caught up (hold :attr:`_handling`)."""
        incoming = inbound.parse(event, bot_user_id=self._bot_user_id, config=self.config)
        moved = self._note(event, incoming)
        if incoming is None:
            if moved and time.monotonic() - self._saved_at > SAVE_EVERY:
                await self._save_positions()
            return
        if self.state.seen(incoming.key) or incoming.key in self.journal:
            log.debug("Slack: message %s was handled before", incoming.key)
            return
        if not await admit(self, incoming.sender, incoming.chat_id, direct=incoming.is_dm):
            log.info("Slack: message from %s ignored (not in allowFrom)", incoming.sender)
            await self._save_positions()
            return
        described = await files.describe(
            incoming.files, self.media_dir, self.config.bot_token, self.config.proxy or None
        )
        content = "\n".join(p for p in (incoming.text, *described.lines) if p)
        if not content:
            return
        published = await self.publish(
            incoming.sender,
            incoming.chat_id,
            content,
            media=described.images,
            metadata={
                "message_id": incoming.ts,
                "user_id": incoming.sender,
                "channel": incoming.channel,
                "thread_ts": incoming.thread_ts,
                "is_group": not incoming.is_dm,
            },
            message_id=incoming.key,
            journal=True,  # acknowledged to Slack before the agent has it safe
            seen=[incoming.key],
        )
        if incoming.key not in self.journal:  # consumed (an approval answer) or already safe
            await asyncio.to_thread(self.state.update, seen=[incoming.key])
        await self._save_positions()  # only now: the journal or the seen ids have it
        if published and self.config.react_emoji:
            self.spawn(self._react(incoming.channel, incoming.ts, self.config.react_emoji), "react")

    def _store_positions(self, positions: dict[str, list[Any]]) -> None:
        self.state.update(positions=positions)  # catchup.KEY

    async def _save_positions(self) -> None:
        self._saved_at = time.monotonic()
        await asyncio.to_thread(self._store_positions, self._positions.to_json())

    # -- catching up ----------------------------------------------------------------------
    async def _catch_up(self, due: list[tuple[str, str]]) -> None:  # noqa: C901  # the catch-up loop: pages, duplicates and order per chat
        """Fetch and handle what was sent after each position in ``due`` (oldest first)."""
        pending = list(due)
        done: set[str] = set()
        async with self._handling:
            for key, oldest in due:
                self._positions.hold(key, oldest)
            await self._save_positions()
        while pending:
            key, oldest = pending.pop(0)
            if key in done:
                continue
            done.add(key)
            try:
                channel, thread = inbound.split_chat(key)
                messages = await catchup.fetch(self._call, channel, thread, oldest)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - tried again at the next connect
                log.warning(
                    "Slack: catching up on %s failed (tried again at the next connect): %s",
                    key,
                    redact(exc),
                )
                continue
            if messages:
                log.info("Slack: %d message(s) in %s since %s", len(messages), key, oldest)
            for message in messages:
                event = {**message, "type": "message", "channel": channel}
                if thread is None and event.get("thread_ts") == event.get("ts"):
                    event.pop("thread_ts")  # a thread started later; the message was not in one
                async with self._handling:
                    try:
                        await self._handle(event)
                    except Exception as exc:  # noqa: BLE001 - as a live event: skipped
                        log.warning(
                            "Slack: skipping a missed message that could not be handled "
                            "(%s:%s): %s",
                            channel,
                            message.get("ts"),
                            redact(exc),
                        )
                    if thread is None and message.get("reply_count"):
                        root = inbound.join_chat(channel, str(message.get("ts")))
                        since = self._positions.get(root)
                        if since is not None and root not in done:
                            pending.append((root, since))  # a thread it answers in since
            async with self._handling:
                if messages:
                    self._positions.note(key, str(messages[-1].get("ts")))
                self._positions.release(key)
                await self._save_positions()

    async def _on_interactive(self, payload: Any) -> None:
        if not isinstance(payload, dict) or payload.get("type") != "block_actions":
            return
        user = payload.get("user") or {}
        channel = payload.get("channel") or {}
        message = payload.get("message") or {}
        user_id = str(user.get("id") or "") if isinstance(user, dict) else ""
        channel_id = str(channel.get("id") or "") if isinstance(channel, dict) else ""
        for action in payload.get("actions") or []:
            if not isinstance(action, dict):
                continue
            if not str(action.get("action_id") or "").startswith(f"{PREFIX}:"):
                continue
            if not self.is_allowed(user_id):
                log.info("Slack: approval click from %s ignored (not in allowFrom)", user_id)
                return
            assert isinstance(self.approvals, BlockApprover)
            if not await self.approvals.on_action(action, user_id, channel_id):
                ts = message.get("ts") if isinstance(message, dict) else None
                if channel_id and isinstance(ts, str):  # an old question: drop its buttons
                    await self.update_blocks(channel_id, ts, CLOSED, [section(CLOSED)])
            return

    # -- run events -----------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """The answered message loses ``reactEmoji`` and gets ``doneEmoji`` when its turn ends."""
        if isinstance(event, TurnStarted):
            if event.channel == self.name and event.request_id:
                remember(self._turns, event.turn_id, event.request_id)
            return
        if not isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            return
        request_id = self._turns.pop(event.turn_id, None)
        where = inbound.message_of(request_id) if request_id else None
        if where is None:
            return
        channel, ts = where
        if self.config.react_emoji:
            self.spawn(self._react(channel, ts, self.config.react_emoji, remove=True), "unreact")
        if self.config.done_emoji and isinstance(event, TurnFinished):
            self.spawn(self._react(channel, ts, self.config.done_emoji), "react-done")

    async def _react(self, channel: str, ts: str, emoji: str, *, remove: bool = False) -> None:
        web = self._web
        if web is None:
            return
        name = emoji.strip().strip(":")
        try:
            if remove:
                await web.reactions_remove(channel=channel, timestamp=ts, name=name)
            else:
                await web.reactions_add(channel=channel, timestamp=ts, name=name)
        except Exception as exc:  # noqa: BLE001 - a reaction is decoration
            log.debug("Slack: reaction %s failed: %s", name, redact(exc))

    # -- sending --------------------------------------------------------------------------
    def _require_web(self) -> AsyncWebClient:
        if self._web is None:
            raise ConnectionError("Slack is not connected")
        return self._web

    async def _call(self, method: str, **params: Any) -> dict[str, Any]:
        """A Web API call that waits out Slack's rate limit (``Retry-After``) a few times."""
        web = self._require_web()
        for attempt in range(RATE_LIMIT_TRIES):
            try:
                response = await getattr(web, method)(**params)
                return dict(response.data) if isinstance(response.data, dict) else {}
            except SlackApiError as exc:
                if exc.response.get("error") != "ratelimited" or attempt == RATE_LIMIT_TRIES - 1:
                    raise
                delay = float(exc.response.headers.get("Retry-After", "1") or 1)
                await asyncio.sleep(min(max(delay, 0.0), 60.0))
        raise AssertionError("unreachable")

    async def pieces(self, message: OutboundMessage) -> list[str | Path]:
        """The text in pieces, then the attachments."""
        return [*pieces(to_mrkdwn(message.content)), *(Path(m) for m in message.media)]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One message or upload, into the chat's thread (Slack has no idempotency key for
        bots: a piece in doubt is sent again)."""
        channel, thread = inbound.split_chat(delivery.message.chat_id)
        if isinstance(piece, Path):
            await files.upload(self._require_web(), channel, thread, piece)
        else:
            await self._call(
                "chat_postMessage", channel=channel, thread_ts=thread, text=piece, mrkdwn=True
            )

    async def post_blocks(self, chat_id: str, text: str, blocks: list[dict[str, Any]]) -> str:
        """Post a Block Kit message (an approval question); returns its ``ts``."""
        channel, thread = inbound.split_chat(chat_id)
        data = await self._call(
            "chat_postMessage", channel=channel, thread_ts=thread, text=text, blocks=blocks
        )
        return str(data.get("ts") or "")

    async def update_blocks(
        self, chat_id: str, ts: str, text: str, blocks: list[dict[str, Any]]
    ) -> None:
        """Replace a posted message's blocks (best effort)."""
        if self._web is None or not ts:
            return
        channel, _ = inbound.split_chat(chat_id)
        try:
            await self._call("chat_update", channel=channel, ts=ts, text=text, blocks=blocks)
        except Exception as exc:  # noqa: BLE001 - the answer counts even if the edit fails
            log.info("Slack: updating an approval question failed: %s", redact(exc))
