"""A signed-in provider's tokens at run time: read from the keyring, renewed before expiry.

:meth:`OAuthSession.tokens` blocks (keyring, HTTP); callers on the event loop use
:meth:`OAuthSession.atokens`, which runs it in a daemon thread. The keyring is read on every
call, so a sign-out anywhere takes effect on the next request. A refresh holds a lock shared by
every nanobot Desktop process of this user (the app, ``gateway``, a CLI ``agent``): refresh
tokens may be single-use, so two processes renewing at once could sign each other out. Under
the lock the keyring is read again first; a token another process has just renewed is used as
it is.

A refresh the server refuses ends the sign-in: the stored tokens are deleted (they cannot be
used any more) and an :class:`LLMError` of kind ``auth`` says to sign in again.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout

from desktop.core.config.secrets import KeyringUnavailable
from desktop.core.providers.base import LLMError, said
from desktop.core.providers.oauth.flow import RefreshRejected
from desktop.core.providers.oauth.tokens import OAuthTokens, TokenVault
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact
from desktop.core.utils.threads import run_daemon

log = logging.getLogger(__name__)
LOCK_TIMEOUT_S = 60.0

Refresher = Callable[[OAuthTokens], OAuthTokens]
"""Renew tokens (blocking HTTP). Raises :class:`RefreshRejected` when only a new sign-in helps,
any other exception for a failure that may pass (network, server error)."""


def login_hint(provider: str) -> str:
    """Where to sign in, in words."""
    cli = provider.replace("_", "-")
    return Phrase(
        QT_TR_NOOP("Sign in under Settings → Providers, or run '{command}'."),
        command=f"nanobot-desktop provider login {cli}",
    )


def not_signed_in(provider: str, display: str) -> LLMError:
    """The error for a call to a provider nobody signed in to."""
    return LLMError(
        Phrase(
            QT_TR_NOOP("Not signed in to {provider}. {hint}"),
            provider=display,
            hint=login_hint(provider),
        ),
        kind="auth",
        details=f"no {provider} sign-in in the OS keyring",
    )


def signed_out(provider: str, display: str, reason: str) -> LLMError:
    """The error for a sign-in that ended (refresh refused, token revoked)."""
    return LLMError(
        Phrase(
            QT_TR_NOOP(
                "Signed out of {provider}: the sign-in expired or was revoked. Sign in again: "
                "{hint}"
            ),
            provider=display,
            hint=login_hint(provider),
        ),
        kind="auth",
        details=redact(reason),
    )


def default_lock_dir() -> Path:
    """Where the refresh locks live (no secrets in them): the user's cache folder."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("nanobot-desktop", appauthor=False)) / "locks"


class OAuthSession:
    """The tokens of one OAuth provider, renewed as needed.

    Args:
        provider: Registry name.
        display: Name shown to people ("ChatGPT (Codex)").
        vault: Keyring access.
        refresher: Renews tokens (see :data:`Refresher`).
        lock_dir: Folder of the inter-process refresh lock.
    """

    def __init__(
        self,
        provider: str,
        display: str,
        vault: TokenVault,
        refresher: Refresher,
        *,
        lock_dir: Path | None = None,
    ) -> None:
        self.provider = provider
        self.display = display
        self.vault = vault
        self.refresher = refresher
        service = re.sub(r"[^A-Za-z0-9_.-]", "_", vault.store.service)
        self.lock_path = (lock_dir or default_lock_dir()) / f"oauth-{service}-{provider}.lock"
        self._thread_lock = threading.Lock()
        self.refreshes = 0  # refreshes this session made (for tests and the log)

    def tokens(self, *, rejected: str | None = None) -> OAuthTokens:
        """Valid tokens: the stored ones, renewed first when they expire within a minute.

        Args:
            rejected: An access token the API has just refused (401): renew even though it
                has not expired, unless another process has renewed it already.

        Raises:
            LLMError: Not signed in (kind ``auth``), signed out by a refused refresh
                (``auth``), or the refresh could not reach the server (``connection``,
                retryable).
        """
        with self._thread_lock:
            try:
                # Read on every call (one keyring read, in a worker thread): a sign-out in
                # Settings or in another process takes effect on the next request.
                current = self.vault.load(self.provider)
                if current is None:
                    raise not_signed_in(self.provider, self.display)
                if not current.expiring() and current.access != rejected:
                    return current
                return self._renew(current, rejected)
            except KeyringUnavailable as exc:
                raise LLMError(
                    Phrase(
                        QT_TR_NOOP(
                            "Cannot read the {provider} sign-in from the OS keyring. {error}"
                        ),
                        provider=self.display,
                        error=said(exc),
                    ),
                    kind="auth",
                ) from None

    async def atokens(self, *, rejected: str | None = None) -> OAuthTokens:
        """:meth:`tokens` in a daemon thread."""
        return await run_daemon(lambda: self.tokens(rejected=rejected), "oauth-tokens")

    def _renew(self, seen: OAuthTokens, rejected: str | None) -> OAuthTokens:
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with FileLock(str(self.lock_path), timeout=LOCK_TIMEOUT_S):
                latest = self.vault.load(self.provider)
                if latest is None:
                    raise not_signed_in(self.provider, self.display)
                if latest.access != seen.access and not latest.expiring():
                    return latest  # another process renewed it while we waited for the lock
                try:
                    renewed = self.refresher(latest)
                except RefreshRejected as exc:
                    log.warning("%s refused to renew the sign-in; signing out", self.display)
                    self.vault.delete(self.provider)
                    raise signed_out(self.provider, self.display, str(exc)) from None
                except LLMError:
                    raise
                except Exception as exc:  # noqa: BLE001 - network or server trouble: may pass
                    raise LLMError(
                        Phrase(
                            QT_TR_NOOP(
                                "Could not renew the {provider} sign-in (the server could not be "
                                "reached); trying again later may help."
                            ),
                            provider=self.display,
                        ),
                        kind="connection",
                        retryable=True,
                        details=redact(f"{type(exc).__name__}: {exc}"),
                    ) from None
                self.vault.save(renewed)
                self.refreshes += 1
                log.info("renewed the %s sign-in", self.display)
                return renewed
        except Timeout:
            raise LLMError(
                Phrase(
                    QT_TR_NOOP(
                        "Another nanobot Desktop process is renewing the {provider} sign-in and "
                        "did not finish; try again in a moment."
                    ),
                    provider=self.display,
                ),
                kind="timeout",
                retryable=True,
            ) from None
