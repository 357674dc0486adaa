"""The API's bearer token: config ``api.apiKey`` (nanobot 0.3.5's key), kept in the OS keyring.

The keyring entry is the config field's (user name ``api.apiKey`` under the app's keyring
service, :mod:`desktop.core.config.secret_fields`), so the loader's stored-secret injection
fills it in and a save never writes it to ``config.json``. A nanobot user's own ``apiKey`` in
the file (plaintext, or a ``${VAR}`` reference) and the ``NANOBOT_API__API_KEY`` override work
as they do in nanobot.
"""

from __future__ import annotations

import secrets as _random

from desktop.core.config.schema import Config
from desktop.core.config.secret_fields import API_TOKEN, SecretState, aresolve, astore
from desktop.core.config.secrets import SecretStore
from desktop.core.utils.redact import register_secret

TOKEN_BYTES = 32


def generate_token() -> str:
    """A new random token (URL-safe text, 256 bits)."""
    token = "nbd-" + _random.token_urlsafe(TOKEN_BYTES)
    register_secret(token)
    return token


async def current_token(config: Config, store: SecretStore) -> SecretState:
    """The token in force and where it comes from (``source`` ``none``: there is none)."""
    state = await aresolve(config, store, API_TOKEN)
    register_secret(state.value)
    return state


async def new_token(config: Config, store: SecretStore) -> str:
    """Make a new token, keep it in the keyring and hold it in ``config``; returns it.

    Raises:
        desktop.core.config.secrets.KeyringUnavailable: No keyring; nothing was kept.
    """
    token = generate_token()
    await astore(config, store, API_TOKEN, token)
    return token
