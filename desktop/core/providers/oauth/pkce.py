"""The authorization-code flow with PKCE (RFC 7636) and a callback server on localhost.

The browser signs in on the provider's page and is sent back to
``http://localhost:PORT/auth/callback?code=…&state=…``; :class:`CallbackServer` answers that
one request. A callback whose ``state`` is not the one we sent is refused (it did not start
here) and the server keeps waiting for the right one.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import html
import secrets
import urllib.parse
from dataclasses import dataclass, field

from desktop.core.providers.oauth.flow import LoginError
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

CALLBACK_PATH = "/auth/callback"
_MAX_REQUEST = 16 * 1024


@dataclass(frozen=True)
class Pkce:
    """A code verifier and its S256 challenge."""

    verifier: str = field(repr=False)
    challenge: str


def make_pkce() -> Pkce:
    """A fresh verifier (64 random bytes, base64url) and its SHA-256 challenge."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(64)).rstrip(b"=").decode()
    digest = hashlib.sha256(verifier.encode()).digest()
    challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return Pkce(verifier, challenge)


def make_state() -> str:
    """An unguessable ``state`` value tying the callback to this sign-in."""
    return secrets.token_urlsafe(32)


def _page(title: str, text: str) -> bytes:
    body = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title></head>"
        "<body style='font-family:sans-serif;max-width:32em;margin:4em auto'>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>"
    )
    return body.encode()


class CallbackServer:
    """A one-shot HTTP server on ``127.0.0.1:port`` that waits for the browser's redirect.

    Args:
        state: The ``state`` sent in the authorization URL.
        port: Port to listen on (``0``: any free port, for tests).
        path: The redirect path.
        host: The host name in the redirect address (the server listens on 127.0.0.1; some
            providers register ``localhost``, others the address itself).
    """

    def __init__(
        self, *, state: str, port: int, path: str = CALLBACK_PATH, host: str = "localhost"
    ) -> None:
        self.state = state
        self.path = path
        self.host = host
        self._port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[str] | None = None
        self.refused = 0  # callbacks with a wrong state (for tests and the log)

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        assert self._server is not None and self._server.sockets
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def redirect_uri(self) -> str:
        """``http://localhost:PORT/auth/callback`` (host and path as given)."""
        return f"http://{self.host}:{self.port}{self.path}"

    async def start(self) -> None:
        """Listen.

        Raises:
            LoginError: The port is taken (another sign-in, or the Codex CLI, is waiting).
        """
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", self._port)
        except OSError as exc:
            template = QT_TR_NOOP(
                "Port {port} on this computer is in use, so the browser cannot hand the "
                "sign-in back (is another sign-in, or the Codex CLI, waiting?). Close it and try "
                "again. ({error})"
            )
            raise LoginError(
                Phrase(template, port=self._port, error=str(exc.strerror or exc))
            ) from None

    async def wait(self) -> str:
        """The authorization code, once the browser comes back with the right state.

        Raises:
            LoginError: The provider reported an error (e.g. the person refused).
        """
        assert self._result is not None, "start() first"
        return await asyncio.shield(self._result)

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self._result is not None and not self._result.done():
            self._result.cancel()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        status, page = self._answer(head[:_MAX_REQUEST])
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(page)}\r\nConnection: close\r\n\r\n".encode()
            + page
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()

    def _answer(self, head: bytes) -> tuple[int, bytes]:
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) < 2 or parts[0] != "GET":
            return 404, _page("Not found", "Nothing here.")
        target = urllib.parse.urlsplit(parts[1])
        if target.path != self.path:
            return 404, _page("Not found", "Nothing here.")
        query = urllib.parse.parse_qs(target.query)
        state = (query.get("state") or [""])[0]
        if not state or not secrets.compare_digest(state, self.state):
            self.refused += 1
            return 400, _page(
                "Sign-in not accepted",
                "This sign-in link did not come from the sign-in that is running in nanobot "
                "Desktop (or it is out of date). Start the sign-in again from the app.",
            )
        assert self._result is not None
        error = (query.get("error") or [""])[0]
        if error:
            why = (query.get("error_description") or [error])[0]
            if not self._result.done():
                self._result.set_exception(LoginError(f"The sign-in was not completed: {why}."))
            return 400, _page("Sign-in not completed", f"The provider said: {why}.")
        code = (query.get("code") or [""])[0]
        if not code:
            return 400, _page("Sign-in not completed", "The answer held no authorization code.")
        if not self._result.done():
            self._result.set_result(code)
        return 200, _page(
            "Signed in", "You are signed in to nanobot Desktop. You can close this tab."
        )
