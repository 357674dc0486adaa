"""Settings of the WebSocket channel (``channels.websocket`` in nanobot's config.json).

The field names and their defaults are nanobot 0.3.5's, so its section loads as it is and
its WebUI (or any client of its protocol) talks to our gateway. Two differences, both on the
safe side for a desktop app: an absent section leaves the channel off (0.3.5 runs it by
default; a section that says ``"enabled": true`` runs it here too), and ``webuiDist`` (ours;
0.3.5 ignores it) says where 0.3.5's built WebUI is, since we never ship its files.

Listening on every interface (``0.0.0.0`` / ``::``) without a ``token`` or
``tokenIssueSecret`` is refused, as 0.3.5 refuses it: anyone on the network could talk to the
agent otherwise.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from desktop.core.config.base import ChannelBase
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::"})


def normalize_path(value: str) -> str:
    """A URL path as 0.3.5 compares them: ``/`` kept, a trailing ``/`` dropped otherwise."""
    value = value.strip() or "/"
    return value if value == "/" else value.rstrip("/") or "/"


class WebSocketConfig(ChannelBase):
    """WebSocket server (browsers and phones connect to us)."""

    host: str = Field(
        "127.0.0.1",
        title="Listen on",
        description=(
            "The address to listen on: 127.0.0.1 for this computer only; 0.0.0.0 for every "
            "device on your network (needs a token or token issue secret)."
        ),
    )
    port: int = Field(8765, ge=1, le=65535, title="Port", description="The port to listen on.")
    path: str = Field("/", title="WebSocket path", description="The WebSocket upgrade path.")
    token: str = Field(
        "",
        title="Token",
        description=(
            "A fixed secret clients may send as ?token=… (and the WebUI's login secret when no "
            "token issue secret is set). Kept in the keyring."
        ),
    )
    token_issue_path: str = Field(
        "",
        title="Token issue path",
        description=(
            "An HTTP path that hands out short-lived connection tokens (GET, with the token "
            "issue secret as a bearer token); empty: none."
        ),
    )
    token_issue_secret: str = Field(
        "",
        title="Token issue secret",
        description=(
            "What a client must show to get a short-lived token (the WebUI asks for it at "
            "login). Kept in the keyring."
        ),
    )
    token_ttl_s: int = Field(
        300,
        ge=30,
        le=86_400,
        title="Token lifetime (s)",
        description="How long an issued token may be used to connect.",
    )
    websocket_requires_token: bool = Field(
        True,
        title="Require a token to connect",
        description="Refuse connections without a valid token (fixed or issued).",
    )
    allow_from: list[str] = Field(
        default_factory=lambda: ["*"],
        title="Allowed clients",
        description=(
            'Client ids (?client_id=…) that may talk to the agent; "*" for every client that '
            "has a valid token. Client ids are chosen by the client: the token is the lock."
        ),
    )
    streaming: bool = Field(
        True, title="Stream answers", description="Send the answer as it is written."
    )
    max_message_bytes: int = Field(
        37_748_736,
        ge=1024,
        le=41_943_040,
        title="Largest frame (bytes)",
        description="Frames larger than this close the connection.",
    )
    ping_interval_s: float = Field(
        20.0, ge=5.0, le=300.0, title="Ping interval (s)", description="Keep-alive pings."
    )
    ping_timeout_s: float = Field(
        20.0,
        ge=5.0,
        le=300.0,
        title="Ping timeout (s)",
        description="A client that does not answer a ping in this time is dropped.",
    )
    ssl_certfile: str = Field(
        "",
        title="TLS certificate",
        description="A PEM certificate file: serve wss:// and https:// (with the key below).",
    )
    ssl_keyfile: str = Field(
        "", title="TLS key", description="The PEM private key of the certificate."
    )
    webui_dist: str = Field(
        "",
        title="WebUI folder",
        description=(
            "nanobot's built WebUI (the folder holding index.html, nanobot/web/dist in the "
            "nanobot-ai package), or a Python environment where nanobot-ai is installed. "
            "Empty: found when nanobot-ai is importable here; otherwise no WebUI is served."
        ),
    )

    @field_validator("path")
    @classmethod
    def _path_starts_with_slash(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError('path must start with "/"')
        return normalize_path(value)

    @field_validator("token_issue_path")
    @classmethod
    def _issue_path(cls, value: str) -> str:
        value = value.strip()
        if not value:
            return ""
        if not value.startswith("/"):
            raise ValueError('tokenIssuePath must start with "/"')
        return normalize_path(value)

    @model_validator(mode="after")
    def _checks(self) -> WebSocketConfig:
        if self.token_issue_path and self.token_issue_path == self.path:
            raise ValueError("tokenIssuePath must differ from path (the WebSocket path)")
        if bool(self.ssl_certfile.strip()) != bool(self.ssl_keyfile.strip()):
            raise ValueError("sslCertfile and sslKeyfile must both be set for TLS, or neither")
        return self

    def open_to_everyone(self) -> str:
        """Why listening as configured would let anyone on the network in (0.3.5's rule: every
        interface and neither a token nor a token issue secret), a phrase the window
        translates; empty when it would not.
        0.3.5 also accepts a trusted proxy (``trustedProxyAuth``) instead; we do not check
        proxy assertions, so it does not count here. Checked when the channel starts, not
        when the file is read: the secrets live in the keyring and are filled in after
        loading."""
        if self.host.strip() not in WILDCARD_HOSTS or self.login_secret:
            return ""
        template = QT_TR_NOOP(
            "host is {host} (every network interface) but neither token nor tokenIssueSecret "
            "is set: set one so nobody on the network can talk to the agent unasked"
        )
        return Phrase(template, host=self.host)

    @property
    def login_secret(self) -> str:
        """What the WebUI's login and the token issue route ask for (0.3.5: the token issue
        secret, else the fixed token); empty when neither is set."""
        return self.token_issue_secret.strip() or self.token.strip()

    def describe(self) -> dict[str, Any]:
        """Where it listens, for logs and ``channels status`` (no secrets)."""
        scheme = "wss" if self.ssl_certfile.strip() else "ws"
        return {"url": f"{scheme}://{self.host}:{self.port}{self.path}"}
