"""A scripted OpenAI-compatible HTTP server for driving the real LiteLLM path.

Each incoming ``POST /v1/chat/completions`` consumes the next scripted step (or the default
reply when the script is empty). Steps can answer (streamed as SSE when the request asks for
``stream``), fail with any status and headers, reset the connection, or stall before or in
the middle of a stream. Every request is recorded, so tests can count HTTP attempts and look
at what was sent.
"""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.waiting import serving


@dataclass
class Reply:
    """A successful answer.

    Attributes:
        text: Assistant content.
        tool_calls: ``(name, arguments_json_text)`` pairs.
        reasoning: ``reasoning_content`` to send before the text.
        finish_reason: Defaults to ``tool_calls`` when there are calls, else ``stop``.
        usage: ``(prompt_tokens, completion_tokens)``.
        cached: Of the prompt tokens, those reported as served from the cache
            (``prompt_tokens_details.cached_tokens``; left out when 0).
        chunk: Characters per streamed content chunk.
        delay: Seconds between streamed chunks.
        stall_after: Stream this many chunks, then stall for ``stall_for`` seconds.
        reset_after: Stream this many chunks, then reset the connection.
        close_after: Stream this many chunks, then end the response cleanly without a finish
            reason, usage or ``[DONE]`` (a server that gave up mid-answer).
        repeat_name: Repeat the tool name in every argument chunk (as llama.cpp does).
        call_ids: Ids of the tool calls, in order (default ``call_0``, ``call_1``…; a real
            server's ids are unique within a conversation, which some clients rely on).
    """

    text: str = ""
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: tuple[int, int] = (10, 5)
    cached: int = 0
    chunk: int = 4
    delay: float = 0.0
    stall_after: int | None = None
    stall_for: float = 0.0
    reset_after: int | None = None
    close_after: int | None = None
    repeat_name: bool = False
    call_ids: list[str] = field(default_factory=list)

    def call_id(self, index: int) -> str:
        """The id of the ``index``-th tool call."""
        return self.call_ids[index] if index < len(self.call_ids) else f"call_{index}"


class _Closed(Exception):
    """The scripted stream ends here, cleanly (see ``Reply.close_after``)."""


@dataclass
class Fail:
    """An HTTP error. ``echo_key`` puts the request's bearer token into the error body."""

    status: int
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)
    echo_key: bool = False
    error_type: str = "server_error"


@dataclass
class Reset:
    """Reset the TCP connection before any response."""


@dataclass
class Stall:
    """Wait ``seconds`` before answering with ``then``."""

    seconds: float
    then: Any = field(default_factory=lambda: Reply("late"))


