"""A local Telegram Bot API server for tests (aiohttp, loopback only).

It speaks the documented HTTP interface (``/bot<token>/<method>``, form, multipart or JSON
parameters; ``{"ok": …, "result": …}`` answers; ``/file/bot<token>/<path>`` downloads) for the
methods the channel uses, keeps Telegram's ``getUpdates`` semantics (long polling; an update
is confirmed once a ``getUpdates`` asks with a higher offset; without an offset the
unconfirmed ones come again; a second concurrent poll ends the first with 409), checks HTML
messages the way Telegram does (only its tags and entities, properly nested, at most 4,096
characters of text) and records every call. Tests put updates in with :meth:`put_message`,
:meth:`put_callback` and :meth:`put_update`; :meth:`stop` and :meth:`start` make the server
disappear and return on the same port with its state kept; :meth:`hold` carries out a call
but keeps its answer back (a slow link: the message exists before the bot hears so).

Also served, for voice messages: a Groq-style ``POST /openai/v1/audio/transcriptions``.
(The HTTP forward proxy of the proxy tests is in ``forward_proxy.py``.)
"""

from __future__ import annotations

import asyncio
import html
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

TOKEN = "123456:TEST-token-for-the-local-bot-api"
BOT_ID = 777000
BOT_USERNAME = "test_bot"
MESSAGE_LIMIT = 4096

# Parameters whose form values are JSON (everything else is a plain string).
_JSON_PARAMS = {
    "chat_id",
    "message_id",
    "offset",
    "limit",
    "timeout",
    "allowed_updates",
    "reply_markup",
    "reply_parameters",
    "reply_to_message_id",
    "reaction",
    "commands",
    "drop_pending_updates",
    "show_alert",
    "message_thread_id",
    "disable_notification",
    "link_preview_options",
    "is_big",
}
_ALLOWED_TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a",
    "code", "pre", "blockquote", "tg-emoji",
}  # fmt: skip
_TAG = re.compile(r'<(/?)([A-Za-z][A-Za-z0-9-]*)((?:\s+[A-Za-z-]+(?:\s*=\s*"[^"<>]*")?)*)\s*>')
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});")


class HtmlError(ValueError):
    """Telegram would answer "Bad Request: can't parse entities"."""


