"""Local stand-ins for the Microsoft services a Teams bot talks to, speaking their documented
protocols, so the Bot Framework SDK runs its real authentication against them.

* :class:`LoginServer` (HTTPS, a self-signed certificate the tests trust through
  ``REQUESTS_CA_BUNDLE``; MSAL accepts only HTTPS authorities): the Entra ID authority
  ``/<tenant>/v2.0/.well-known/openid-configuration`` and its token endpoint
  ``/<tenant>/oauth2/v2.0/token`` (``client_credentials`` grant; a wrong secret is
  ``invalid_client``).
* :class:`BotFrameworkServer` (HTTP): the Bot Framework OpenID metadata and signing keys
  (``/v1/.well-known/openidconfiguration`` → ``jwks_uri``, RSA keys with ``endorsements``), the
  Bot Connector service (``POST /v3/conversations/{id}/activities[/{replyToId}]``, ``PUT
  /v3/conversations/{id}/activities/{id}``; every call must carry the token the login server
  issued; :meth:`BotFrameworkServer.hold` keeps the answer to a post back), and
  :meth:`BotFrameworkServer.say`: Teams posting an activity to the bot's endpoint
  with a Bot Connector JWT signed by the test key (RS256, ``iss`` https://api.botframework.com,
  ``aud`` the app id, ``serviceurl``).
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import itertools
import json
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import jwt
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from jwt.algorithms import RSAAlgorithm

from tests.typed import narrow

APP_ID = "00000000-1111-2222-3333-444444444444"
APP_PASSWORD = "test-client-secret-value"
TENANT = "botframework.com"
ACCESS_TOKEN = "connector-access-token-xyz"
KID = "test-signing-key"
ALICE_AAD = "aad-alice-0001"
MALLORY_AAD = "aad-mallory-0001"
CONVERSATION = "a:1personal-chat-with-alice"
BOT_ACCOUNT = f"28:{APP_ID}"


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (PEM files in ``directory``)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "login-cert.pem", directory / "login-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def _serve(
    app: web.Application, ssl_context: ssl.SSLContext | None = None
) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ssl_context)
    await site.start()
    return runner, narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]


@dataclass
class LoginServer:
    """Entra ID's token service (see the module docstring)."""

    cert: Path
    key: Path
    token_requests: list[dict[str, str]] = field(default_factory=list)
    port: int = 0

    async def start(self) -> LoginServer:
        app = web.Application()
        app.router.add_get("/{tenant}/v2.0/.well-known/openid-configuration", self._openid)
        app.router.add_post("/{tenant}/oauth2/v2.0/token", self._token)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        self._runner, self.port = await _serve(app, context)
        return self

    async def stop(self) -> None:
        await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    async def _openid(self, request: web.Request) -> web.Response:
        base = f"{self.url}/{request.match_info['tenant']}"
        return web.json_response(
            {
                "issuer": f"{base}/v2.0",
                "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                "token_endpoint": f"{base}/oauth2/v2.0/token",
                "jwks_uri": f"{base}/discovery/v2.0/keys",
                "response_types_supported": ["code", "id_token"],
            }
        )

    async def _token(self, request: web.Request) -> web.Response:
        form = {k: str(v) for k, v in (await request.post()).items()}
        self.token_requests.append({**form, "tenant": request.match_info["tenant"]})
        if form.get("client_id") != APP_ID or form.get("client_secret") != APP_PASSWORD:
            return web.json_response(
                {
                    "error": "invalid_client",
                    "error_description": "AADSTS7000215: Invalid client secret provided.",
                },
                status=401,
            )
        return web.json_response(
            {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599,
             "access_token": ACCESS_TOKEN}
        )  # fmt: skip


@dataclass
class Sent:
    """An activity the bot sent to the Connector service."""

    method: str
    conversation: str
    reply_to: str | None
    activity: dict[str, Any]


