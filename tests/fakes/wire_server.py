"""A local server speaking the chat APIs of every provider family, as documented.

One ``ThreadingHTTPServer`` on ``127.0.0.1`` answers, by the request's path:

- OpenAI chat completions, ``…/chat/completions`` (JSON, or SSE when the body asks to
  ``stream``); Azure's deployment URLs (``/openai/deployments/<name>/chat/completions``) too;
- Anthropic's Messages API, ``…/v1/messages`` (JSON or its SSE event sequence);
- AWS Bedrock's Converse API, ``/model/<id>/converse`` (JSON) and ``/model/<id>/converse-stream``
  (the binary ``application/vnd.amazon.eventstream`` framing, with its CRCs).

Every request is recorded (path with query, headers, body) so a test can check where it went,
how it was authenticated and which model it named. :func:`verify_sigv4` recomputes an AWS
Signature Version 4 over a recorded request with botocore, to check a signature, not only its
shape.
"""

from __future__ import annotations

import json
import struct
import threading
import time
import urllib.parse
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.waiting import serving


@dataclass
class WireRequest:
    """One request as received."""

    method: str
    path: str  # without the query
    query: dict[str, list[str]]
    headers: dict[str, str]
    raw: bytes
    at: float

    @property
    def body(self) -> Any:
        """The JSON body (``{}`` when it is not JSON)."""
        try:
            return json.loads(self.raw or b"{}")
        except ValueError:
            return {}

    def header(self, name: str) -> str:
        """A header's value, case-insensitively (``""`` when absent)."""
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return ""


