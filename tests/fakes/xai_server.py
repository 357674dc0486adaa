"""A local server playing xAI's sign-in (an OpenID issuer) and the Grok subscription API.

- ``GET /.well-known/openid-configuration``: the issuer (this server's address) and its
  endpoints (``foreign_endpoint`` puts the token endpoint on another origin);
- ``GET /oauth2/authorize``: the "browser page": checks the client, the scopes, the S256
  challenge, state, nonce and a ``127.0.0.1`` callback, then redirects there with a code;
- ``POST /oauth2/token``: the authorization code with its PKCE verifier, or a refresh token
  (rotated); both require the ``x-grok-client-version`` header;
- ``GET /oauth2/userinfo``: who the bearer is;
- ``POST /v1/responses``: the chat API, streaming Responses-API events; 401 for a token it did
  not issue or that was expired with :meth:`FakeXAIServer.expire_access`.

Every request is recorded; every token handed out is remembered.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.oauth_server import Seen
from tests.waiting import serving

CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
EMAIL = "grok-user@example.com"
REQUIRED_SCOPES = {"openid", "offline_access", "grok-cli:access", "api:access"}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class FakeXAIServer:
    """See the module docstring. Use as a context manager."""

    reply: str = "Hello from Grok."
    access_lifetime_s: float = 3600.0
    refuse_refresh: bool = False
    foreign_endpoint: bool = False
    requests: list[Seen] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)
    access_valid: set[str] = field(default_factory=set)
    refresh_valid: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._codes: dict[str, dict[str, str]] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = serving(self._server)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (the issuer)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def env(self) -> dict[str, str]:
        """Environment variables that send the sign-in and the API here."""
        return {
            "NANOBOT_DESKTOP_GROK_AUTH_URL": self.url,
            "NANOBOT_DESKTOP_GROK_API_URL": f"{self.url}/v1",
        }

    def __enter__(self) -> FakeXAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def seen(self, path: str) -> list[Seen]:
        """Requests to ``path``."""
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def expire_access(self) -> None:
        """Refuse every access token handed out so far (the server-side 401 case)."""
        with self._lock:
            self.access_valid.clear()

    def _issue(self, prefix: str, pool: set[str]) -> str:
        token = f"{prefix}{secrets.token_urlsafe(24)}"
        pool.add(token)
        self.issued.append(token)
        return token

    def _tokens(self) -> dict[str, Any]:
        return {
            "access_token": self._issue("xai-at-", self.access_valid),
            "refresh_token": self._issue("xai-rt-", self.refresh_valid),
            "id_token": "unused.id.token",
            "expires_in": self.access_lifetime_s,
            "token_type": "Bearer",
        }

    # -- HTTP -----------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def _record(self, body: Any) -> tuple[str, dict[str, str]]:
                split = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(split.query)
                with outer._lock:
                    outer.requests.append(
                        Seen(
                            self.command,
                            split.path,
                            query,
                            dict(self.headers.items()),
                            body,
                            time.monotonic(),
                        )
                    )
                return split.path, {k: v[0] for k, v in query.items()}

            def _json(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                path, query = self._record(None)
                if path == "/.well-known/openid-configuration":
                    token_base = "http://localhost:9" if outer.foreign_endpoint else outer.url
                    self._json(
                        200,
                        {
                            "issuer": outer.url,
                            "authorization_endpoint": f"{outer.url}/oauth2/authorize",
                            "token_endpoint": f"{token_base}/oauth2/token",
                            "userinfo_endpoint": f"{outer.url}/oauth2/userinfo",
                        },
                    )
                elif path == "/oauth2/authorize":
                    outer._authorize(self, query)
                elif path == "/oauth2/userinfo":
                    token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    with outer._lock:
                        valid = token in outer.access_valid
                    if valid:
                        self._json(200, {"sub": "user-1", "email": EMAIL})
                    else:
                        self._json(401, {"error": "invalid_token"})
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode() if length else ""
                if "json" in (self.headers.get("Content-Type") or ""):
                    body: Any = json.loads(raw or "{}")
                else:
                    body = {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}
                path, _query = self._record(body)
                if path == "/oauth2/token":
                    outer._token(self, body)
                elif path == "/v1/responses":
                    outer._responses(self, body)
                else:
                    self._json(404, {"error": "not_found"})

        return Handler

    def _authorize(self, handler: Any, query: dict[str, str]) -> None:
        redirect = query.get("redirect_uri", "")
        parsed = urllib.parse.urlsplit(redirect)
        ok = (
            query.get("client_id") == CLIENT_ID
            and query.get("response_type") == "code"
            and query.get("code_challenge_method") == "S256"
            and query.get("code_challenge")
            and query.get("state")
            and query.get("nonce")
            and set(query.get("scope", "").split()) >= REQUIRED_SCOPES
            and parsed.hostname == "127.0.0.1"
            and parsed.path == "/callback"
        )
        if not ok:
            handler._json(400, {"error": "invalid_request"})
            return
        code = f"code-{secrets.token_urlsafe(12)}"
        with self._lock:
            self._codes[code] = {"challenge": query["code_challenge"], "redirect": redirect}
        target = f"{redirect}?{urllib.parse.urlencode({'code': code, 'state': query['state']})}"
        handler.send_response(302)
        handler.send_header("Location", target)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def _token(self, handler: Any, body: dict[str, str]) -> None:
        if body.get("client_id") != CLIENT_ID or not handler.headers.get("x-grok-client-version"):
            handler._json(401, {"error": "invalid_client"})
            return
        with self._lock:
            if body.get("grant_type") == "authorization_code":
                entry = self._codes.pop(body.get("code", ""), None)
                expected = _b64(hashlib.sha256(body.get("code_verifier", "").encode()).digest())
                if (
                    entry is None
                    or entry["challenge"] != expected
                    or entry["redirect"] != body.get("redirect_uri")
                ):
                    handler._json(400, {"error": "invalid_grant"})
                    return
                handler._json(200, self._tokens())
                return
            if body.get("grant_type") == "refresh_token":
                refresh = body.get("refresh_token", "")
                if self.refuse_refresh or refresh not in self.refresh_valid:
                    handler._json(
                        400, {"error": "invalid_grant", "error_description": "refresh revoked"}
                    )
                    return
                self.refresh_valid.discard(refresh)  # rotating refresh tokens
                handler._json(200, self._tokens())
                return
        handler._json(400, {"error": "unsupported_grant_type"})

    def _responses(self, handler: Any, body: dict[str, Any]) -> None:
        token = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        with self._lock:
            valid = token in self.access_valid
        if not valid:
            handler._json(401, {"error": {"message": "token expired", "code": "unauthorized"}})
            return
        if handler.headers.get("x-grok-model-override") != body.get("model"):
            handler._json(400, {"error": {"message": "model override does not match"}})
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True

        def send(event: dict[str, Any]) -> None:
            handler.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            handler.wfile.flush()

        send({"type": "response.created", "response": {"id": "resp_x", "status": "in_progress"}})
        for start in range(0, len(self.reply), 4):
            piece = self.reply[start : start + 4]
            send({"type": "response.output_text.delta", "item_id": "msg_1", "delta": piece})
        usage = {"input_tokens": 11, "output_tokens": 4, "input_tokens_details": {}}
        send({"type": "response.completed", "response": {"status": "completed", "usage": usage}})
