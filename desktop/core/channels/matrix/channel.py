"""The Matrix channel: a bot account on any homeserver, through matrix-nio.

How it behaves:

* It long-polls ``/sync``. The sync token (``next_batch``) is saved in the channel state after
  every batch, so a restart continues where it stopped: messages that arrived while the app
  was off are answered, none twice (handled event ids are remembered as well). The very first
  start only takes the current position and answers no history. A message the token has moved
  past but the agent has not yet saved in its session is kept in the channel's journal
  (:mod:`~desktop.core.channels.journal`) and handed over again after a restart.
* Invites from senders in ``allowFrom`` are joined; others are left pending (logged).
* Direct chats (at most two members) are always answered; rooms follow ``groupPolicy``
  (``open``, ``mention`` — a mention or a reply to the bot —, ``allowlist``).
* Answers are Markdown rendered to HTML (``org.matrix.custom.html``) with the Markdown as the
  plain ``body``; progress notes go out as ``m.notice``. Each piece of an answer has a
  transaction id from its delivery (:mod:`~desktop.core.channels.outbox`), so a piece sent
  again after a lost response (or a restart) is never posted twice.
* The bot shows as typing while a turn runs.
* Encrypted rooms work with an access token login (see :mod:`.crypto`); otherwise the first
  encrypted message in a room gets a short (unencrypted) notice saying so.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Coroutine
from contextlib import suppress
from typing import Any

import aiohttp
from nio import (
    AsyncClient,
    AsyncClientConfig,
    KeysUploadError,
    LoginResponse,
    RoomSendResponse,
    SyncError,
    SyncResponse,
    WhoamiResponse,
)

from desktop.core.bus.events import OutboundMessage, RunEvent
from desktop.core.channels.base import ChannelStatus, ChannelUnavailable, split_message
from desktop.core.channels.matrix import crypto
from desktop.core.channels.matrix.content import message_content
from desktop.core.channels.matrix.inbound import InboundHandler
from desktop.core.channels.outbox import Delivery
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.tasks import finish

log = logging.getLogger(__name__)

POLL_MS = 30_000  # long-poll timeout of /sync
TYPING_MS = 30_000  # how long one typing notice lasts on the server
TYPING_REFRESH_S = 20.0  # refreshed before it runs out
SEND_WAIT_S = 30.0  # how long a send waits for a reconnect before it fails (and is retried)
MAX_CHARS = 6_000  # one message (the event limit is 64 KiB with the HTML copy)
SENT_MEMORY = 500  # own event ids kept to recognise replies to the bot
DEVICE_NAME = "nanobot Desktop"
AUTH_ERRORS = frozenset({"M_UNKNOWN_TOKEN", "M_MISSING_TOKEN", "M_FORBIDDEN", "M_USER_DEACTIVATED"})
END_EVENTS = frozenset({"turn_finished", "turn_stopped", "turn_failed"})
SETTINGS_HINT = Phrase(QT_TR_NOOP("Settings → Channels → Matrix"))


def _filter(timeline_limit: int) -> dict[str, Any]:
    """A sync filter: room timelines and state, no presence, typing, receipts or account data
    (they would only wake the long poll)."""
    return {
        "presence": {"not_types": ["*"]},
        "account_data": {"not_types": ["*"]},
        "room": {
            "timeline": {"limit": timeline_limit},
            "ephemeral": {"not_types": ["*"]},
            "account_data": {"not_types": ["*"]},
        },
    }


SYNC_FILTER = _filter(50)
FIRST_FILTER = _filter(1)  # the first start: where things stand, without history


class SendRefused(RuntimeError):
    """The homeserver answered a send with an error (not allowed in the room, too large…)."""


def _homeserver(url: str) -> str:
    url = url.strip().rstrip("/")
    return url if "://" in url else f"https://{url}"


def _auth_failed(response: Any) -> bool:
    return getattr(response, "status_code", None) in AUTH_ERRORS or bool(
        getattr(response, "soft_logout", False)
    )


class MatrixChannel(InboundHandler):
    """A Matrix bot account as a channel (chat id: the room id)."""

    name = "matrix"
    display_name = "Matrix"

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._client: AsyncClient | None = None
        self._connected = asyncio.Event()
        self._reconnect = asyncio.Condition()
        self._generation = 0  # counts connections, so a send can wait for a newer one
        self._me = str(self.config.user_id or "")
        self._session: tuple[str, str] | None = None  # a password login's (token, device)
        self._typing: dict[str, asyncio.Task[None]] = {}
        self._background = self.owner.child("typing")  # typing calls of the connection
        self._sent: deque[str] = deque(maxlen=SENT_MEMORY)
        self._downloads = asyncio.Semaphore(max(1, int(self.config.max_concurrent_media_downloads)))

    # -- settings and login ----------------------------------------------------------------
    def _require_settings(self) -> None:
        cfg = self.config
        if not str(cfg.homeserver or "").strip():
            raise ChannelUnavailable(
                QT_TR_NOOP("Matrix needs the homeserver address."), SETTINGS_HINT
            )
        if not cfg.access_token and not cfg.password:
            raise ChannelUnavailable(
                QT_TR_NOOP("Matrix needs an access token (or a password) for the bot account."),
                Phrase(
                    QT_TR_NOOP("{settings}: fill in Access token (or Password) and User ID"),
                    settings=SETTINGS_HINT,
                ),
            )
        if not cfg.access_token and not cfg.user_id:
            raise ChannelUnavailable(
                QT_TR_NOOP("Matrix needs the bot's user ID to log in with a password."),
                SETTINGS_HINT,
            )

    def _new_client(self, *, encrypted: bool = False) -> AsyncClient:
        proxy = (self.config.proxy or "").strip() or None
        if proxy and "://" not in proxy:
            proxy = f"http://{proxy}"
        config = AsyncClientConfig(
            max_timeouts=2,  # then the error reaches run(), and the manager's backoff takes over
            max_limit_exceeded=5,
            encryption_enabled=encrypted,
            pickle_key=crypto.pickle_key(self.config.access_token) if encrypted else "",
            store_sync_tokens=False,
            request_timeout=60,
            **({"store": crypto.store_class()} if encrypted else {}),
        )
        return AsyncClient(
            _homeserver(self.config.homeserver),
            self.config.user_id or "",
            device_id=self.config.device_id or None,
            store_path=str(crypto.store_dir(self.state.path)) if encrypted else "",
            config=config,
            proxy=proxy,
        )

    async def _start_encryption(self, client: AsyncClient) -> None:
        """Open the crypto store of the token's device and publish its keys."""
        if not client.device_id:
            log.warning("matrix: the homeserver did not name the token's device (set Device ID);"
                        " encryption is off")  # fmt: skip
            return
        path = crypto.store_dir(self.state.path)
        await asyncio.to_thread(path.mkdir, parents=True, exist_ok=True)
        # Nothing else uses the client yet; the thread ends before this goes on, even when
        # the run is cancelled meanwhile (the store is then closed, not left half-open).
        try:
            await finish(asyncio.to_thread(crypto.open_store, client))
        except Exception:
            log.exception(
                "matrix: the crypto store in %s could not be opened (made with another access "
                "token?); left as it is, encryption is off",
                path,
            )
            client.olm = None
        if client.olm is None:
            return
        if client.should_upload_keys:
            response = await client.keys_upload()
            if isinstance(response, KeysUploadError):
                log.warning(
                    "matrix: publishing the device keys failed (%s); if the crypto store was "
                    "lost, use a new access token (a new device)",
                    response.message,
                )
        log.info("matrix: end-to-end encryption on (device %s)", client.device_id)

    async def _log_in(self, client: AsyncClient) -> str:
        """Authenticate ``client``; returns the account's user id.

        Raises:
            ChannelUnavailable: The homeserver refused the credentials.
            ConnectionError: The homeserver could not be asked.
        """
        cfg = self.config
        if cfg.access_token or self._session is not None:
            token, device = (
                (cfg.access_token, cfg.device_id) if cfg.access_token else self._session or ("", "")
            )
            client.access_token = token
            client.user_id = cfg.user_id or ""
            client.device_id = device or client.device_id
            who = await client.whoami()
            if isinstance(who, WhoamiResponse):
                client.user_id = who.user_id
                client.device_id = who.device_id or client.device_id
                return str(who.user_id)
            if not _auth_failed(who):
                raise ConnectionError(f"the homeserver did not answer: {who.message}")
            if cfg.access_token:
                raise ChannelUnavailable(
                    Phrase(
                        QT_TR_NOOP("The homeserver rejected the access token ({code})."),
                        code=who.status_code,
                    ),
                    Phrase(
                        QT_TR_NOOP("{settings}: paste a current access token of {user}"),
                        settings=SETTINGS_HINT,
                        user=cfg.user_id or Phrase(QT_TR_NOOP("the bot")),
                    ),
                )
            self._session = None  # the password session expired: log in again
        client.user_id = cfg.user_id
        login = await client.login(password=cfg.password, device_name=DEVICE_NAME)
        if not isinstance(login, LoginResponse):
            if getattr(login, "status_code", "") in AUTH_ERRORS:
                raise ChannelUnavailable(
                    Phrase(
                        QT_TR_NOOP("The homeserver refused the password for {user}."),
                        user=cfg.user_id,
                    ),
                    Phrase(
                        QT_TR_NOOP("{settings}: check User ID and Password"), settings=SETTINGS_HINT
                    ),
                )
            raise ConnectionError(f"logging in failed: {login.message}")
        self._session = (login.access_token, login.device_id)
        return str(login.user_id)

    # -- receiving -------------------------------------------------------------------------
    async def run(self) -> None:
        """Log in, then sync until stopped (raises when the homeserver goes away)."""
        self._require_settings()
        encrypted = crypto.wanted(self.config)
        if self.config.e2ee_enabled and not encrypted:
            why = "matrix-nio[e2e] is not installed" if not crypto.AVAILABLE else "password login"
            log.warning("matrix: encryption is off (%s); encrypted rooms get a notice", why)
        client = self._new_client(encrypted=encrypted)
        try:
            self._me = await self._log_in(client)
            if encrypted:
                await self._start_encryption(client)
            self._client = client
            await self._sync_forever(client)
        finally:
            self._connected.clear()
            self._client = None
            # On the loop: a send still holding the client may write to the store between
            # awaits. Closing a connection with no transaction open does no disk work.
            crypto.close_store(client)
            try:
                await self._cancel_tasks()
            finally:
                await client.close()

    async def _sync_forever(self, client: AsyncClient) -> None:
        account = f"{self._me} on {client.homeserver}"
        token: str | None = self.state.get("next_batch")
        if token is not None and self.state.get("account") != account:
            log.info("matrix: another account than last time (%s): starting afresh", account)
            token = None  # a sync token is only valid for the account that got it
        first = True
        while not self.stopping:
            if token is None:
                response = await client.sync(timeout=0, sync_filter=FIRST_FILTER, full_state=True)
            elif first:  # full state: room members are known again after a restart
                response = await client.sync(
                    timeout=0, sync_filter=SYNC_FILTER, since=token, full_state=True
                )
            else:
                response = await client.sync(timeout=POLL_MS, sync_filter=SYNC_FILTER, since=token)
            if isinstance(response, SyncError):
                self._sync_failed(response)
            assert isinstance(response, SyncResponse)
            if first:
                first = False
                async with self._reconnect:
                    self._generation += 1
                    self._connected.set()
                    self._reconnect.notify_all()
                self.set_status(ChannelStatus("connected", account=self._me))
                log.info("matrix: connected as %s", self._me)
                await self.replay_journal()
            try:
                await crypto.upkeep(client)
            except (aiohttp.ClientError, TimeoutError, ConnectionError):
                raise
            except Exception:
                log.exception("matrix: key upkeep failed; encrypted rooms may lag")
            await self.handle_sync(client, response, since=token)
            token = response.next_batch
            await asyncio.to_thread(self.state.update, next_batch=token, account=account)

    def _sync_failed(self, response: SyncError) -> None:
        if _auth_failed(response):
            if self.config.access_token:
                raise ChannelUnavailable(
                    Phrase(
                        QT_TR_NOOP("The homeserver no longer accepts the access token ({code})."),
                        code=response.status_code,
                    ),
                    Phrase(
                        QT_TR_NOOP("{settings}: paste a current access token"),
                        settings=SETTINGS_HINT,
                    ),
                )
            self._session = None  # log in again on the next attempt
        raise ConnectionError(f"sync failed: {response.status_code or ''} {response.message}")

    async def stop(self) -> None:
        """Stop syncing; a password session is logged out (no stale sessions pile up)."""
        await super().stop()
        async with self._reconnect:
            self._reconnect.notify_all()  # sends waiting for a connection give up
        client, session = self._client, self._session
        if client is not None and session is not None:
            self._session = None
            with suppress(Exception):
                async with asyncio.timeout(max(0.1, self.config.sync_stop_grace_seconds)):
                    await client.logout()

    async def check(self) -> str:
        """Log in once with the settings (a password session is logged out again)."""
        self._require_settings()
        client = self._new_client()
        try:
            me = await self._log_in(client)
            if self._session is not None:
                self._session = None
                with suppress(Exception):
                    await client.logout()
            return Phrase(QT_TR_NOOP("Connected as {account}"), account=me)
        finally:
            await client.close()

    # -- sending ---------------------------------------------------------------------------
    async def _connection(self, newer_than: int = -1) -> tuple[AsyncClient, int]:
        """The connected client and its generation, waiting (up to :data:`SEND_WAIT_S`) while
        the channel reconnects, or for a connection newer than ``newer_than``.

        Raises:
            ConnectionError: Not running, or no connection in time.
        """

        def ready() -> bool:
            return self.stopping or (
                self._client is not None
                and self._connected.is_set()
                and self._generation > newer_than
            )

        if not ready():
            if self.status.state in ("stopped", "unavailable"):
                raise ConnectionError("the Matrix channel is not running")
            log.info("matrix: not connected; waiting for the homeserver before sending")
        async with self._reconnect:
            try:
                async with asyncio.timeout(SEND_WAIT_S):
                    await self._reconnect.wait_for(ready)
            except TimeoutError:
                raise ConnectionError("not connected to the homeserver (reconnecting)") from None
        if self.stopping or self._client is None:
            raise ConnectionError("the Matrix channel stopped")
        return self._client, self._generation

    async def pieces(self, message: OutboundMessage) -> list[str]:
        """The text, split when long (Matrix answers carry no files here)."""
        if not message.content.strip():
            return []
        return split_message(message.content, MAX_CHARS)

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """Post one piece into its room.

        While the channel reconnects, the piece waits for it; when the connection breaks
        during the send, it waits for the next connection and sends again. Its transaction id
        comes from the delivery, so the homeserver stores a piece sent again once.
        """
        client, generation = await self._connection()
        try:
            await self._post(client, delivery, index, piece)
        except (aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
            log.info("matrix: sending failed (%r); waiting for the homeserver", exc)
            client, generation = await self._connection(newer_than=generation)
            await self._post(client, delivery, index, piece)

    async def _post(self, client: AsyncClient, delivery: Delivery, index: int, piece: str) -> None:
        meta = delivery.message.metadata
        notice = bool(meta.get("progress") or meta.get("tool_hint"))
        response = await client.room_send(
            delivery.message.chat_id,
            "m.room.message",
            message_content(piece, notice=notice),
            tx_id=f"{delivery.id}-{index}",
            ignore_unverified_devices=True,  # the bot cannot verify anyone interactively
        )
        if not isinstance(response, RoomSendResponse):
            raise SendRefused(f"the homeserver refused the message: {response.message}")
        self._sent.append(response.event_id)

    async def send_notice(self, client: AsyncClient, room_id: str, text: str) -> None:
        """A short notice from the channel itself (not from the agent)."""
        response = await client.room_send(
            room_id, "m.room.message", message_content(text, notice=True)
        )
        if not isinstance(response, RoomSendResponse):
            raise SendRefused(f"the homeserver refused the notice: {response.message}")

    def sent_by_me(self, event_id: str) -> bool:
        """Whether ``event_id`` is one of the bot's recent messages."""
        return event_id in self._sent

    # -- typing ----------------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """Typing while a turn runs in one of the channel's rooms."""
        key = getattr(event, "session_key", "")
        channel, _, room_id = key.partition(":")
        if channel != self.name or not room_id or "#" in room_id:
            return  # subagent sessions (``…#sub-1``) do not type in the room
        if event.kind == "turn_started":
            if room_id not in self._typing:
                started = self._background.try_spawn(self._keep_typing(room_id), name="typing")
                if started is not None:
                    self._typing[room_id] = started
        elif event.kind in END_EVENTS:
            task = self._typing.pop(room_id, None)
            if task is not None:
                task.cancel()
                self._spawn(self._set_typing(room_id, False, after=task))

    async def _keep_typing(self, room_id: str) -> None:
        while True:
            await self._set_typing(room_id, True)
            await asyncio.sleep(TYPING_REFRESH_S)

    async def _set_typing(
        self, room_id: str, typing: bool, after: asyncio.Task[None] | None = None
    ) -> None:
        if after is not None:
            await asyncio.gather(after, return_exceptions=True)
        client = self._client
        if client is None or not self._connected.is_set():
            return
        try:
            await client.room_typing(room_id, typing_state=typing, timeout=TYPING_MS)
        except Exception as exc:  # noqa: BLE001 - best effort: typing is not worth an error
            log.debug("matrix: typing in %s failed: %s", room_id, exc)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self._background.try_spawn(coro, name="typing-off")

    async def _cancel_tasks(self) -> None:
        self._typing.clear()
        current = asyncio.current_task()
        tasks = [t for t in self._background.cancel() if t is not current]
        await asyncio.gather(*tasks, return_exceptions=True)
