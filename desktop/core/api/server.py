"""The OpenAI-compatible HTTP API over the agent loop (aiohttp), as nanobot 0.3.5 serves it.

Endpoints: ``POST /v1/chat/completions`` (a JSON answer, or server-sent events with
``"stream": true``; a JSON body or nanobot's ``multipart/form-data`` upload form),
``GET /v1/models`` (the one model served) and ``GET /health`` (no token needed). Every other request needs ``Authorization: Bearer <token>``; a missing or wrong token
gets 401 and nothing runs.

Each request is one turn of the agent loop in the session its body names
(:mod:`desktop.core.api.request`: ``api:<session_id>``, else ``api:default``), so the
conversation, memory, tools and skills are the agent's own, the session file is the one
nanobot 0.3.5 writes for that key, and two requests for one session run one after the other.
The turn's model calls count as the ``api`` source in the usage ledger and the spend governor.

Tool approvals: the API has nobody to ask. A call that needs approval runs when the person
allowed it (approval mode ``autonomous``, or the tool is always allowed in the app's
settings); otherwise it is not executed and the model reads why
(:data:`~desktop.core.agent.approval.NO_APPROVER_RESULT`) — the request never waits.

Errors are OpenAI-shaped (``{"error": {"message", "type", "code"}}``): 400 for a bad request,
429 when a budget refused the call, 502 when the model provider failed, 504 after the
request timeout (the turn is stopped; what it saved stays in the session). In a stream that
already began, an error arrives as one ``data: {"error": ...}`` event (the ``openai`` client
raises it) and the stream ends without ``[DONE]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import BodyPartReader, web

from desktop.core.agent.loop import AgentLoop
from desktop.core.api.request import (
    API_CHANNEL,
    MAX_FILE_BYTES,
    ChatRequest,
    RequestError,
    Upload,
    parse_chat_request,
    save_uploads,
    too_large,
    upload_request,
)
from desktop.core.bus.events import OutboundMessage
from desktop.core.engine.hooks import AgentHook, HookContext
from desktop.core.providers.base import LLMError, LLMResponse, StreamDelta
from desktop.core.utils.ownfiles import Refused
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 20 * 1024 * 1024  # base64 images
EMPTY_ANSWER = "(the agent finished without a text answer)"
_DONE = b"data: [DONE]\n\n"
_INTERNAL = ("the agent failed on this request (the app's log has the details)", "server_error")


def error_response(status: int, message: str, kind: str = "invalid_request_error") -> web.Response:
    """An OpenAI-shaped error."""
    return web.json_response(
        {"error": {"message": message, "type": kind, "code": status}}, status=status
    )


def _llm_error(exc: LLMError) -> tuple[int, str, str]:
    """Status, message and type for a failed turn."""
    if exc.kind == "budget":
        return 429, exc.message, "insufficient_quota"
    return 502, f"The model provider failed: {exc.message}", "server_error"


@dataclass
class _Listener:
    """Collects what one running request's turn sends with the ``message`` tool."""

    sent: list[str] = field(default_factory=list)
    on_text: Callable[[str], None] | None = None


class ApiChannel:
    """The ``api`` channel: a message the agent sends into an API session while a request for
    it runs becomes part of that request's answer (with no request running it is only in the
    session file, as the agent saved it)."""

    name = API_CHANNEL

    def __init__(self) -> None:
        # Per session, the requests waiting in arrival order; their turns run in that order,
        # so the first one is the request whose turn is running.
        self._listeners: dict[str, list[_Listener]] = {}

    @contextlib.contextmanager
    def listen(self, session_key: str, listener: _Listener) -> Iterator[_Listener]:
        """Route the session's messages to ``listener`` while its turn runs (the body of the
        ``with``)."""
        self._listeners.setdefault(session_key, []).append(listener)
        try:
            yield listener
        finally:
            waiting = self._listeners.get(session_key, [])
            if listener in waiting:
                waiting.remove(listener)
            if not waiting:
                self._listeners.pop(session_key, None)

    def waiting(self, session_key: str) -> int:
        """How many requests wait in (or run a turn of) ``session_key``."""
        return len(self._listeners.get(session_key, ()))

    async def send(self, message: OutboundMessage) -> None:
        """Hand a message to the request of its session, if one runs."""
        if any(message.metadata.get(flag) for flag in ("progress", "tool_hint", "command")):
            return
        waiting = self._listeners.get(f"{message.channel}:{message.chat_id}")
        listener = waiting[0] if waiting else None
        if listener is None:
            log.info("API message for %s:%s with no request waiting", message.channel,
                     message.chat_id)  # fmt: skip
            return
        listener.sent.append(message.content)
        if listener.on_text is not None:
            listener.on_text(message.content)