@dataclass
class Recorded:
    """One request as received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float
    peer: tuple[str, int] = ("", 0)  # the client's address and port: one per TCP connection


class ScriptedOpenAIServer:
    """Serve scripted chat completions on ``127.0.0.1`` (a free port)."""

    def __init__(self, default: Reply | None = None, models: list[str] | None = None) -> None:
        self.default = default or Reply("Hello from the scripted server.")
        self.models = models or ["scripted-model"]
        # Extra fields of each ``/models`` entry (e.g. ``{"max_model_len": 8192}``, as vLLM).
        self.model_fields: dict[str, Any] = {}
        # Other GET endpoints: path → JSON body (e.g. llama.cpp's ``/props``).
        self.get_routes: dict[str, Any] = {}
        self.script: deque[Any] = deque()
        # Optional router: called with each request body; a non-None step wins over the script.
        self.route: Any = None
        # Optional gate: called with each POST's headers; a non-None step (e.g. Fail(401))
        # answers instead of the script (tests of token checks).
        self.authorize: Any = None
        # The OpenAI images API (``POST …/images/generations``): the raw image bytes each
        # generated image is (sent as ``b64_json``), or a Fail; ``None`` answers 404.
        self.images: bytes | Fail | None = None
        self.requests: list[Recorded] = []
        self.completed_streams = 0  # streams sent through to ``[DONE]``
        self.aborted_streams = 0  # streams whose writes failed because the client went away
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = serving(self._server)

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def port(self) -> int:
        """The bound port."""
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL for ``apiBase`` (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedOpenAIServer:
        """Start serving in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release every stalled handler."""
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- script ---------------------------------------------------------------------------
    def push(self, *steps: Any) -> None:
        """Queue steps; each request takes the next one."""
        with self._lock:
            self.script.extend(steps)

    def chat_requests(self) -> list[Recorded]:
        """Recorded chat-completion requests (the HTTP attempts)."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next(self) -> Any:
        with self._lock:
            return self.script.popleft() if self.script else self.default

    # -- HTTP -----------------------------------------------------------------------------
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:
                outer._record(self, {})
                path = self.path.rstrip("/")
                if path.endswith("/models"):
                    body = {
                        "object": "list",
                        "data": [
                            {"id": m, "object": "model", **outer.model_fields} for m in outer.models
                        ],
                    }
                    self._json(200, body)
                elif path in outer.get_routes:
                    self._json(200, outer.get_routes[path])
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                outer._record(self, body)
                if self.path.rstrip("/").endswith("/images/generations"):
                    outer._images(self, body)
                    return
                gate = outer.authorize(dict(self.headers.items())) if outer.authorize else None
                if gate is not None:
                    outer._serve(self, body, gate)
                    return
                routed = outer.route(body) if outer.route is not None else None
                outer._serve(self, body, routed if routed is not None else outer._next())

            def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

        return Handler

    def _record(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(
                Recorded(
                    handler.path,
                    dict(handler.headers.items()),
                    body,
                    time.monotonic(),
                    (str(handler.client_address[0]), int(handler.client_address[1])),
                )
            )

    def _sleep(self, seconds: float) -> None:
        self._stop.wait(seconds)

    def _reset(self, handler: BaseHTTPRequestHandler) -> None:
        sock = handler.connection
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        except OSError:
            pass
        handler.close_connection = True

    def _images(self, handler: Any, body: dict[str, Any]) -> None:
        """Answer an image generation request from :attr:`images`."""
        made = self.images
        if made is None:
            handler._json(404, {"error": {"message": "no images here"}})
            return
        if isinstance(made, Fail):
            self._serve(handler, body, made)
            return
        count = int(body.get("n") or 1)
        encoded = base64.b64encode(made).decode("ascii")
        handler._json(
            200,
            {"created": int(time.time()), "data": [{"b64_json": encoded} for _ in range(count)]},
        )

    def _serve(self, handler: Any, body: dict[str, Any], step: Any) -> None:
        try:
            if isinstance(step, Stall):
                self._sleep(step.seconds)
                step = step.then
            if isinstance(step, Reset):
                self._reset(handler)
            elif isinstance(step, Fail):
                message = step.message
                if step.echo_key:
                    message += f" (key sent: {handler.headers.get('Authorization', '')})"
                handler._json(
                    step.status,
                    {"error": {"message": message, "type": step.error_type, "code": step.status}},
                    step.headers,
                )
            elif body.get("stream"):
                try:
                    self._stream(handler, body, step)
                except _Closed:
                    handler.wfile.flush()
                    handler.close_connection = True
            else:
                handler._json(200, self._completion(body, step))
        except (BrokenPipeError, ConnectionResetError, OSError):
            handler.close_connection = True
            if isinstance(step, Reply) and body.get("stream"):
                with self._lock:
                    self.aborted_streams += 1

    def _usage(self, step: Reply) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "prompt_tokens": step.usage[0],
            "completion_tokens": step.usage[1],
            "total_tokens": sum(step.usage),
        }
        if step.cached:
            usage["prompt_tokens_details"] = {"cached_tokens": step.cached}
        return usage

    def _completion(self, body: dict[str, Any], step: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.reasoning:
            message["reasoning_content"] = step.reasoning
        if step.tool_calls:
            message["tool_calls"] = [
                {"id": step.call_id(i), "type": "function", "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(step.tool_calls)
            ]
        finish = step.finish_reason or ("tool_calls" if step.tool_calls else "stop")
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": self._usage(step),
        }

    def _stream(self, handler: Any, body: dict[str, Any], step: Reply) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        base = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
        }
        sent = 0

        def send(delta: dict[str, Any], finish: str | None = None) -> bool:
            nonlocal sent
            if step.reset_after is not None and sent >= step.reset_after:
                self._reset(handler)
                return False
            if step.close_after is not None and sent >= step.close_after:
                raise _Closed
            if step.stall_after is not None and sent == step.stall_after:
                self._sleep(step.stall_for)
            chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            handler.wfile.flush()
            sent += 1
            if step.delay:
                self._sleep(step.delay)
            return True

        if not send({"role": "assistant", "content": ""}):
            return
        if step.reasoning and not send({"reasoning_content": step.reasoning}):
            return
        for start in range(0, len(step.text), max(1, step.chunk)):
            if not send({"content": step.text[start : start + step.chunk]}):
                return
        for index, (name, arguments) in enumerate(step.tool_calls):
            if not send(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": step.call_id(index),
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            ):
                return
            for start in range(0, len(arguments), 8):
                if not send(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "function": {
                                    "arguments": arguments[start : start + 8],
                                    **({"name": name} if step.repeat_name else {}),
                                },
                            }
                        ]
                    }
                ):
                    return
        finish = step.finish_reason or ("tool_calls" if step.tool_calls else "stop")
        if not send({}, finish):
            return
        if (body.get("stream_options") or {}).get("include_usage"):
            usage_chunk = {**base, "choices": [], "usage": self._usage(step)}
            handler.wfile.write(f"data: {json.dumps(usage_chunk)}\n\n".encode())
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()
        with self._lock:
            self.completed_streams += 1