def telegram_text(text: str) -> str:
    """The text Telegram shows for an HTML message (raises :class:`HtmlError` like Telegram)."""
    out: list[str] = []
    stack: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "<":
            match = _TAG.match(text, index)
            if match is None:
                raise HtmlError(f"can't parse entities: unsupported start tag at offset {index}")
            closing, name = match.group(1) == "/", match.group(2).lower()
            if name not in _ALLOWED_TAGS:
                raise HtmlError(f'can\'t parse entities: unsupported start tag "{name}"')
            if closing:
                if not stack or stack[-1] != name:
                    raise HtmlError(f'can\'t parse entities: unmatched end tag "{name}"')
                stack.pop()
            else:
                if stack and stack[-1] == "code":
                    raise HtmlError("can't parse entities: tags inside <code>")
                if "pre" in stack and name != "code":
                    raise HtmlError("can't parse entities: tags inside <pre>")
                if name == "a" and "href=" not in match.group(3):
                    raise HtmlError("can't parse entities: <a> without href")
                stack.append(name)
            index = match.end()
        elif char == "&":
            match = _ENTITY.match(text, index)
            if match is None:
                raise HtmlError(f"can't parse entities: unsupported entity at offset {index}")
            out.append(html.unescape(match.group()))
            index = match.end()
        elif char == ">":
            raise HtmlError(f"can't parse entities: a bare '>' at offset {index}")
        else:
            out.append(char)
            index += 1
    if stack:
        raise HtmlError(f"can't parse entities: can't find end tag for \"{stack[-1]}\"")
    return "".join(out)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (Telegram's count)."""
    return len(text.encode("utf-16-le")) // 2


@dataclass
class Call:
    """One Bot API call as received."""

    method: str
    params: dict[str, Any]
    at: float
    files: dict[str, bytes] = field(default_factory=dict)
    status: int = 200


class ApiError(Exception):
    """An error answer (status, description, extra parameters)."""

    def __init__(self, status: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


class BotApiServer:
    """The fake Bot API (see the module docstring).

    Args:
        token: The bot token it accepts.
        transcript: What the transcription endpoint answers.
        groq_key: The key it expects there (``None``: any).
    """

    def __init__(
        self, token: str = TOKEN, *, transcript: str = "", groq_key: str | None = None
    ) -> None:
        self.token = token
        self.transcript = transcript
        self.groq_key = groq_key
        self.port = 0
        self.calls: list[Call] = []
        self.transcriptions: list[dict[str, Any]] = []
        self.put_at: dict[int, float] = {}
        self.files: dict[str, tuple[bytes, str, str]] = {}  # file_id → (data, unique, path)
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}  # the bot's messages
        self.failures: list[tuple[str, int, str, Callable[[dict[str, Any]], bool] | None]] = []
        self.on_call: Callable[[Call], None] | None = None
        self.holds: list[tuple[str, Callable[[dict[str, Any]], bool] | None, asyncio.Event]] = []
        self._updates: list[dict[str, Any]] = []
        self._confirmed_below = 0
        self._update_ids = itertools.count(40_001)
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._file_ids = itertools.count(1)
        self._changed = asyncio.Event()
        self._poll_generation = 0
        self._runner: web.AppRunner | None = None

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """What ``channels.telegram.baseUrl`` should be."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        """Whether it serves right now."""
        return self._runner is not None

    async def start(self) -> BotApiServer:
        """Serve (on the same port as before, after a :meth:`stop`)."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._file)
        app.router.add_post("/openai/v1/audio/transcriptions", self._transcribe)
        runner = web.AppRunner(app, shutdown_timeout=0.2, handler_cancellation=True)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", self.port, reuse_address=True)
        await site.start()
        self.port = runner.addresses[0][1]
        self._runner = runner
        return self

    async def stop(self) -> None:
        """Disappear: stop listening and drop every open connection (state is kept)."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    # -- what tests put in ----------------------------------------------------------------
    def next_message_id(self, chat_id: int) -> int:
        """The next message id in a chat (shared by people and the bot, as in Telegram)."""
        return next(self._message_ids.setdefault(chat_id, itertools.count(1)))

    def put_update(self, update: dict[str, Any]) -> dict[str, Any]:
        """Queue an update as is (an ``update_id`` is added when missing)."""
        if "update_id" not in update:
            update = {"update_id": next(self._update_ids), **update}
        self._updates.append(update)
        if isinstance(update.get("update_id"), int):
            self.put_at[update["update_id"]] = time.perf_counter()
        self._changed.set()
        return update

    def put_raw(self, payload: Any) -> None:
        """Queue anything at all as an update (malformed data)."""
        self._updates.append(payload)
        self._changed.set()

    @staticmethod
    def user(user_id: int, username: str | None = None, first_name: str = "Ada") -> dict[str, Any]:
        """A user object."""
        data: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
        if username:
            data["username"] = username
        return data

    def put_message(
        self,
        chat_id: int,
        text: str | None = None,
        *,
        user_id: int | None = None,
        username: str | None = "ada",
        chat_type: str = "private",
        **fields: Any,
    ) -> dict[str, Any]:
        """Queue a message from a person (``fields``: ``photo``, ``voice``, ``caption`` …)."""
        message: dict[str, Any] = {
            "message_id": self.next_message_id(chat_id),
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": chat_type}
            | ({"title": "A group"} if chat_type != "private" else {"first_name": "Ada"}),
            "from": self.user(user_id if user_id is not None else abs(chat_id), username),
        }
        if text is not None:
            message["text"] = text
        message.update(fields)
        return self.put_update({"message": message})

    def put_callback(
        self, message: dict[str, Any], data: str, *, user_id: int, username: str | None = "ada"
    ) -> dict[str, Any]:
        """Queue a tap on a button of ``message`` (one of the bot's)."""
        query = {
            "id": f"cq{next(self._file_ids)}",
            "from": self.user(user_id, username),
            "chat_instance": "ci-1",
            "message": message,
            "data": data,
        }
        return self.put_update({"callback_query": query})

    def add_file(self, data: bytes, path: str = "photos/file.jpg") -> dict[str, Any]:
        """Store a file; returns what a message carries (``file_id``, ``file_unique_id`` …)."""
        number = next(self._file_ids)
        file_id, unique = f"FILE{number}", f"U{number}"
        self.files[file_id] = (data, unique, path)
        return {"file_id": file_id, "file_unique_id": unique, "file_size": len(data)}

    def fail(
        self,
        method: str,
        status: int = 500,
        description: str = "Internal Server Error",
        when: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        """The next call of ``method`` (matching ``when``) gets an error answer."""
        self.failures.append((method, status, description, when))

    def hold(
        self, method: str, when: Callable[[dict[str, Any]], bool] | None = None
    ) -> asyncio.Event:
        """The next call of ``method`` (matching ``when``) is carried out, but its answer is
        kept back until the returned event is set."""
        release = asyncio.Event()
        self.holds.append((method, when, release))
        return release

    def forget_confirmations(self, below: int) -> None:
        """Act as if no ``getUpdates`` had confirmed the updates from ``below`` on (a client
        that crashed before its next poll)."""
        self._confirmed_below = min(self._confirmed_below, below)

    # -- what tests read ------------------------------------------------------------------
    def calls_of(self, *methods: str) -> list[Call]:
        """Recorded calls of these methods, in order."""
        return [c for c in self.calls if c.method in methods]

    def sent(self, chat_id: int | None = None) -> list[Call]:
        """``sendMessage`` calls (to one chat)."""
        return [
            c
            for c in self.calls_of("sendMessage")
            if c.status == 200 and (chat_id is None or c.params.get("chat_id") == chat_id)
        ]

    def texts(self, chat_id: int | None = None) -> list[str]:
        """The text people see of each message sent (to one chat)."""
        out = []
        for call in self.sent(chat_id):
            text = call.params.get("text", "")
            out.append(telegram_text(text) if call.params.get("parse_mode") == "HTML" else text)
        return out

    # -- HTTP -----------------------------------------------------------------------------
    async def _params(self, request: web.Request) -> tuple[dict[str, Any], dict[str, bytes]]:
        params: dict[str, Any] = dict(request.query)
        files: dict[str, bytes] = {}
        if request.content_type == "application/json":
            body = await request.json()
            params.update(body if isinstance(body, dict) else {})
            return params, files
        if request.method == "POST" and request.can_read_body:
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    files[key] = value.file.read()
                    params[key] = f"<file {value.filename}>"
                else:
                    params[key] = value
        for key in list(params):
            if key in _JSON_PARAMS and isinstance(params[key], str):
                try:
                    params[key] = json.loads(params[key])
                except ValueError:
                    pass
        return params, files

    @staticmethod
    def _answer(result: Any) -> web.Response:
        return web.json_response({"ok": True, "result": result})

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params, files = await self._params(request)
        call = Call(method, params, time.perf_counter(), files)
        self.calls.append(call)
        if self.on_call is not None:
            self.on_call(call)
        if request.match_info["token"] != self.token:
            call.status = 401
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        try:
            for index, (name, status, description, when) in enumerate(self.failures):
                if name == method and (when is None or when(params)):
                    del self.failures[index]
                    raise ApiError(status, description)
            handler = getattr(self, f"_m_{method}", None)
            if handler is None:
                raise ApiError(404, "Not Found")
            result = await handler(params, files)
            for index, (name, when, release) in enumerate(self.holds):
                if name == method and (when is None or when(params)):
                    del self.holds[index]
                    await release.wait()
                    break
            return self._answer(result)
        except ApiError as exc:
            call.status = exc.status
            body: dict[str, Any] = {
                "ok": False,
                "error_code": exc.status,
                "description": exc.description,
            }
            if exc.parameters:
                body["parameters"] = exc.parameters
            return web.json_response(body, status=exc.status)

    async def _file(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        path = request.match_info["path"]
        for data, _, stored in self.files.values():
            if stored == path:
                return web.Response(body=data)
        return web.Response(status=404)

    async def _transcribe(self, request: web.Request) -> web.Response:
        auth = request.headers.get("Authorization", "")
        form = await request.post()
        upload = form.get("file")
        self.transcriptions.append(
            {
                "auth": auth,
                "model": form.get("model"),
                "bytes": upload.file.read() if isinstance(upload, web.FileField) else b"",
            }
        )
        if self.groq_key is not None and auth != f"Bearer {self.groq_key}":
            return web.json_response({"error": {"message": "Invalid API Key"}}, status=401)
        return web.json_response({"text": self.transcript})

    # -- methods --------------------------------------------------------------------------
    def _bot_user(self) -> dict[str, Any]:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Test Bot",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    async def _m_getMe(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return self._bot_user()

    async def _m_deleteWebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_setMyCommands(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_sendChatAction(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_setMessageReaction(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_answerCallbackQuery(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_getUpdates(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        offset = params.get("offset")
        if isinstance(offset, int):
            self._confirmed_below = max(self._confirmed_below, offset)
        allowed = params.get("allowed_updates") or None
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        self._poll_generation += 1
        generation = self._poll_generation
        self._changed.set()  # wake an older poll: it ends with 409
        await asyncio.sleep(0)
        self._changed.clear()
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; make sure that only one "
                    "bot instance is running",
                )
            ready = [u for u in self._updates if self._pending(u, allowed)][:limit]
            remaining = deadline - asyncio.get_running_loop().time()
            if ready or remaining <= 0:
                return ready
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                pass

    def _pending(self, update: Any, allowed: list[str] | None) -> bool:
        """Not confirmed yet, and of a wanted kind."""
        if not isinstance(update, dict):
            return True
        update_id = update.get("update_id")
        if isinstance(update_id, int) and update_id < self._confirmed_below:
            return False
        if allowed is None:
            return True
        kinds = [k for k in update if k != "update_id"]
        return not kinds or any(k in allowed for k in kinds)

    def _chat(self, chat_id: Any) -> dict[str, Any]:
        if not isinstance(chat_id, int):
            raise ApiError(400, "Bad Request: chat not found")
        return {"id": chat_id, "type": "private" if chat_id > 0 else "group"}

    def _bot_message(self, chat_id: Any, **content: Any) -> dict[str, Any]:
        chat = self._chat(chat_id)
        message = {
            "message_id": self.next_message_id(chat_id),
            "date": int(time.time()),
            "chat": chat,
            "from": self._bot_user(),
            **{k: v for k, v in content.items() if v is not None},
        }
        self.messages[(chat_id, message["message_id"])] = message
        return message

    @staticmethod
    def _visible(params: dict[str, Any], key: str = "text") -> str:
        text = str(params.get(key, ""))
        if params.get("parse_mode") == "HTML":
            try:
                text = telegram_text(text)
            except HtmlError as exc:
                raise ApiError(400, f"Bad Request: {exc}") from None
        if not text.strip() and key == "text":
            raise ApiError(400, "Bad Request: message text is empty")
        if utf16_len(text) > MESSAGE_LIMIT:
            raise ApiError(400, "Bad Request: message is too long")
        return text

    async def _m_sendMessage(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        text = self._visible(params)
        return self._bot_message(
            params.get("chat_id"), text=text, reply_markup=params.get("reply_markup")
        )

    async def _m_editMessageText(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        key = (params.get("chat_id"), params.get("message_id"))
        if key not in self.messages:
            raise ApiError(400, "Bad Request: message to edit not found")
        message = self.messages[key]
        message["text"] = self._visible(params)
        message.pop("reply_markup", None)  # an edit without reply_markup drops the keyboard
        if params.get("reply_markup"):
            message["reply_markup"] = params["reply_markup"]
        return message

    async def _m_editMessageReplyMarkup(
        self, params: dict[str, Any], files: dict[str, bytes]
    ) -> Any:
        key = (params.get("chat_id"), params.get("message_id"))
        if key not in self.messages:
            raise ApiError(400, "Bad Request: message to edit not found")
        message = self.messages[key]
        message.pop("reply_markup", None)
        if params.get("reply_markup"):
            message["reply_markup"] = params["reply_markup"]
        return message

    async def _m_sendPhoto(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        if "photo" not in files:
            raise ApiError(400, "Bad Request: there is no photo in the request")
        size = {"file_id": "P", "file_unique_id": "P", "width": 1, "height": 1}
        return self._bot_message(params.get("chat_id"), photo=[size])

    async def _m_sendDocument(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        if "document" not in files:
            raise ApiError(400, "Bad Request: there is no document in the request")
        document = {"file_id": "D", "file_unique_id": "D"}
        return self._bot_message(params.get("chat_id"), document=document)

    async def _m_getFile(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        file_id = str(params.get("file_id", ""))
        if file_id not in self.files:
            raise ApiError(400, "Bad Request: invalid file_id")
        data, unique, path = self.files[file_id]
        return {
            "file_id": file_id,
            "file_unique_id": unique,
            "file_size": len(data),
            "file_path": path,
        }
