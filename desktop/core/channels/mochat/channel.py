"""The Mochat channel: an agent account on a Mochat server, over Socket.IO (python-socketio).

Receiving. The channel connects to the server's Socket.IO endpoint with the claw token
(``auth: {"token": …}``), then subscribes to its sessions (``com.claw.im.subscribeSessions``
with the last cursor of each, so what arrived while it was away comes with the answer) and
panels (``com.claw.im.subscribePanels``). ``"*"`` in ``sessions`` or ``panels`` subscribes to
every one the account has (listed again every ``refreshIntervalMs``). A session seen for the
first time only takes its current cursor: its history is not answered.

Messages are handled one after the other in the order they arrived. Each is handed to the
agent with ``journal=True`` before the session's cursor is saved, so a message the server will
not send again is kept until the agent has saved it and handed over again after a restart.
Message keys (kind, target and Mochat message id) are remembered once handled, so one that
arrives twice (a replay after a reconnect, two notification events) is answered once.

A lost connection ends :meth:`MochatChannel.run` with an error: the channel manager
reconnects with its backoff and shows the status (python-socketio's own reconnection is off).

Panels follow nanobot's rules: the agent's own messages are ignored, ``groups`` / ``mention``
can require a mention, and ``replyDelayMode: "non-mention"`` collects messages without a
mention (:mod:`~desktop.core.channels.mochat.delay`).

Sending goes through the HTTP API (``/api/claw/sessions/send``, ``/api/claw/groups/panels/
send``), Markdown as it is (Mochat renders it), split under :data:`MAX_CHARS`. In panels an
answer replies to the message it answers. Mochat's API has no file upload: attachments are
listed by name (links as they are). Each piece is a piece of the answer's delivery
(:mod:`~desktop.core.channels.outbox`): a retry resumes at the piece that failed.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections import OrderedDict, deque
from pathlib import Path
from typing import Any, ClassVar

import aiohttp
import socketio  # type: ignore[import-untyped]  # no py.typed

from desktop.core.bus.events import OutboundMessage, RunEvent, TurnStarted
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, split_message
from desktop.core.channels.mochat import protocol
from desktop.core.channels.mochat.api import (
    GROUP_GET,
    PANEL_SEND,
    SESSION_LIST,
    SESSION_SEND,
    MochatApi,
    TokenRefused,
)
from desktop.core.channels.mochat.delay import KEYS_META, DelayBuffer
from desktop.core.channels.mochat.protocol import Incoming
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.config.channels.mochat import MochatConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import cancel_and_wait, finish

log = logging.getLogger(__name__)

MAX_CHARS = 4000  # per message; Mochat documents no limit, long walls are split like elsewhere
CALL_TIMEOUT_S = 10.0
SETTINGS = Phrase(QT_TR_NOOP("Settings → Channels → Mochat"))
SENT_MEMORY = 500
NOTIFY_EVENTS = ("notify:chat.message.add", "notify:chat.inbox.append")


def _ids(values: list[str]) -> tuple[set[str], bool]:
    cleaned = {str(v).strip() for v in values if str(v).strip()}
    return cleaned - {"*"}, "*" in cleaned


def _attachment_line(path: str) -> str:
    if path.startswith(("http://", "https://")):
        return path
    return f"[file: {Path(path).name}]"


class MochatChannel(BaseChannel[MochatConfig]):
    """A Mochat agent account (chat id: the session or panel id)."""

    name: ClassVar[str] = "mochat"
    display_name: ClassVar[str] = "Mochat"
    secret_fields: ClassVar[tuple[str, ...]] = ("claw_token",)

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._api: MochatApi | None = None
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._sessions, self._all_sessions = _ids(self.config.sessions)
        self._panels, self._all_panels = _ids(self.config.panels)
        self._converse: dict[str, str] = {}  # converse id → session id
        groups = self.state.get("groups", {})
        self._groups: dict[str, str] = dict(groups) if isinstance(groups, dict) else {}
        cursors = self.state.get("cursors", {})
        self._cursors: dict[str, int] = {
            str(k): v for k, v in (cursors if isinstance(cursors, dict) else {}).items()
            if isinstance(v, int) and not isinstance(v, bool) and v >= 0
        }  # fmt: skip
        self._sent: deque[str] = deque(maxlen=SENT_MEMORY)
        self._turns: OrderedDict[str, str] = OrderedDict()  # turn id → message key
        self._client: Any = None
        self.delayed = DelayBuffer(
            self.state,
            self.journal,
            max(0, self.config.reply_delay_ms) / 1000,
            self._hand_over,
            self.owner,
        )

    # -- settings --------------------------------------------------------------------------
    def _require_settings(self) -> None:
        if not (self.config.claw_token or "").strip():
            raise ChannelUnavailable(
                QT_TR_NOOP("No claw token is set."),
                Phrase(
                    QT_TR_NOOP(
                        "Register the agent on Mochat and enter its claw token in {settings}."
                    ),
                    settings=SETTINGS,
                ),
            )
        url = (self.config.base_url or "").strip()
        if not url.startswith(("http://", "https://")):
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("The Mochat server address {url} is not an http(s) URL."),
                    url=repr(url),
                ),
                SETTINGS,
            )
        if not (self._sessions or self._all_sessions or self._panels or self._all_panels):
            raise ChannelUnavailable(
                QT_TR_NOOP("No sessions or panels to answer in."),
                Phrase(
                    QT_TR_NOOP('{settings}: add session or panel ids, or "*" for all of them.'),
                    settings=SETTINGS,
                ),
            )

    def _http(self) -> MochatApi:
        if self._api is None:
            self._api = MochatApi(self.config.base_url, self.config.claw_token.strip())
        return self._api

    @staticmethod
    def _refused() -> ChannelUnavailable:
        return ChannelUnavailable(
            QT_TR_NOOP("Mochat did not accept the claw token."),
            Phrase(QT_TR_NOOP("{settings}: check the claw token."), settings=SETTINGS),
        )

    async def check(self) -> str:
        """Settings → "Test": list the account's sessions with these settings."""
        self._require_settings()
        api = MochatApi(self.config.base_url, self.config.claw_token.strip())
        try:
            found = await api.post(SESSION_LIST, {})
        except TokenRefused:
            raise ValueError(self._refused().reason) from None
        finally:
            await api.close()
        sessions = found.get("sessions")
        count = len(sessions) if isinstance(sessions, list) else 0
        agent = (self.config.agent_user_id or "").strip()
        if agent:
            return Phrase(
                QT_TR_NOOP("Connected to {server} as {agent} ({count} sessions)"),
                server=api.base_url,
                agent=agent,
                count=count,
            )
        return Phrase(
            QT_TR_NOOP("Connected to {server} ({count} sessions)"), server=api.base_url, count=count
        )

    # -- connection ------------------------------------------------------------------------
    def _new_client(self) -> Any:
        msgpack = not self.config.socket_disable_msgpack and bool(
            importlib.util.find_spec("msgpack")
        )
        client = socketio.AsyncClient(
            reconnection=False,  # the manager reconnects, with its backoff and status
            logger=False,
            engineio_logger=False,
            serializer="msgpack" if msgpack else "default",
        )
        queue = self._queue

        # Handlers only queue (in arrival order); run() handles one after the other.
        async def on_disconnect(*_: Any) -> None:
            queue.put_nowait(("lost", None))

        async def on_connect_error(data: Any = None) -> None:
            queue.put_nowait(("refused", data))

        def queue_as(kind: str) -> Any:
            async def handler(data: Any = None, *_: Any) -> None:
                queue.put_nowait((kind, data))

            return handler

        client.on("disconnect", on_disconnect)
        client.on("connect_error", on_connect_error)
        client.on("claw.session.events", queue_as("session"))
        client.on("claw.panel.events", queue_as("panel"))
        for event in NOTIFY_EVENTS:
            client.on(event, queue_as(event))
        return client

    async def run(self) -> None:
        """Connect, subscribe, then handle messages until stopped (a lost connection raises)."""
        self._require_settings()
        self._queue = asyncio.Queue()
        client = self._new_client()
        refresh: asyncio.Task[None] | None = None
        try:
            await self._discover(subscribe=None)
            await self._connect(client)
            self._client = client
            await self._subscribe(client, sorted(self._sessions), sorted(self._panels))
            self.set_status(ChannelStatus("connected", account=self.config.agent_user_id))
            log.info("mochat: connected to %s", self._http().base_url)
            await self.replay_journal()
            self.delayed.start()
            refresh = asyncio.create_task(self._refresh(client), name="mochat:refresh")
            await self._receive()
        finally:
            self._client = None
            # To the end even when cancelled meanwhile: the manager cancels run() right after
            # stop() asked it to end, and a websocket left half-closed kept the server waiting
            # for the engine.io ping timeout (~45 s) before it let the connection go.
            await finish(self._hang_up(client, refresh))

    @staticmethod
    async def _hang_up(client: Any, refresh: asyncio.Task[None] | None) -> None:
        """End the refresh task, then close the Socket.IO connection."""
        if refresh is not None:
            await cancel_and_wait(refresh)
        try:
            await client.disconnect()
        except Exception as exc:  # noqa: BLE001 - the connection is gone either way
            log.debug("mochat: disconnecting failed: %s", redact(exc))

    async def _connect(self, client: Any) -> None:
        url = (self.config.socket_url or self.config.base_url).strip().rstrip("/")
        path = (self.config.socket_path or "/socket.io").strip().strip("/") or "socket.io"
        try:
            await client.connect(
                url,
                transports=["websocket"],
                socketio_path=path,
                auth={"token": self.config.claw_token.strip()},
                wait_timeout=max(1.0, self.config.socket_connect_timeout_ms / 1000),
            )
        except socketio.exceptions.ConnectionError as exc:
            refusal = [d for kind, d in self._drain() if kind == "refused"]
            why = " ".join(redact(d.get("message", d) if isinstance(d, dict) else d)
                           for d in refusal if d)  # fmt: skip
            if refusal and any(w in why.lower() for w in ("token", "auth", "unauthor", "forbid")):
                raise self._refused() from None
            raise ConnectionError(
                f"could not connect to Mochat at {url} ({why or redact(exc)})"
            ) from None

    def _drain(self) -> list[tuple[str, Any]]:
        items = []
        while not self._queue.empty():
            items.append(self._queue.get_nowait())
        return items

    async def _call(self, client: Any, event: str, data: dict[str, Any]) -> Any:
        try:
            answer = await client.call(event, data, timeout=CALL_TIMEOUT_S)
        except socketio.exceptions.TimeoutError:
            raise ConnectionError(f"Mochat did not answer {event}") from None
        if isinstance(answer, dict) and not answer.get("result", True):
            message = redact(answer.get("message") or "refused")
            raise ConnectionError(f"Mochat refused {event}: {message}")
        return answer.get("data") if isinstance(answer, dict) else answer

    async def _subscribe(self, client: Any, sessions: list[str], panels: list[str]) -> None:
        """Subscribe; the events the server sends back with the answer are handled first."""
        if sessions:
            cold = {s for s in sessions if s not in self._cursors}
            data = await self._call(
                client,
                "com.claw.im.subscribeSessions",
                {
                    "sessionIds": sessions,
                    "cursors": {s: c for s, c in self._cursors.items() if s in sessions},
                    "limit": self.config.watch_limit,
                },
            )
            if isinstance(data, dict):
                items = data.get("sessions") if "sessions" in data else [data]
            else:
                items = data
            for item in items if isinstance(items, list) else ():
                await self._safely(self._on_batch, "session", item, cold)
        if panels or self._all_panels:
            await self._call(client, "com.claw.im.subscribePanels", {"panelIds": panels})

    async def _discover(self, subscribe: Any) -> None:  # noqa: C901  # sessions and panels listed and subscribed, each guarded
        """With ``"*"``: list the account's sessions and panels (subscribe new ones when
        ``subscribe`` is the connected client)."""
        api = self._http()
        new_sessions: list[str] = []
        new_panels: list[str] = []
        try:
            if self._all_sessions:
                listed = (await api.post(SESSION_LIST, {})).get("sessions")
                for item in listed if isinstance(listed, list) else ():
                    session = protocol.text_field(item, "sessionId")
                    converse = protocol.text_field(item, "converseId")
                    if session and converse:
                        self._converse[converse] = session
                    if session and session not in self._sessions:
                        self._sessions.add(session)
                        new_sessions.append(session)
            if self._all_panels:
                group = await api.post(GROUP_GET, {})
                listed = group.get("panels")
                for item in listed if isinstance(listed, list) else ():
                    kind = item.get("type") if isinstance(item, dict) else None
                    panel = protocol.text_field(item, "id", "_id")
                    text_panel = not isinstance(kind, int) or kind == 0
                    if panel and text_panel and panel not in self._panels:
                        self._panels.add(panel)
                        new_panels.append(panel)
        except TokenRefused:
            raise self._refused() from None
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ConnectionError(f"listing sessions and panels failed: {redact(exc)}") from None
        if subscribe is not None and (new_sessions or new_panels):
            await self._subscribe(subscribe, new_sessions, new_panels)

    async def _refresh(self, client: Any) -> None:
        if not (self._all_sessions or self._all_panels):
            return
        every = max(1.0, self.config.refresh_interval_ms / 1000)
        while True:
            await asyncio.sleep(every)
            try:
                await self._discover(subscribe=client)
            except ChannelUnavailable as exc:
                self._queue.put_nowait(("unavailable", exc))
                return
            except Exception as exc:  # noqa: BLE001 - the next round tries again
                log.warning("mochat: refreshing sessions and panels failed: %s", redact(exc))

    async def stop(self) -> None:
        """Stop receiving; end the timers; close the connections."""
        self._queue.put_nowait(("stop", None))
        await super().stop()
        if self._api is not None:
            await self._api.close()

    # -- receiving -------------------------------------------------------------------------
    async def _receive(self) -> None:
        while not self.stopping:
            kind, data = await self._queue.get()
            if kind == "stop":
                return
            if kind == "lost":
                raise ConnectionError("the connection to Mochat was lost")
            if kind == "unavailable":
                raise data
            if kind == "session" or kind == "panel":
                await self._safely(self._on_batch, kind, data, set())
            elif kind == "notify:chat.message.add":
                await self._safely(self._on_panel_notice, data)
            elif kind == "notify:chat.inbox.append":
                await self._safely(self._on_inbox_notice, data)

    async def _safely(self, handler: Any, *args: Any) -> None:
        """Run an event handler; a malformed event is logged and skipped."""
        try:
            await handler(*args)
        except (ConnectionError, ChannelUnavailable, asyncio.CancelledError):
            raise
        except Exception:
            log.exception("mochat: skipping an event that could not be handled")

    async def _on_batch(self, kind: protocol.Kind, data: Any, cold: set[str]) -> None:
        batch = protocol.watch_batch(kind, data, self.config.agent_user_id)
        if batch is None:
            log.warning("mochat: skipping a malformed %s event", kind)
            return
        if batch.skipped:
            log.warning("mochat: skipped %d malformed event(s) in %s", batch.skipped, batch.target)
        if kind == "session" and batch.target in cold:
            log.info("mochat: new session %s; its history is not answered", batch.target)
        else:
            for message in batch.messages:
                await self._on_message(message)
        cursor, target = batch.cursor, batch.target
        if kind == "session" and cursor is not None and cursor > self._cursors.get(target, -1):
            self._cursors[target] = cursor
            await asyncio.to_thread(self.state.update, cursors=dict(self._cursors))

    async def _on_panel_notice(self, data: Any) -> None:
        message = protocol.panel_notice(data, self.config.agent_user_id)
        if message is not None:
            await self._on_message(message)

    async def _on_inbox_notice(self, data: Any) -> None:
        converse = protocol.inbox_converse(data)
        if not converse:
            return
        if converse not in self._converse and self._all_sessions:
            await self._discover(subscribe=self._client)
        session = self._converse.get(converse)
        message = protocol.inbox_notice(data, self.config.agent_user_id, session or "")
        if message is not None:
            await self._on_message(message)

    def _wanted(self, message: Incoming) -> bool:
        if message.author == self.config.agent_user_id or message.message_id in self._sent:
            return False  # the agent's own message
        if message.kind == "session":
            return message.target in self._sessions or self._all_sessions
        return message.target in self._panels or self._all_panels

    async def _on_message(self, message: Incoming) -> None:
        key = message.key
        if not self._wanted(message) or self.state.seen(key) or key in self.delayed:
            return
        if not await admit(self, message.author, message.target, direct=False):  # as 0.3.5
            log.info("mochat: message from %s ignored (not in allowFrom)", message.author)
            await asyncio.to_thread(self.state.update, seen=[key])
            return
        if message.kind == "session":
            await self._hand_over(message.target, [message])
            return
        if message.group_id and self._groups.get(message.target) != message.group_id:
            self._groups[message.target] = message.group_id
            await asyncio.to_thread(self.state.update, groups=dict(self._groups))
        if self.approvals.pending(message.target):
            await self._hand_over(message.target, [message])  # may answer the question
            return
        required = bool(message.group_id) and self.config.mention_rule(
            message.group_id, message.target
        )
        if self.config.reply_delay_mode == "non-mention":
            if message.mentioned:
                await self.delayed.hand_over(message.target, message)
            else:
                await self.delayed.add(message)
        elif message.mentioned or not required:
            await self._hand_over(message.target, [message])
        else:
            await asyncio.to_thread(self.state.update, seen=[key])

    async def _hand_over(self, target: str, messages: list[Incoming]) -> None:
        """Publish one or more messages of ``target`` as one (journaled until saved)."""
        last = messages[-1]
        keys = [m.key for m in messages]
        text = (
            protocol.combined_text(messages)
            if last.group_id
            else "\n".join(m.text for m in messages if m.text)
        )
        metadata = {
            "message_id": last.message_id,
            "target_kind": last.kind,
            "group_id": last.group_id,
            "is_group": bool(last.group_id),
            "sender_name": last.sender_name,
            "was_mentioned": any(m.mentioned for m in messages),
            "buffered_count": len(messages),
            KEYS_META: keys,
        }
        if last.timestamp:
            metadata["timestamp"] = last.timestamp
        await self.publish(
            last.author,
            target,
            text or "[empty message]",
            metadata=metadata,
            message_id=last.key,
            journal=True,
            seen=keys,
        )

    # -- sending ---------------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """Remember which message a turn answers (panel answers reply to it)."""
        if isinstance(event, TurnStarted) and event.request_id:
            self._turns[event.turn_id] = event.request_id
            while len(self._turns) > SENT_MEMORY:
                self._turns.popitem(last=False)

    def _reply_to(self, message: OutboundMessage, target: protocol.Target) -> str | None:
        if message.reply_to:
            return str(message.reply_to)
        meta = message.metadata
        if target.kind != "panel" or meta.get("progress") or meta.get("reminder"):
            return None
        request = str(meta.get("request_id") or self._turns.get(str(meta.get("turn_id")), ""))
        prefix = f"panel:{target.id}:"
        return request[len(prefix) :] if request.startswith(prefix) else None

    def _target(self, message: OutboundMessage) -> protocol.Target:
        target = protocol.resolve_target(message.chat_id)
        if not target.id:
            raise ValueError(f"{message.chat_id!r} is not a Mochat session or panel")
        if target.kind == "panel" and target.id in self._sessions:
            target = protocol.Target(target.id, "session")
        return target

    async def pieces(self, message: OutboundMessage) -> list[str]:
        """The text with a line per attachment, split when long."""
        self._target(message)
        lines = [message.content.strip()] if message.content.strip() else []
        lines.extend(_attachment_line(m) for m in message.media if m.strip())
        text = "\n".join(lines)
        return split_message(text, MAX_CHARS) if text else []

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """Post one piece into its session or panel; the first replies to the message it
        answers (Mochat has no idempotency key: a piece in doubt is sent again)."""
        message = delivery.message
        target = self._target(message)
        body: dict[str, Any] = {"content": piece}
        if target.kind == "session":
            body["sessionId"] = target.id
        else:
            body["panelId"] = target.id
            group = message.metadata.get("group_id") or self._groups.get(target.id)
            if group:
                body["groupId"] = group
        reply_to = self._reply_to(message, target) if index == 0 else None
        if reply_to:
            body["replyTo"] = reply_to
        try:
            answer = await self._http().post(
                SESSION_SEND if target.kind == "session" else PANEL_SEND, body
            )
        except TokenRefused:
            raise self._refused() from None
        sent = protocol.text_field(answer, "messageId", "_id")
        if sent:
            self._sent.append(sent)
