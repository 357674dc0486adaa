"""The NapCat channel: QQ through a NapCat server, spoken to in OneBot v11.

NapCat runs a QQ account (logged in by QR code in its own web UI) and offers it as a OneBot
v11 WebSocket server. This channel is that server's client, as nanobot 0.3.5 is: one
WebSocket to ``wsUrl`` with ``Authorization: Bearer <accessToken>``; actions go as
``{"action", "params", "echo"}`` and are answered by a frame with the same ``echo``
(``status``/``retcode``/``data``); events arrive with a ``post_type``: ``message`` (private or
group, the message as segments: ``text``, ``image``, ``at``, ``reply``, ``face``), ``notice``
(``group_increase``: someone joined) and ``meta_event`` (``heartbeat``, ``lifecycle``).

Ids are nanobot's: a private chat is ``private:<user id>``, a group ``group:<group id>`` (so
the session is ``napcat:private:<user id>``), the sender the QQ number. In groups a message is
answered when it mentions the account (an ``at`` segment) or replies to one of its messages;
otherwise ``groupPolicy`` (or the group's entry in ``groupPolicyOverrides``) decides. Group
messages reach the agent as ``<nickname>: <text>``.

Receiving. NapCat pushes each event once, so every message is kept in the channel's journal
until the agent has saved it (a message received before a restart is answered after it; one
NapCat repeats is recognised by its ``message_id``). Images are downloaded (at most
``maxImageBytes``, from NapCat's own host or a public address) into the media folder.

Sending. QQ shows plain text: Markdown is flattened, split under :data:`LIMIT` characters,
and sent with ``send_private_msg`` / ``send_group_msg``; files go first, as ``image``
segments (other files as ``file`` segments), read into ``base64://`` so NapCat may run on
another machine. QQ bots have no buttons here: approvals are answered by reply word.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
from collections import deque
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import aiohttp
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable
from desktop.core.channels.napcat import segments
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.config.channels.napcat import NapcatConfig
from desktop.core.security.network import BlockedAddressError, resolve_public
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact, register_secret
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

LIMIT = 4000
"""Characters per QQ message (QQ refuses much longer texts)."""
TOKEN_HINT = QT_TR_NOOP(
    "Set Access token (Settings → Channels → NapCat) to the token of NapCat's WebSocket server."
)


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class ActionFailed(RuntimeError):
    """NapCat answered an action with a failure."""


class NapcatChannel(BaseChannel[NapcatConfig]):
    """QQ through NapCat's OneBot v11 WebSocket server (see the module docstring)."""

    name: ClassVar[str] = "napcat"
    display_name: ClassVar[str] = "NapCat (QQ)"
    action_timeout: ClassVar[float] = 20.0

    secret_fields: ClassVar[tuple[str, ...]] = ("access_token",)

    def setup(self) -> None:
        """The connection's state (its tasks have their own owner, one per connection: a
        lost connection takes its receiver and waiting actions with it)."""
        self._owner = TaskOwner("napcat")
        self._ws: ClientConnection | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._sends: set[str] = set()  # echoes of pending send actions
        self._echoes = itertools.count(1)
        self._self_id = ""
        self._own_messages: deque[str] = deque(maxlen=2000)

    # -- connection -----------------------------------------------------------------------
    async def _open(self) -> ClientConnection:
        url = (self.config.ws_url or "").strip()
        if not url.startswith(("ws://", "wss://")):
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("The NapCat address {url} is not a ws:// address."),
                    url=repr(redact(url)),
                ),
                QT_TR_NOOP(
                    "Set NapCat address to NapCat's WebSocket server, e.g. ws://127.0.0.1:3001."
                ),
            )
        token = (self.config.access_token or "").strip()
        register_secret(token or None)
        headers = [("Authorization", f"Bearer {token}")] if token else []
        try:
            return await connect(
                url, additional_headers=headers, proxy=None, open_timeout=10, max_size=None
            )
        except InvalidURI:
            raise ChannelUnavailable(
                QT_TR_NOOP("The NapCat address is not a valid WebSocket address."),
                QT_TR_NOOP(
                    "Set NapCat address to NapCat's WebSocket server, e.g. ws://127.0.0.1:3001."
                ),
            ) from None
        except InvalidStatus as exc:
            if exc.response.status_code in (401, 403):
                raise ChannelUnavailable(
                    QT_TR_NOOP("NapCat refused the access token."), TOKEN_HINT
                ) from None
            raise ConnectionError(
                f"NapCat did not accept the connection (HTTP {exc.response.status_code})"
            ) from None
        except InvalidHandshake as exc:
            raise ConnectionError(f"NapCat did not accept the connection ({redact(exc)})") from None

    async def _login(self, ws: ClientConnection) -> str:
        """Ask who the account is (``get_login_info``) while events already arrive."""
        self._ws = ws
        receiving = self._owner.spawn(self._receive(ws), name="napcat:receive")
        try:
            info = await self._action("get_login_info", {})
        except BaseException:
            receiving.cancel()
            with contextlib.suppress(BaseException):
                await receiving
            raise
        data = _object(info.get("data"))
        self._self_id = str(data.get("user_id", "") or self._self_id)
        nickname = str(data.get("nickname", "") or "")
        return f"{nickname} ({self._self_id})" if nickname else self._self_id

    async def run(self) -> None:
        """Connect, learn the account, then receive until stopped (a lost connection raises)."""
        ws = await self._open()
        try:
            account = await self._login(ws)
            self.set_status(ChannelStatus("connected", account=account))
            await self.replay_journal()
            await ws.wait_closed()
            if not self.stopping:
                raise ConnectionError("NapCat closed the connection")
        finally:
            self._ws = None
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("The NapCat connection was lost"))
            self._pending.clear()
            self._sends.clear()
            await ws.close()
            await self._owner.aclose()
            self._owner = TaskOwner("napcat")

    async def stop(self) -> None:
        """Stop receiving and close the connection."""
        await super().stop()
        ws = self._ws
        if ws is not None:
            await ws.close()

    async def check(self) -> str:
        """Settings → "Test": connect with these settings and ask who the account is."""
        try:
            ws = await self._open()
        except ChannelUnavailable as exc:
            raise ValueError(exc.with_hint()) from None
        try:
            account = await self._login(ws)
        finally:
            self._ws = None
            await ws.close()
            await self._owner.aclose()
            self._owner = TaskOwner("napcat")
        return Phrase(QT_TR_NOOP("Connected to NapCat as {account}"), account=account)

    # -- frames ---------------------------------------------------------------------------
    async def _receive(self, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                try:
                    frame = json.loads(raw)
                except ValueError:
                    log.warning("NapCat: skipping a frame that is not JSON")
                    continue
                if not isinstance(frame, dict):
                    continue
                try:
                    await self._frame(frame)
                except Exception:
                    log.exception("NapCat: handling an event failed; skipped")

    async def _frame(self, frame: dict[str, Any]) -> None:
        post_type = frame.get("post_type")
        if post_type is None and "echo" in frame:
            echo = str(frame.get("echo"))
            future = self._pending.pop(echo, None)
            if echo in self._sends:
                # Noted here, in frame order: a reply to this message may be the next frame,
                # read before the sender's task runs again.
                self._sends.discard(echo)
                data = _object(frame.get("data"))
                if frame.get("status") == "ok" and data.get("message_id") is not None:
                    self._own_messages.append(str(data["message_id"]))
            if future is not None and not future.done():
                future.set_result(frame)
            return
        if frame.get("self_id") is not None:
            self._self_id = str(frame["self_id"])
        if post_type == "message":
            await self._on_message(frame)
        elif post_type == "notice" and frame.get("notice_type") == "group_increase":
            if self.config.welcome_new_members:
                self._owner.try_spawn(self._welcome(frame), name="napcat:welcome")
        elif post_type == "meta_event":
            log.debug("NapCat: %s", frame.get("meta_event_type"))

    async def _action(self, action: str, params: dict[str, Any]) -> dict[str, Any]:
        """One action; NapCat's answer (raises :class:`ActionFailed` when it failed)."""
        ws = self._ws
        if ws is None:
            raise ConnectionError("NapCat is not connected")
        echo = f"nd-{next(self._echoes)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[echo] = future
        if action.startswith("send_"):
            self._sends.add(echo)
        try:
            frame = {"action": action, "params": params, "echo": echo}
            try:
                await ws.send(json.dumps(frame, ensure_ascii=False))
            except ConnectionClosed:
                raise ConnectionError("The NapCat connection was lost") from None
            try:
                async with asyncio.timeout(self.action_timeout):
                    answer = await future
            except TimeoutError:
                raise TimeoutError(f"NapCat did not answer {action}") from None
        finally:
            self._pending.pop(echo, None)
            self._sends.discard(echo)
        status, retcode = answer.get("status"), answer.get("retcode")
        if (status and status != "ok") or retcode not in (None, 0):
            detail = answer.get("wording") or answer.get("message") or f"retcode {retcode}"
            raise ActionFailed(f"NapCat could not {action}: {redact(detail)}")
        return answer

    # -- receiving ------------------------------------------------------------------------
    def _group_answers(self, group_id: str, message: segments.Parsed) -> bool:
        if message.mentions(self._self_id) or (
            message.reply_to and message.reply_to in self._own_messages
        ):
            return True
        policy = self.config.group_policy_overrides.get(group_id, self.config.group_policy)
        if policy in ("open", "mention"):
            return bool(policy == "open")
        return random.random() < float(policy)

    async def _on_message(self, event: dict[str, Any]) -> None:
        kind, user_id = event.get("message_type"), event.get("user_id")
        if kind not in ("private", "group") or user_id is None:
            return
        message_id = str(event.get("message_id", "") or "")
        key = f"msg:{message_id}" if message_id else ""
        if key and self.state.seen(key):
            log.info("NapCat: message %s was handled before; skipped", message_id)
            return
        parsed = segments.parse(event.get("message"), self._self_id)
        sender = _object(event.get("sender"))
        nickname = str(sender.get("card") or sender.get("nickname") or "")
        if kind == "group":
            group_id = str(event.get("group_id", "") or "")
            if not group_id or not self._group_answers(group_id, parsed):
                return
            chat_id = f"group:{group_id}"
            content = f"{nickname or user_id}: {parsed.text}"
        else:
            chat_id, content = f"private:{user_id}", parsed.text
        # Paired senders are let in; a stranger gets no pairing code, private chat or not
        # (nanobot 0.3.5 never offers one on NapCat: the account is a person's QQ).
        if not await admit(self, str(user_id), chat_id, direct=False):
            log.info("napcat: message from %s ignored (not in allowFrom)", user_id)
            return
        saved = [await self._download(image) for image in parsed.images]
        media = [path for path in saved if path]
        if not parsed.text and not media:
            return
        lines = [content] if parsed.text else []
        lines += [f"[image: {path}]" for path in media]
        await self.publish(
            str(user_id),
            chat_id,
            "\n".join(lines),
            media=media,
            metadata={
                "message_id": event.get("message_id"),
                "is_group": kind == "group",
                "nickname": nickname or None,
                "reply_to": parsed.reply_to or None,
            },
            message_id=f"napcat:{message_id}" if message_id else None,
            journal=True,  # NapCat keeps nothing: the journal keeps it until it is saved
            seen=[key] if key else [],
        )

    async def _may_fetch(self, url: str) -> bool:
        """Whether an image link may be fetched: from NapCat's own host, or a public address
        (a link to another private or local address is not followed)."""
        target = urlsplit(url)
        host = target.hostname or ""
        if host and host == urlsplit(self.config.ws_url or "").hostname:
            return True
        try:
            await resolve_public(host, target.port or (443 if target.scheme == "https" else 80))
        except (BlockedAddressError, OSError, ValueError) as exc:
            log.warning("NapCat: an image link was not followed: %s", redact(exc))
            return False
        return True

    async def _download(self, image: segments.Image) -> str | None:
        """Save a received image into the media folder (at most ``maxImageBytes``)."""
        limit = self.config.max_image_bytes
        if not await self._may_fetch(image.url):
            return None
        if image.size is not None and image.size > limit:
            log.warning("NapCat: an image of %s bytes is over maxImageBytes; skipped", image.size)
            return None
        data = bytearray()
        try:
            timeout = aiohttp.ClientTimeout(total=60)
            async with (
                aiohttp.ClientSession(timeout=timeout) as http,
                http.get(image.url, allow_redirects=False) as response,
            ):
                if response.status != 200:
                    log.warning("NapCat: an image download answered HTTP %s", response.status)
                    return None
                async for chunk in response.content.iter_chunked(64 * 1024):
                    data.extend(chunk)
                    if len(data) > limit:
                        log.warning("NapCat: an image is over maxImageBytes; skipped")
                        return None
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("NapCat: an image download failed: %s", redact(exc))
            return None
        path = self.media_dir / f"napcat_{image.name}"
        await asyncio.to_thread(self._write, path, bytes(data))
        return str(path)

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    async def _welcome(self, event: dict[str, Any]) -> None:
        group_id, user_id = event.get("group_id"), event.get("user_id")
        if group_id is None or user_id is None:
            return
        name = str(user_id)
        with contextlib.suppress(ActionFailed, ConnectionError, TimeoutError, ValueError):
            info = await self._action(
                "get_group_member_info",
                {"group_id": int(group_id), "user_id": int(user_id), "no_cache": True},
            )
            data = _object(info.get("data"))
            name = str(data.get("card") or data.get("nickname") or user_id)
        await self.publish(
            str(user_id),
            f"group:{group_id}",
            f"[group event] new member {name} joined group {group_id}",
            metadata={"is_group": True, "event": "group_increase"},
        )

    # -- sending --------------------------------------------------------------------------
    async def pieces(self, message: OutboundMessage) -> list[dict[str, Any]]:
        """The send actions that deliver ``message``: files first, then text pieces."""
        kind, _, target = message.chat_id.partition(":")
        if kind not in ("private", "group") or not target.isdigit():
            raise ChannelUnavailable(
                Phrase(QT_TR_NOOP("{chat} is not a NapCat chat id."), chat=repr(message.chat_id))
            )
        action = "send_private_msg" if kind == "private" else "send_group_msg"
        where = {"user_id": int(target)} if kind == "private" else {"group_id": int(target)}
        steps: list[dict[str, Any]] = []
        files = await asyncio.to_thread(segments.files, message.media)
        if files:
            steps.append({"action": action, "params": {**where, "message": files}})
        for text in segments.texts(message.content, LIMIT):
            message_segments = [{"type": "text", "data": {"text": text}}]
            steps.append({"action": action, "params": {**where, "message": message_segments}})
        return steps

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One send action, confirmed by NapCat (OneBot has no idempotency key: a piece whose
        answer was lost with the connection is sent again)."""
        await self._action(piece["action"], piece["params"])
