"""A local server speaking the OAuth and API endpoints the two sign-in flows use.

One ``ThreadingHTTPServer`` on ``127.0.0.1`` plays:

- auth.openai.com: ``GET /oauth/authorize`` (the "browser page": it checks the request and
  redirects to the ``redirect_uri`` with a code and the state) and ``POST /oauth/token``
  (authorization code with PKCE, refresh tokens that rotate);
- the Codex backend: ``POST /backend-api/codex/responses`` streaming Responses-API events, 401
  for an unknown or expired access token;
- github.com: ``POST /login/device/code`` and ``POST /login/oauth/access_token`` (device flow
  with a scripted sequence of ``authorization_pending`` / ``slow_down`` answers);
- api.github.com: ``GET /user`` and ``GET /copilot_internal/v2/token`` (short-lived Copilot
  tokens whose ``endpoints.api`` points at a chat server the test gives).

Everything received is recorded; tokens it hands out are remembered so tests can grep logs
and output for them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
import urllib.parse
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.waiting import serving

CODEX_CLIENT = "app_EMoamEEZ73f0CkXaXp7hrann"
GITHUB_CLIENT = "Iv1.b507a08c87ecfe98"
ACCOUNT_ID = "acct-test-0001"
EMAIL = "ann@example.com"
GITHUB_LOGIN = "octo-ann"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_jwt(claims: dict[str, Any]) -> str:
    """An unsigned-looking JWT (the client never checks signatures)."""
    header = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{_b64(json.dumps(claims).encode())}.{_b64(secrets.token_bytes(16))}"


@dataclass
class Seen:
    """One request as received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class CodexReply:
    """What ``/responses`` streams: text pieces, optionally a tool call, then completion."""

    text: str = "Hello from Codex."
    chunk: int = 5
    tool_call: tuple[str, str] | None = None  # (name, arguments json)
    reasoning: str = ""
    usage: tuple[int, int] = (12, 7)
    delay: float = 0.0  # seconds between text pieces (time to stop it halfway)


