"""A local server speaking the transcription APIs nanobot's providers document.

- ``POST …/audio/transcriptions``: OpenAI's multipart form (``file``, ``model``, ``language``)
  or, with a JSON body, OpenRouter's ``input_audio``; bearer key;
- ``POST /v2/upload`` (raw bytes), ``POST /v2/transcript`` and ``GET /v2/transcript/<id>``
  (``processing`` first, then ``completed``): AssemblyAI, the key as the Authorization header;
- ``POST …/chat/completions`` with an ``input_audio`` part: Xiaomi MiMo's ASR;
- ``POST …/audio/asr/sse``: StepFun's streamed recognition.

Every request is recorded with what it carried (the audio bytes decoded); ``fail_first``
answers that many requests with a 503 first.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import json
import secrets
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.waiting import serving


@dataclass
class Heard:
    """One request: its path, auth header, fields and the audio it carried."""

    method: str
    path: str
    auth: str
    fields: dict[str, Any] = field(default_factory=dict)
    audio: bytes = b""
    filename: str = ""
    content_type: str = ""


def _multipart(content_type: str, raw: bytes) -> tuple[dict[str, Any], bytes, str, str]:
    """The text fields, the file's bytes, name and type of a multipart/form-data body."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    fields: dict[str, Any] = {}
    audio, filename, kind = b"", "", ""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        assert isinstance(payload, bytes)  # decode=True on a leaf part: its bytes
        if part.get_filename():
            audio, filename, kind = payload, part.get_filename() or "", part.get_content_type()
        else:
            fields[str(name)] = payload.decode()
    return fields, audio, filename, kind


class TranscriptionServer:
    """Serve the APIs above on a free loopback port. Use as a context manager.

    Args:
        key: The only key it accepts.
        text: What it hears in any audio.
    """

    def __init__(self, key: str, text: str = "water the plants") -> None:
        self.key = key
        self.text = text
        self.fail_first = 0
        self.heard: list[Heard] = []
        self._uploads: dict[str, bytes] = {}
        self._polls: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = serving(self._server)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> TranscriptionServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def _json(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _serve(self, raw: bytes) -> None:
                path = urllib.parse.urlsplit(self.path).path
                heard = Heard(self.command, path, self.headers.get("Authorization", ""))
                with outer._lock:
                    outer.heard.append(heard)
                    failing = outer.fail_first > 0
                    outer.fail_first -= 1 if failing else 0
                if failing:
                    self._json(503, {"error": {"message": "busy, try again"}})
                    return
                outer._answer(self, heard, path, raw)

            def do_GET(self) -> None:
                self._serve(b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self._serve(self.rfile.read(length) if length else b"")

        return Handler

    def _answer(self, handler: Any, heard: Heard, path: str, raw: bytes) -> None:
        bearer = f"Bearer {self.key}"
        kind = handler.headers.get("Content-Type", "")
        if path.startswith("/v2/"):
            if heard.auth != self.key:
                handler._json(401, {"error": "Authentication error, API token missing/invalid"})
                return
            self._assemblyai(handler, heard, path, raw)
            return
        if heard.auth != bearer:
            handler._json(401, {"error": {"message": "invalid api key"}})
            return
        if path.endswith("/audio/transcriptions") and kind.startswith("multipart/form-data"):
            heard.fields, heard.audio, heard.filename, heard.content_type = _multipart(kind, raw)
            handler._json(200, {"text": f" {self.text} "})
            return
        body = json.loads(raw or b"{}")
        heard.fields = {
            k: v for k, v in body.items() if k not in ("input_audio", "messages", "audio")
        }
        if path.endswith("/audio/transcriptions"):
            heard.audio = base64.b64decode(body["input_audio"]["data"])
            heard.fields["format"] = body["input_audio"]["format"]
            handler._json(200, {"text": self.text})
        elif path.endswith("/chat/completions"):
            url = body["messages"][0]["content"][0]["input_audio"]["data"]
            heard.content_type, _, data = url.removeprefix("data:").partition(";base64,")
            heard.audio = base64.b64decode(data)
            message = {"role": "assistant", "content": self.text}
            handler._json(200, {"choices": [{"index": 0, "message": message}]})
        elif path.endswith("/audio/asr/sse"):
            heard.audio = base64.b64decode(body["audio"]["data"])
            heard.fields = body["audio"]["input"]
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Connection", "close")
            handler.end_headers()
            handler.close_connection = True
            for event in (
                {"type": "transcript.text.delta", "delta": self.text[:5]},
                {"type": "transcript.text.done", "text": self.text},
            ):
                handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            handler.wfile.flush()
        else:
            handler._json(404, {"error": {"message": f"no API at {path}"}})

    def _assemblyai(self, handler: Any, heard: Heard, path: str, raw: bytes) -> None:
        if path == "/v2/upload":
            upload = secrets.token_hex(6)
            with self._lock:
                self._uploads[upload] = raw
            heard.audio = raw
            handler._json(200, {"upload_url": f"{self.url}/cdn/{upload}"})
        elif path == "/v2/transcript" and heard.method == "POST":
            body = json.loads(raw or b"{}")
            heard.fields = body
            upload = str(body.get("audio_url", "")).rsplit("/", 1)[-1]
            if upload not in self._uploads:
                handler._json(400, {"error": "audio_url is not an upload of yours"})
                return
            handler._json(200, {"id": f"t-{upload}", "status": "queued"})
        elif path.startswith("/v2/transcript/"):
            transcript = path.rsplit("/", 1)[-1]
            with self._lock:
                seen = self._polls[transcript] = self._polls.get(transcript, 0) + 1
            if seen < 2:
                handler._json(200, {"id": transcript, "status": "processing"})
            else:
                handler._json(200, {"id": transcript, "status": "completed", "text": self.text})
        else:
            handler._json(404, {"error": "not found"})