@dataclass
class BotFrameworkServer:
    """Bot Framework's metadata and keys, the Connector service, and Teams' side of the
    messaging endpoint (see the module docstring)."""

    sent: list[Sent] = field(default_factory=list)
    unauthorized: int = 0
    files: dict[str, bytes] = field(default_factory=dict)
    holds: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Event]] = field(
        default_factory=list
    )
    port: int = 0

    def __post_init__(self) -> None:
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._ids = itertools.count(1)

    async def start(self) -> BotFrameworkServer:
        app = web.Application()
        app.router.add_get("/v1/.well-known/openidconfiguration", self._metadata)
        app.router.add_get("/v1/.well-known/keys", self._keys)
        app.router.add_post("/v3/conversations/{conversation}/activities", self._post)
        app.router.add_post("/v3/conversations/{conversation}/activities/{reply}", self._post)
        app.router.add_put("/v3/conversations/{conversation}/activities/{id}", self._put)
        app.router.add_get("/v3/attachments/{name}", self._attachment)
        app.router.add_get("/download/{name}", self._download)
        self._runner, self.port = await _serve(app)
        self._client = aiohttp.ClientSession()
        return self

    async def stop(self) -> None:
        await self._client.close()
        await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def metadata_url(self) -> str:
        return f"{self.url}/v1/.well-known/openidconfiguration"

    @property
    def service_url(self) -> str:
        return f"{self.url}/"

    def texts(self) -> list[str]:
        """The text of every activity the bot posted, in order."""
        return [s.activity.get("text") or "" for s in self.sent if s.method == "POST"]

    def hold(self, when: Callable[[dict[str, Any]], bool]) -> asyncio.Event:
        """The next activity the bot posts that matches ``when`` is kept, but the answer to
        its ``POST`` waits for the returned event (a slow link)."""
        release = asyncio.Event()
        self.holds.append((when, release))
        return release

    # -- Teams posting to the bot ---------------------------------------------------------
    def token(
        self, *, audience: str = APP_ID, service_url: str | None = None, key: Any = None
    ) -> str:
        """A Bot Connector token as Teams sends it (signed with the test key)."""
        now = int(time.time())
        claims = {
            "iss": "https://api.botframework.com",
            "aud": audience,
            "exp": now + 3600,
            "nbf": now - 60,
            "serviceurl": service_url or self.service_url,
        }
        return jwt.encode(claims, key or self._key, algorithm="RS256", headers={"kid": KID})

    def activity(
        self,
        text: str,
        *,
        sender: str = ALICE_AAD,
        conversation: str = CONVERSATION,
        conversation_type: str = "personal",
        value: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A message activity from ``sender`` in ``conversation``."""
        activity = {
            "type": "message",
            "id": f"1700000000{next(self._ids):03d}",
            "timestamp": "2026-11-28T12:00:00.000Z",
            "serviceUrl": self.service_url,
            "channelId": "msteams",
            "from": {"id": f"29:{sender}", "name": sender, "aadObjectId": sender},
            "conversation": {"id": conversation, "conversationType": conversation_type,
                             "tenantId": "tenant-1"},
            "recipient": {"id": BOT_ACCOUNT, "name": "nanobot"},
            "textFormat": "plain",
            "text": text,
            "channelData": {"tenant": {"id": "tenant-1"}},
        }  # fmt: skip
        if value is not None:
            activity["value"] = value
        return activity

    async def say(
        self, endpoint: str, activity: dict[str, Any], *, token: str | None = None
    ) -> int:
        """Post ``activity`` to the bot's endpoint as Teams does; returns the HTTP status."""
        headers = {"Authorization": f"Bearer {token if token is not None else self.token()}"}
        async with self._client.post(endpoint, json=activity, headers=headers) as response:
            await response.read()
            return response.status

    # -- the Connector service ------------------------------------------------------------
    async def _metadata(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "issuer": "https://api.botframework.com",
                "authorization_endpoint": "https://invalid.botframework.com",
                "jwks_uri": f"{self.url}/v1/.well-known/keys",
                "id_token_signing_alg_values_supported": ["RS256"],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            }
        )

    async def _keys(self, request: web.Request) -> web.Response:
        jwk = json.loads(RSAAlgorithm.to_jwk(self._key.public_key()))
        jwk.update({"kid": KID, "use": "sig", "endorsements": ["msteams", "webchat"]})
        return web.json_response({"keys": [jwk]})

    def _authorized(self, request: web.Request) -> bool:
        if request.headers.get("Authorization") == f"Bearer {ACCESS_TOKEN}":
            return True
        self.unauthorized += 1
        return False

    async def _post(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({"error": {"code": "Unauthorized"}}, status=401)
        body = await request.json()
        self.sent.append(
            Sent("POST", request.match_info["conversation"], request.match_info.get("reply"), body)
        )
        answer = {"id": f"bot-{len(self.sent)}"}
        for index, (when, release) in enumerate(self.holds):
            if when(body):
                del self.holds[index]
                await release.wait()
                break
        return web.json_response(answer, status=201)

    async def _attachment(self, request: web.Request) -> web.Response:
        """An image pasted into the chat: the Connector serves it to the bot's token."""
        if not self._authorized(request):
            return web.json_response({"error": {"code": "Unauthorized"}}, status=401)
        data = self.files.get(request.match_info["name"])
        return web.Response(body=data) if data is not None else web.Response(status=404)

    async def _download(self, request: web.Request) -> web.Response:
        """A shared file's pre-signed download address (no token)."""
        data = self.files.get(request.match_info["name"])
        return web.Response(body=data) if data is not None else web.Response(status=404)

    async def _put(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({"error": {"code": "Unauthorized"}}, status=401)
        body = await request.json()
        self.sent.append(
            Sent("PUT", request.match_info["conversation"], request.match_info["id"], body)
        )
        return web.json_response({"id": request.match_info["id"]})
