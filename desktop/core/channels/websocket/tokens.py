"""The WebSocket channel's short-lived tokens (nanobot 0.3.5's rules, in memory only).

Two kinds, both ``nbwt_…``: a *connection token* opens one WebSocket (it is used up by the
handshake; the WebUI's are marked ``webui``), an *API token* authorizes the WebUI's HTTP
calls (``Authorization: Bearer``) until it expires. Nothing is written anywhere: a restart
makes every browser log in again, as with 0.3.5.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Audience = Literal["client", "webui"]
MAX_TOKENS = 10_000
"""Outstanding tokens of one kind beyond which none is issued (0.3.5's cap)."""


def _new_token() -> str:
    return f"nbwt_{secrets.token_urlsafe(32)}"


def header(headers: Mapping[str, str], name: str) -> str:
    """A request header, whatever its case (empty when absent)."""
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return str(value)
    return ""


def bearer(headers: Mapping[str, str]) -> str:
    """The token of an ``Authorization: Bearer …`` header (empty when absent)."""
    auth = header(headers, "Authorization")
    return auth[7:].strip() if auth.lower().startswith("bearer ") else ""


def secret_matches(headers: Mapping[str, str], secret: str) -> bool:
    """Whether the request shows ``secret`` as ``Authorization: Bearer`` or ``X-Nanobot-Auth``
    (compared in constant time)."""
    supplied = bearer(headers) or header(headers, "X-Nanobot-Auth").strip()
    return bool(supplied) and hmac.compare_digest(supplied.encode(), secret.encode())


@dataclass
class TokenStore:
    """Issued connection tokens and WebUI API tokens, each with its expiry (monotonic)."""

    clock: object = field(default=time.monotonic, repr=False)
    _issued: dict[str, tuple[float, Audience]] = field(default_factory=dict, repr=False)
    _api: dict[str, float] = field(default_factory=dict, repr=False)

    def _now(self) -> float:
        clock = self.clock
        assert callable(clock)
        return float(clock())

    def _purge(self) -> None:
        now = self._now()
        for token, (expiry, _) in list(self._issued.items()):
            if now > expiry:
                del self._issued[token]
        for token, expiry in list(self._api.items()):
            if now > expiry:
                del self._api[token]

    def can_issue(self, *, api: bool = False) -> bool:
        """Whether another token may be issued (fewer than :data:`MAX_TOKENS` outstanding)."""
        self._purge()
        return len(self._issued) < MAX_TOKENS and (not api or len(self._api) < MAX_TOKENS)

    def issue(self, ttl_s: float, audience: Audience = "client") -> str:
        """A new connection token, valid for one handshake within ``ttl_s`` seconds."""
        token = _new_token()
        self._issued[token] = (self._now() + ttl_s, audience)
        return token

    def issue_api(self, ttl_s: float) -> str:
        """A new API token, valid for ``ttl_s`` seconds."""
        token = _new_token()
        self._api[token] = self._now() + ttl_s
        return token

    def take(self, token: str) -> Audience | None:
        """Use up a connection token: its audience, or ``None`` when unknown or expired."""
        self._purge()
        found = self._issued.pop(token, None) if token else None
        return found[1] if found is not None else None

    def api_ok(self, token: str) -> bool:
        """Whether ``token`` is a live API token."""
        self._purge()
        return bool(token) and token in self._api

    def clear(self) -> None:
        """Forget every token (the channel stopped)."""
        self._issued.clear()
        self._api.clear()