@dataclass
class FakeOAuthServer:
    """See the module docstring. Use as a context manager."""

    access_lifetime_s: float = 3600.0
    copilot_lifetime_s: float = 1800.0
    copilot_api: str = ""  # the chat API the Copilot token points at
    device_script: deque[str] = field(default_factory=deque)  # poll answers before success
    device_interval: float = 0.05
    slow_down_interval: float = 0.3
    codex_replies: deque[CodexReply] = field(default_factory=deque)
    requests: list[Seen] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)  # every token handed out
    refuse_refresh: bool = False
    refuse_copilot: int | None = None  # status for /copilot_internal/v2/token
    codex_valid: set[str] = field(default_factory=set)
    refresh_valid: set[str] = field(default_factory=set)
    github_valid: set[str] = field(default_factory=set)
    copilot_valid: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._codes: dict[str, dict[str, str]] = {}
        self._devices: dict[str, deque[str]] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = serving(self._server)

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def env(self) -> dict[str, str]:
        """Environment variables that point every flow at this server."""
        return {
            "NANOBOT_DESKTOP_CODEX_AUTH_URL": self.url,
            "NANOBOT_DESKTOP_CODEX_API_URL": f"{self.url}/backend-api/codex",
            "NANOBOT_DESKTOP_CODEX_CALLBACK_PORT": "0",
            "NANOBOT_DESKTOP_GITHUB_URL": self.url,
            "NANOBOT_DESKTOP_GITHUB_API_URL": self.url,
        }

    def __enter__(self) -> FakeOAuthServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- helpers for tests ------------------------------------------------------------------
    def seen(self, path: str) -> list[Seen]:
        """Requests to ``path``."""
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def expire_codex_tokens(self) -> None:
        """Refuse every Codex access token handed out so far (the server-side 401 case)."""
        with self._lock:
            self.codex_valid.clear()

    def expire_copilot_tokens(self) -> None:
        """Refuse every Copilot token handed out so far."""
        with self._lock:
            self.copilot_valid.clear()

    def _issue(self, prefix: str, pool: set[str]) -> str:
        token = f"{prefix}{secrets.token_urlsafe(24)}"
        pool.add(token)
        self.issued.append(token)
        return token

    def _codex_tokens(self) -> dict[str, Any]:
        now = time.time()
        access = make_jwt(
            {
                "exp": int(now + self.access_lifetime_s),
                "https://api.openai.com/auth": {"chatgpt_account_id": ACCOUNT_ID},
                "https://api.openai.com/profile": {"email": EMAIL},
            }
        )
        self.codex_valid.add(access)
        self.issued.append(access)
        refresh = self._issue("rt_", self.refresh_valid)
        id_token = make_jwt({"email": EMAIL, "exp": int(now + 3600)})
        return {
            "access_token": access,
            "refresh_token": refresh,
            "id_token": id_token,
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

            def _record(self, body: Any) -> tuple[str, dict[str, list[str]]]:
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
                return split.path, query

            def _json(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _bearer(self, scheme: str = "Bearer") -> str:
                value = self.headers.get("Authorization", "")
                return value[len(scheme) + 1 :] if value.startswith(f"{scheme} ") else ""

            def do_GET(self) -> None:
                path, query = self._record(None)
                one = {k: v[0] for k, v in query.items()}
                if path == "/oauth/authorize":
                    outer._authorize(self, one)
                elif path == "/user":
                    token = self._bearer() or self._bearer("token")
                    if token not in outer.github_valid:
                        self._json(401, {"message": "Bad credentials"})
                    else:
                        self._json(200, {"login": GITHUB_LOGIN, "id": 4242})
                elif path == "/copilot_internal/v2/token":
                    outer._copilot_token(self)
                else:
                    self._json(404, {"message": "Not Found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode() if length else ""
                if "json" in (self.headers.get("Content-Type") or ""):
                    body: Any = json.loads(raw or "{}")
                else:
                    body = {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}
                path, _query = self._record(body)
                if path == "/oauth/token":
                    outer._token(self, body)
                elif path == "/backend-api/codex/responses":
                    outer._responses(self, body)
                elif path == "/login/device/code":
                    outer._device_code(self, body)
                elif path == "/login/oauth/access_token":
                    outer._access_token(self, body)
                else:
                    self._json(404, {"error": "not_found"})

        return Handler

    # -- auth.openai.com ---------------------------------------------------------------------
    def _authorize(self, handler: Any, query: dict[str, str]) -> None:
        redirect = query.get("redirect_uri", "")
        parsed = urllib.parse.urlsplit(redirect)
        ok = (
            query.get("client_id") == CODEX_CLIENT
            and query.get("response_type") == "code"
            and query.get("code_challenge_method") == "S256"
            and query.get("code_challenge")
            and query.get("state")
            and parsed.hostname == "localhost"
            and parsed.path == "/auth/callback"
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
        if body.get("client_id") != CODEX_CLIENT:
            handler._json(401, {"error": "invalid_client"})
            return
        with self._lock:
            if body.get("grant_type") == "authorization_code":
                entry = self._codes.pop(body.get("code", ""), None)
                verifier = body.get("code_verifier", "")
                expected = _b64(hashlib.sha256(verifier.encode()).digest())
                if (
                    entry is None
                    or entry["challenge"] != expected
                    or entry["redirect"] != body.get("redirect_uri")
                ):
                    handler._json(400, {"error": "invalid_grant"})
                    return
                handler._json(200, self._codex_tokens())
                return
            if body.get("grant_type") == "refresh_token":
                refresh = body.get("refresh_token", "")
                if self.refuse_refresh or refresh not in self.refresh_valid:
                    handler._json(
                        400,
                        {"error": "invalid_grant", "error_description": "refresh token revoked"},
                    )
                    return
                self.refresh_valid.discard(refresh)  # rotating refresh tokens
                payload = self._codex_tokens()
                payload.pop("id_token")  # a refresh need not repeat it
                handler._json(200, payload)
                return
        handler._json(400, {"error": "unsupported_grant_type"})

    # -- Codex backend -----------------------------------------------------------------------
    def _responses(self, handler: Any, body: dict[str, Any]) -> None:
        token = handler._bearer()
        with self._lock:
            valid = token in self.codex_valid
            reply = self.codex_replies.popleft() if self.codex_replies else CodexReply()
        if not valid or handler.headers.get("chatgpt-account-id") != ACCOUNT_ID:
            handler._json(401, {"error": {"message": "token expired", "code": "token_expired"}})
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True

        def send(event: dict[str, Any]) -> None:
            handler.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            handler.wfile.flush()

        send({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}})
        if reply.reasoning:
            send({"type": "response.reasoning_summary_text.delta", "delta": reply.reasoning})
        for start in range(0, len(reply.text), reply.chunk):
            piece = reply.text[start : start + reply.chunk]
            send({"type": "response.output_text.delta", "item_id": "msg_1", "delta": piece})
            if reply.delay:
                time.sleep(reply.delay)
        if reply.tool_call:
            name, arguments = reply.tool_call
            item = {"type": "function_call", "id": "fc_1", "call_id": "call_abc", "name": name}
            send({"type": "response.output_item.added", "item": {**item, "arguments": ""}})
            for start in range(0, len(arguments), 6):
                send(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": "fc_1",
                        "delta": arguments[start : start + 6],
                    }
                )
            send({"type": "response.output_item.done", "item": {**item, "arguments": arguments}})
        usage = {
            "input_tokens": reply.usage[0],
            "output_tokens": reply.usage[1],
            "input_tokens_details": {"cached_tokens": 0},
        }
        send({"type": "response.completed", "response": {"status": "completed", "usage": usage}})

    # -- github.com ------------------------------------------------------------------------
    def _device_code(self, handler: Any, body: dict[str, str]) -> None:
        if body.get("client_id") != GITHUB_CLIENT or body.get("scope") != "read:user":
            handler._json(400, {"error": "invalid_client"})
            return
        device = f"dev-{secrets.token_urlsafe(12)}"
        with self._lock:
            self._devices[device] = deque(self.device_script)
        handler._json(
            200,
            {
                "device_code": device,
                "user_code": "WDJB-MJHT",
                "verification_uri": f"{self.url}/login/device",
                "expires_in": 900,
                "interval": self.device_interval,
            },
        )

    def _access_token(self, handler: Any, body: dict[str, str]) -> None:
        if body.get("client_id") != GITHUB_CLIENT:
            handler._json(200, {"error": "incorrect_client_credentials"})
            return
        grant = body.get("grant_type")
        with self._lock:
            if grant == "urn:ietf:params:oauth:grant-type:device_code":
                pending = self._devices.get(body.get("device_code", ""))
                if pending is None:
                    handler._json(200, {"error": "bad_verification_code"})
                    return
                if pending:
                    step = pending.popleft()
                    answer: dict[str, Any] = {"error": step}
                    if step == "slow_down":
                        answer["interval"] = self.slow_down_interval
                    handler._json(200, answer)
                    return
                token = self._issue("gho_", self.github_valid)
                handler._json(200, {"access_token": token, "token_type": "bearer"})
                return
        handler._json(200, {"error": "unsupported_grant_type"})

    # -- api.github.com ----------------------------------------------------------------------
    def _copilot_token(self, handler: Any) -> None:
        token = handler._bearer("token")
        with self._lock:
            if token not in self.github_valid:
                handler._json(401, {"message": "Bad credentials"})
                return
            if self.refuse_copilot:
                handler._json(self.refuse_copilot, {"message": "Resource not accessible"})
                return
            copilot = self._issue("tid=copilot;exp=", self.copilot_valid)
        now = time.time()
        handler._json(
            200,
            {
                "token": copilot,
                "expires_at": int(now + self.copilot_lifetime_s),
                "refresh_in": int(self.copilot_lifetime_s - 300),
                "endpoints": {"api": self.copilot_api},
            },
        )

    def copilot_gate(self, headers: dict[str, str]) -> Any:
        """For :attr:`ScriptedOpenAIServer.authorize`: 401 unless a valid Copilot token and
        the editor headers are sent."""
        from tests.fakes.openai_server import Fail

        lowered = {k.lower(): v for k, v in headers.items()}
        token = lowered.get("authorization", "").removeprefix("Bearer ")
        with self._lock:
            valid = token in self.copilot_valid
        if not valid or lowered.get("copilot-integration-id") != "vscode-chat":
            return Fail(401, "unauthorized: token expired", error_type="authentication_error")
        return None