def _event_stream_message(event_type: str, payload: dict[str, Any]) -> bytes:
    """One message of AWS's event-stream framing: prelude (total length, headers length, CRC),
    string headers (type 7), the JSON payload, and the CRC of everything before it."""
    headers = b""
    for name, value in (
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ):
        encoded_name, encoded_value = name.encode(), value.encode()
        headers += struct.pack("!B", len(encoded_name)) + encoded_name
        headers += struct.pack("!BH", 7, len(encoded_value)) + encoded_value
    body = json.dumps(payload).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack("!II", total, len(headers))
    prelude += struct.pack("!I", zlib.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + headers + body
    return message + struct.pack("!I", zlib.crc32(message) & 0xFFFFFFFF)


class WireServer:
    """Serve the chat APIs above on a free loopback port. Use as a context manager.

    Args:
        reply: The answer text every call gets (streamed in pieces).

    Attributes:
        cut: Streams stop after the text, before the protocol's end (no finish reason, no
            ``message_stop``): a connection that broke mid-answer.
    """

    def __init__(self, reply: str = "pong") -> None:
        self.reply = reply
        self.cut = False
        self.requests: list[WireRequest] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = serving(self._server)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no path)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> WireServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def take(self) -> list[WireRequest]:
        """The requests received since the last call (and forget them)."""
        with self._lock:
            taken, self.requests = self.requests, []
        return taken

    # -- HTTP -----------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                split = urllib.parse.urlsplit(self.path)
                seen = WireRequest(
                    "POST",
                    split.path,
                    urllib.parse.parse_qs(split.query),
                    dict(self.headers.items()),
                    raw,
                    time.monotonic(),
                )
                with outer._lock:
                    outer.requests.append(seen)
                outer._answer(self, seen)

        return Handler

    def _answer(self, handler: Any, seen: WireRequest) -> None:
        path, body = seen.path, seen.body
        if path.endswith("/chat/completions"):
            self._openai(handler, body)
        elif path.endswith("/v1/messages"):
            self._anthropic(handler, body)
        elif path.startswith("/model/") and path.endswith("/converse-stream"):
            self._converse_stream(handler)
        elif path.startswith("/model/") and path.endswith("/converse"):
            self._json(handler, 200, self._converse_body())
        else:
            self._json(handler, 404, {"error": {"message": f"no API at {path}"}})

    def _pieces(self) -> list[str]:
        return [self.reply[i : i + 3] for i in range(0, len(self.reply), 3)] or [""]

    @staticmethod
    def _json(handler: Any, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    @staticmethod
    def _open_stream(handler: Any, content_type: str = "text/event-stream") -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True

    @staticmethod
    def _sse(handler: Any, payload: Any, event: str | None = None) -> None:
        head = f"event: {event}\n" if event else ""
        handler.wfile.write(f"{head}data: {json.dumps(payload)}\n\n".encode())
        handler.wfile.flush()

    # -- OpenAI ---------------------------------------------------------------------------
    def _openai(self, handler: Any, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        usage = {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
        if not body.get("stream"):
            message = {"role": "assistant", "content": self.reply}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            self._json(
                handler,
                200,
                {
                    "id": "chatcmpl-wire",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [choice],
                    "usage": usage,
                    "service_tier": "default",
                    "system_fingerprint": "fp_wire",
                },
            )
            return
        self._open_stream(handler)
        base = {
            "id": "chatcmpl-wire",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }
        first = {"role": "assistant", "content": ""}
        self._sse(handler, {**base, "choices": [{"index": 0, "delta": first}]})
        for piece in self._pieces():
            delta = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
            self._sse(handler, {**base, "choices": [delta]})
        if self.cut:
            return
        end = {"index": 0, "delta": {}, "finish_reason": "stop"}
        self._sse(handler, {**base, "choices": [end]})
        self._sse(handler, {**base, "choices": [], "usage": usage})
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()

    # -- Anthropic ------------------------------------------------------------------------
    def _anthropic(self, handler: Any, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        if not body.get("stream"):
            self._json(
                handler,
                200,
                {
                    "id": "msg_wire",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": self.reply}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 7, "output_tokens": 2},
                },
            )
            return
        self._open_stream(handler)
        start = {
            "id": "msg_wire",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 7, "output_tokens": 0},
        }
        self._sse(handler, {"type": "message_start", "message": start}, "message_start")
        block = {"type": "content_block_start", "index": 0}
        self._sse(
            handler, {**block, "content_block": {"type": "text", "text": ""}}, str(block["type"])
        )
        for piece in self._pieces():
            delta = {"type": "content_block_delta", "index": 0}
            self._sse(
                handler,
                {**delta, "delta": {"type": "text_delta", "text": piece}},
                str(delta["type"]),
            )
        if self.cut:
            return
        self._sse(handler, {"type": "content_block_stop", "index": 0}, "content_block_stop")
        end = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
        self._sse(handler, {**end, "usage": {"output_tokens": 2}}, "message_delta")
        self._sse(handler, {"type": "message_stop"}, "message_stop")

    # -- Bedrock Converse -------------------------------------------------------------------
    def _converse_body(self) -> dict[str, Any]:
        return {
            "output": {"message": {"role": "assistant", "content": [{"text": self.reply}]}},
            "stopReason": "end_turn",
            "usage": {"inputTokens": 7, "outputTokens": 2, "totalTokens": 9},
            "metrics": {"latencyMs": 1},
        }

    def _converse_stream(self, handler: Any) -> None:
        self._open_stream(handler, "application/vnd.amazon.eventstream")
        events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
        events += [
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": piece}})
            for piece in self._pieces()
        ]
        if self.cut:
            events.append(("contentBlockStop", {"contentBlockIndex": 0}))
        else:
            events += self._converse_end()
        for event_type, payload in events:
            handler.wfile.write(_event_stream_message(event_type, payload))
            handler.wfile.flush()

    @staticmethod
    def _converse_end() -> list[tuple[str, dict[str, Any]]]:
        return [
            ("contentBlockStop", {"contentBlockIndex": 0}),
            ("messageStop", {"stopReason": "end_turn"}),
            (
                "metadata",
                {
                    "usage": {"inputTokens": 7, "outputTokens": 2, "totalTokens": 9},
                    "metrics": {"latencyMs": 1},
                },
            ),
        ]


def verify_sigv4(
    seen: WireRequest, base_url: str, *, access_key: str, secret_key: str, region: str
) -> bool:
    """Whether ``seen`` carries a valid AWS Signature Version 4 for ``bedrock`` in ``region``
    made with these credentials (recomputed with botocore over the headers it signed)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    authorization = seen.header("Authorization")
    if not authorization.startswith("AWS4-HMAC-SHA256 "):
        return False
    fields = dict(
        part.strip().split("=", 1) for part in authorization[len("AWS4-HMAC-SHA256 ") :].split(",")
    )
    scope = fields.get("Credential", "").split("/")
    if scope[:1] != [access_key] or scope[2:4] != [region, "bedrock"]:
        return False
    signed = fields.get("SignedHeaders", "").split(";")
    headers = {name: seen.header(name) for name in signed}
    url = base_url + seen.path  # as the client sent it (it signed this spelling)
    request = AWSRequest(method=seen.method, url=url, data=seen.raw, headers=headers)
    request.context["timestamp"] = seen.header("X-Amz-Date")
    signer = SigV4Auth(
        Credentials(access_key, secret_key, seen.header("X-Amz-Security-Token") or None),
        "bedrock",
        region,
    )
    expected = signer.signature(
        signer.string_to_sign(request, signer.canonical_request(request)), request
    )
    return bool(expected == fields.get("Signature"))
