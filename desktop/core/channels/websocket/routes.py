"""The WebSocket channel's listener: which requests become WebSockets, and the HTTP beside
them, with nanobot 0.3.5's auth rules.

- The WebSocket (``path`` with an upgrade): ``?client_id`` must pass ``allowFrom`` (403);
  with a fixed ``token`` the handshake must carry it or an issued token (401); otherwise,
  with ``websocketRequiresToken`` (the default), an issued token (401).
- ``tokenIssuePath`` (GET): a connection token, ``{"token", "expires_in"}``; with a login
  secret (``tokenIssueSecret``, else ``token``) only for ``Authorization: Bearer <secret>``
  or ``X-Nanobot-Auth: <secret>`` (401).
- ``/webui/bootstrap`` (GET): the WebUI's login. With a login secret it must be shown
  (401); without one only a browser on this computer gets in (403). It returns a connection
  token for the WebUI's socket and an API token for the calls below.
- ``/api/…``: ``Authorization: Bearer <API token>`` (401); see
  :mod:`~desktop.core.channels.websocket.webui`.
- Anything else: the WebUI's files, when they are found.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import re
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from desktop.core.channels.pairing.gate import reload as reload_pairings
from desktop.core.channels.websocket import webui
from desktop.core.channels.websocket.media import MediaSigner
from desktop.core.channels.websocket.tokens import (
    TokenStore,
    bearer,
    header,
    secret_matches,
)
from desktop.core.config.channels.websocket import WebSocketConfig, normalize_path
from desktop.core.config.loader import config_origin
from desktop.core.session.manager import SessionManager

if TYPE_CHECKING:
    from desktop.core.channels.base import BaseChannel

log = logging.getLogger(__name__)

_CHAT_ID = re.compile(r"^[A-Za-z0-9_:-]{1,64}$")
_THREAD = re.compile(r"^/api/sessions/([^/]+)/webui-thread$")
_MEDIA = re.compile(r"^/api/media/([A-Za-z0-9_-]+)/([A-Za-z0-9_-]+)$")
NO_STORE = {"Cache-Control": "no-store"}


def valid_chat_id(value: Any) -> bool:
    """Whether ``value`` is a chat id 0.3.5's protocol accepts (letters, digits, ``_:-``)."""
    return isinstance(value, str) and _CHAT_ID.fullmatch(value) is not None


def _loopback(host: str) -> bool:
    host = host.strip()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    host = host.removeprefix("::ffff:").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_local_browser(connection: ServerConnection, headers: Headers) -> bool:
    """A browser on this computer: a loopback peer, a loopback ``Host`` and no forwarding
    header naming anyone else (a local reverse proxy does not make a visitor local)."""
    remote = connection.remote_address
    if not remote or not _loopback(str(remote[0])):
        return False
    if not _loopback(header(headers, "Host")):
        return False
    forwarded = header(headers, "X-Forwarded-For")
    return all(_loopback(part) for part in forwarded.split(",") if part.strip())


def is_upgrade(request: Request) -> bool:
    """Whether ``request`` asks for a WebSocket."""
    upgrade = header(request.headers, "Upgrade").lower()
    connection = header(request.headers, "Connection").lower()
    return "websocket" in upgrade and "upgrade" in connection


def _response(
    status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None
) -> Response:
    headers = Headers(
        {
            "Date": format_datetime(datetime.now(UTC), usegmt=True),
            "Content-Type": content_type,
            "Content-Length": str(len(body)),
            "Connection": "close",
            **(extra or {}),
        }
    )
    reason = {
        200: "OK",
        401: "Unauthorized",
        403: "Forbidden",
        404: "Not Found",
        429: "Too Many Requests",
    }
    return Response(status, reason.get(status, "Error"), headers, body)


def json_response(payload: Any, status: int = 200) -> Response:
    """A JSON answer that no cache keeps."""
    body = json.dumps(payload, ensure_ascii=False).encode()
    return _response(status, body, "application/json; charset=utf-8", NO_STORE)


def error(status: int, text: str) -> Response:
    """A plain-text error answer."""
    return _response(status, text.encode(), "text/plain; charset=utf-8", NO_STORE)


def _config_dir(config: Any) -> Path | None:
    path = config_origin(config).path
    return Path(path).expanduser().parent if path else None