class _TurnHook(AgentHook):
    """Streams the answer's text (when asked) and adds up the turn's token usage."""

    def __init__(self, on_text: Callable[[str], None] | None = None) -> None:
        self.on_text = on_text
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def wants_streaming(self) -> bool:
        return self.on_text is not None

    async def on_stream(self, ctx: HookContext, delta: StreamDelta) -> None:
        if delta.kind == "text" and delta.text and self.on_text is not None:
            self.on_text(delta.text)

    async def after_iteration(self, ctx: HookContext, response: LLMResponse) -> None:
        self.prompt_tokens += response.usage.prompt_tokens
        self.completion_tokens += response.usage.completion_tokens

    def usage(self) -> dict[str, int]:
        """OpenAI's ``usage`` object for the whole turn."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


def _chunk(chunk_id: str, model: str, delta: dict[str, str], finish: str | None = None) -> bytes:
    payload = {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()


async def _read_upload(request: web.Request, model: str) -> ChatRequest:
    """A ``multipart/form-data`` request: nanobot's fields ``message``, ``session_id``,
    ``model`` and ``files`` (any number; each at most :data:`MAX_FILE_BYTES`)."""
    fields: dict[str, str] = {}
    files: list[Upload] = []
    try:
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                raise RequestError("nested multipart bodies are not supported")
            if part.name == "files":
                data = bytearray()
                while chunk := await part.read_chunk():
                    data.extend(chunk)
                    if len(data) > MAX_FILE_BYTES:
                        raise too_large(f"the file {part.filename or ''!r}")
                files.append(Upload(part.filename or "upload.bin", bytes(data)))
            elif part.name in ("message", "session_id", "model"):
                fields[part.name] = (await part.text()).strip()
    except (ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, RequestError):
            raise
        raise RequestError(f"the form could not be read: {exc}") from None
    return upload_request(fields, files, model)


class ApiServer:
    """The API over one agent loop.

    Args:
        agent: The running agent loop.
        channel: The ``api`` channel, registered with the runtime's channel manager.
        token: The bearer token every request but ``/health`` must carry (never empty).
        model: Returns the model the agent answers with (``/v1/models``, ``model`` fields).
        workspace: Where images sent with a request are saved (``media/api/``).
        owner: Owns the streamed turns (cancelled and awaited on shutdown).
        timeout_s: A turn running longer is stopped and the request answered 504.
    """

    def __init__(
        self,
        agent: AgentLoop,
        channel: ApiChannel,
        *,
        token: str,
        model: Callable[[], str],
        workspace: Path,
        owner: TaskOwner,
        timeout_s: float = 120.0,
    ) -> None:
        if not token:
            raise ValueError("the API needs a token")
        self.agent = agent
        self.channel = channel
        self._token = token.encode()
        self.model = model
        self.workspace = workspace
        self.owner = owner
        self.timeout_s = timeout_s
        self._runner: web.AppRunner | None = None

    # -- the application ------------------------------------------------------------------
    def app(self) -> web.Application:
        """The aiohttp application (routes and the token check)."""
        app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[self._auth])
        app.router.add_post("/v1/chat/completions", self._completions)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/health", self._health)
        return app

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host``:``port`` (0: any free port); returns the port bound."""
        self._runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=5.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound = self._runner.addresses
        return int(bound[0][1]) if bound else port

    async def stop(self) -> None:
        """Stop listening and end the requests still running."""
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
        await self.owner.aclose()

    @web.middleware
    async def _auth(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path == "/health":
            return await handler(request)
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return error_response(
                401, "Missing Authorization header. Use: Bearer <api_key>", "authentication_error"
            )
        if not hmac.compare_digest(given.strip().encode(), self._token):
            return error_response(401, "Invalid API key", "authentication_error")
        return await handler(request)

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": self.model(), "object": "model", "created": 0, "owned_by": "nanobot"}
        return web.json_response({"object": "list", "data": [model]})

    # -- chat completions -----------------------------------------------------------------
    async def _completions(self, request: web.Request) -> web.StreamResponse:
        model = self.model()
        try:
            if request.content_type.startswith("multipart/"):
                chat = await _read_upload(request, model)
            else:
                try:
                    body = await request.json()
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return error_response(400, "the body is not valid JSON")
                chat = parse_chat_request(body, model)
            media = await asyncio.to_thread(save_uploads, chat.uploads, self.workspace)
        except RequestError as exc:
            return error_response(exc.status, exc.message)
        except Refused as exc:
            return error_response(500, f"the image could not be saved: {exc}", "server_error")
        log.info("API request for %s (stream: %s)", chat.session_key, chat.stream)
        if chat.stream:
            return await self._stream(request, chat, media, model)
        return await self._answer(chat, media, model)

    async def _run(self, chat: ChatRequest, media: list[str], hook: _TurnHook) -> str:
        """The turn, bounded by the timeout."""
        async with asyncio.timeout(self.timeout_s):
            _channel, _, chat_id = chat.session_key.partition(":")
            return await self.agent.process_direct(
                chat.text,
                session_key=chat.session_key,
                channel=API_CHANNEL,
                chat_id=chat_id,
                media=media,
                hook=hook,
                source="api",
            )

    async def _answer(self, chat: ChatRequest, media: list[str], model: str) -> web.Response:
        hook = _TurnHook()
        with self.channel.listen(chat.session_key, _Listener()) as listener:
            try:
                answer = await self._run(chat, media, hook)
            except TimeoutError:
                return error_response(
                    504, f"the request timed out after {self.timeout_s:g} s", "timeout"
                )
            except LLMError as exc:
                return error_response(*_llm_error(exc))
            except Exception:  # a bug or a broken file: the caller gets a 500, the log the trace
                log.exception("the API turn in %s failed", chat.session_key)
                return error_response(500, *_INTERNAL)
        content = "\n\n".join([*listener.sent, answer] if answer else listener.sent)
        return web.json_response(
            {
                "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content or EMPTY_ANSWER},
                        "finish_reason": "stop",
                    }
                ],
                "usage": hook.usage(),
            }
        )

    async def _stream(
        self, request: web.Request, chat: ChatRequest, media: list[str], model: str
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        chunk_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        streamed: list[str] = []

        def on_text(text: str) -> None:
            streamed.append(text)
            pieces.put_nowait(text)

        hook = _TurnHook(on_text)
        listener = _Listener(on_text=lambda text: on_text(f"\n\n{text}\n\n"))
        failure: list[tuple[int, str, str]] = []

        async def turn() -> None:
            with self.channel.listen(chat.session_key, listener):
                try:
                    answer = await self._run(chat, media, hook)
                    if not streamed and answer:  # a command's reply, or a non-streamed answer
                        on_text(answer)
                except TimeoutError:
                    failure.append((504, f"the request timed out after {self.timeout_s:g} s",
                                    "timeout"))  # fmt: skip
                except LLMError as exc:
                    failure.append(_llm_error(exc))
                except Exception:  # a bug or a broken file: an error event, the trace in the log
                    log.exception("the API turn in %s failed", chat.session_key)
                    failure.append((500, *_INTERNAL))
                finally:
                    pieces.put_nowait(None)

        task = self.owner.spawn(turn(), name=f"api-turn-{chat.session_key}")
        try:
            await response.write(_chunk(chunk_id, model, {"role": "assistant", "content": ""}))
            while (piece := await pieces.get()) is not None:
                await response.write(_chunk(chunk_id, model, {"content": piece}))
            await task
            await _end_stream(response, chunk_id, model, failure[0] if failure else None)
        except ConnectionResetError:  # the client went away: its turn is stopped below
            log.info("API client of %s went away: the turn is stopped", chat.session_key)
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        return response


async def _end_stream(
    response: web.StreamResponse, chunk_id: str, model: str, failure: tuple[int, str, str] | None
) -> None:
    """End an SSE answer: ``stop`` and ``[DONE]``, or the error event (and no ``[DONE]``)."""
    if failure is not None:
        status, message, kind = failure
        error = {"error": {"message": message, "type": kind, "code": status}}
        await response.write(f"data: {json.dumps(error)}\n\n".encode())
    else:
        await response.write(_chunk(chunk_id, model, {}, "stop"))
        await response.write(_DONE)
    await response.write_eof()


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` keeps the API on this machine (``localhost``, 127.0.0.0/8, ::1)."""
    import ipaddress

    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
