"""The Bot Framework SDK's authentication, kept off the event loop.

Two parts of botframework-connector make blocking HTTP calls from coroutines: the OpenID
metadata and signing keys that inbound requests are checked against (``requests``), and the
bot's own access token from Microsoft's login service (MSAL, also ``requests``). Both are
cached by the SDK; here they are filled in a worker thread before the SDK needs them, so
inside the loop it only reads its caches.

* :func:`prefetch_signing_keys`: before a request is handed to the SDK, the key its token
  names is fetched in a thread into the SDK's own metadata cache.
* :class:`TokenCredentialFactory`: one ``MicrosoftAppCredentials`` per scope and login
  address, its MSAL application created (which reads the authority's OpenID configuration)
  and its token acquired in a thread; the SDK's later call is an MSAL cache hit.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import jwt
from botframework.connector.auth import (
    AuthenticationConstants,
    MicrosoftAppCredentials,
    PasswordServiceClientCredentialFactory,
)
from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor
from msal import ConfidentialClientApplication

from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

CHANNEL_ISSUER = AuthenticationConstants.TO_BOT_FROM_CHANNEL_TOKEN_ISSUER
BOT_SCOPE = AuthenticationConstants.TO_CHANNEL_FROM_BOT_OAUTH_SCOPE


async def prefetch_signing_keys(auth_header: str, channel_url: str, emulator_url: str) -> None:
    """Fill the SDK's metadata cache for the key ``auth_header``'s token names (in a thread).

    Nothing is checked here: a missing or bad token, an unknown key or an unreachable
    service are left for the SDK to refuse.
    """
    scheme, _, token = auth_header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        return
    try:
        kid = str(jwt.get_unverified_header(token).get("kid") or "")
        issuer = jwt.decode(token, options={"verify_signature": False}).get("iss")
    except jwt.PyJWTError:
        return
    url = channel_url if issuer == CHANNEL_ISSUER else emulator_url
    metadata = JwtTokenExtractor.get_open_id_metadata(url)

    def fetch() -> None:
        asyncio.run(metadata.get(kid))

    try:
        await asyncio.to_thread(fetch)
    except Exception as exc:  # noqa: BLE001 - the SDK refuses the request then
        log.info("Teams: fetching the signing keys failed: %s", redact(exc))


class TokenCredentialFactory(PasswordServiceClientCredentialFactory):  # type: ignore[misc]
    """App id and password credentials whose token is fetched in a worker thread.

    Args:
        app_id: The bot's Microsoft App ID.
        password: Its client secret.
        tenant_id: The tenant of a single-tenant bot (``None``: Bot Framework's).
        login_url: Microsoft's login service (``https://login.microsoftonline.com``).
    """

    def __init__(self, app_id: str, password: str, tenant_id: str | None, login_url: str) -> None:
        super().__init__(app_id=app_id, password=password, tenant_id=tenant_id)
        self._login_url = login_url.rstrip("/")
        self._tenant = tenant_id or AuthenticationConstants.DEFAULT_CHANNEL_AUTH_TENANT
        self._credentials: dict[str, MicrosoftAppCredentials] = {}

    @property
    def authority(self) -> str:
        """The login authority tokens come from (``<login url>/<tenant>``)."""
        return f"{self._login_url}/{self._tenant}"

    async def create_credentials(
        self, app_id: str, oauth_scope: str, login_endpoint: str, validate_authority: bool
    ) -> Any:
        """Credentials for ``oauth_scope`` with a token already in MSAL's cache."""
        if await self.is_authentication_disabled():
            return MicrosoftAppCredentials.empty()
        if not await self.is_valid_app_id(app_id):
            raise ValueError("The activity is for another app id.")
        scope = oauth_scope or BOT_SCOPE
        credentials = self._credentials.get(scope)
        if credentials is None:
            credentials = MicrosoftAppCredentials(app_id, self.password, self._tenant, scope)
            credentials.oauth_endpoint = self.authority
            credentials.app = await asyncio.to_thread(self._msal_app, app_id)
            self._credentials[scope] = credentials
        await asyncio.to_thread(credentials.get_access_token)
        return credentials

    def _msal_app(self, app_id: str) -> ConfidentialClientApplication:
        return ConfidentialClientApplication(
            client_id=app_id,
            client_credential=self.password,
            authority=self.authority,
            instance_discovery=False,  # the authority is given; no lookup elsewhere
        )

    async def token(self) -> str:
        """A token for the Bot Connector service (Settings → "Test")."""
        credentials = await self.create_credentials(self.app_id, BOT_SCOPE, "", False)
        return str(await asyncio.to_thread(credentials.get_access_token))