class Routes:
    """The listener's request handling for one run of the channel.

    Args:
        channel: The channel (its ``allowFrom``).
        config: Its section.
        secure: Whether the listener speaks TLS (the WebUI is told ``wss://``).
        dist: 0.3.5's built WebUI, when found.
        sessions: The channel's sessions, when the app's config is known.
        model: The model name the WebUI shows.
        provider: The provider the WebUI shows beside it.
        workspace: The agent's workspace (the WebUI shows its name).
    """

    def __init__(
        self,
        channel: BaseChannel[WebSocketConfig],
        config: WebSocketConfig,
        *,
        secure: bool,
        dist: Path | None,
        sessions: webui.SessionsView | None,
        model: str,
        provider: str,
        workspace: Path,
    ) -> None:
        self.channel = channel
        self.config = config
        self.secure = secure
        self.dist = dist
        self.sessions = sessions
        self.model = model
        self.provider = provider
        self.workspace = workspace
        self.tokens = TokenStore()
        self.signer = MediaSigner()

    @classmethod
    async def create(
        cls, channel: BaseChannel[WebSocketConfig], config: WebSocketConfig, *, secure: bool
    ) -> Routes:
        """Routes for ``channel`` (the WebUI found and the sessions opened off the loop)."""
        dist = await asyncio.to_thread(webui.find_dist, config.webui_dist)
        if dist is None:
            log.info("websocket: no nanobot WebUI found; only the WebSocket protocol is served")
        app = channel.app_config
        sessions = None
        model = provider = ""
        workspace = Path.home()
        if app is not None:
            workspace = app.workspace_path
            manager = SessionManager(workspace, config_dir=_config_dir(app))
            sessions = webui.SessionsView(manager)
            model = str(app.agents.defaults.model)
            provider = str(app.agents.defaults.provider or "auto")
        return cls(
            channel,
            config,
            secure=secure,
            dist=dist,
            sessions=sessions,
            model=model,
            provider=provider,
            workspace=workspace,
        )

    # -- the handshake --------------------------------------------------------------------
    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """websockets' hook: ``None`` lets a WebSocket handshake go on; a response ends it."""
        split = urlsplit(request.path)
        path = normalize_path(unquote(split.path))
        query = {k: v[0] for k, v in parse_qs(split.query).items() if v}
        if path == self.config.path and is_upgrade(request):
            await asyncio.to_thread(reload_pairings, self.channel)  # senders paired since
            return self._handshake(connection, query)
        try:
            return await self._http(connection, request, path, query)
        except Exception:
            log.exception("websocket: the HTTP route %s failed", path)
            return error(500, "Internal error")

    def _handshake(self, connection: ServerConnection, query: dict[str, str]) -> Response | None:
        client_id = query.get("client_id", "")[:128]
        if not self.channel.is_allowed(client_id):
            return error(403, "Forbidden")
        supplied = query.get("token", "")
        fixed = self.config.token.strip()
        if fixed and supplied and hmac.compare_digest(supplied.encode(), fixed.encode()):
            return None
        if supplied and self.tokens.take(supplied) is not None:
            return None
        if fixed or self.config.websocket_requires_token:
            return error(401, "Unauthorized")
        return None

    # -- HTTP -----------------------------------------------------------------------------
    async def _http(
        self,
        connection: ServerConnection,
        request: Request,
        path: str,
        query: dict[str, str],
    ) -> Response:
        headers = request.headers
        if self.config.token_issue_path and path == self.config.token_issue_path:
            return self._issue(headers)
        if path == "/webui/bootstrap":
            return self._bootstrap(connection, headers)
        media = _MEDIA.match(path)
        if media:  # a signed link (an <img src> sends no token): the signature is the key
            found_file = await asyncio.to_thread(self.signer.read, media.group(1), media.group(2))
            if found_file is None:
                return error(404, "Not Found")
            body, kind = found_file
            return _response(200, body, kind, {"Cache-Control": "private, max-age=3600"})
        if path.startswith("/api/"):
            if not self.tokens.api_ok(bearer(headers) or query.get("token", "")):
                return error(401, "Unauthorized")
            return await self._api(path)
        if self.dist is None:
            return error(404, "Not Found")
        found = await asyncio.to_thread(
            webui.static_file, self.dist, path, header(headers, "Accept-Encoding")
        )
        if found is None:
            return error(404, "Not Found")
        body, kind, encoding = found
        extra = {"Content-Encoding": encoding} if encoding else {}
        return _response(200, body, kind, extra)

    def _issue(self, headers: Headers) -> Response:
        secret = self.config.login_secret
        if secret and not secret_matches(headers, secret):
            return error(401, "Unauthorized")
        if not secret:
            log.warning("websocket: tokenIssuePath is open to anyone (no tokenIssueSecret)")
        if not self.tokens.can_issue():
            return json_response({"error": "too many outstanding tokens"}, 429)
        ttl = self.config.token_ttl_s
        return json_response({"token": self.tokens.issue(ttl), "expires_in": ttl})

    def _bootstrap(self, connection: ServerConnection, headers: Headers) -> Response:
        secret = self.config.login_secret
        if secret:
            if not secret_matches(headers, secret):
                return error(401, "Unauthorized")
        elif not is_local_browser(connection, headers):
            return error(403, "bootstrap is localhost-only")
        if not self.tokens.can_issue(api=True):
            return json_response({"error": "too many outstanding tokens"}, 429)
        ttl = self.config.token_ttl_s
        host = header(headers, "Host") or f"{self.config.host}:{self.config.port}"
        scheme = "wss" if self.secure else "ws"
        return json_response(
            {
                "token": self.tokens.issue(ttl, "webui"),
                "api_token": self.tokens.issue_api(ttl),
                "ws_path": self.config.path,
                "ws_url": f"{scheme}://{host}{self.config.path}",
                "expires_in": ttl,
                "model_name": self.model,
                "runtime_surface": "browser",
                "runtime_capabilities": webui.CAPABILITIES,
            }
        )

    async def _api(self, path: str) -> Response:
        if path == "/api/sessions":
            if self.sessions is None:
                return json_response({"sessions": []})
            return json_response(await asyncio.to_thread(self.sessions.listing))
        match = _THREAD.match(path)
        if match:
            key = unquote(match.group(1))
            thread = await asyncio.to_thread(self.sessions.thread, key) if self.sessions else None
            if thread is None:
                return error(404, "webui thread not found")
            return json_response(thread)
        panels = webui.side_panels(self.workspace, self.model, self.provider)
        if path in panels:
            return json_response(panels[path])
        return error(404, "API route not found")
