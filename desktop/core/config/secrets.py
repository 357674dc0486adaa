"""Provider keys in the OS keyring.

One keyring entry per provider under the service ``nanobot-desktop`` (username = registry name).
Lookup order for a provider's key: the keyring (or a key held for this session only when no
keyring exists), then the config's ``apiKey`` (a ``${VAR}`` reference or, for old configs, a
plaintext value), then the provider's standard environment variable. Keys are handed to each
call; they are never put into ``os.environ``.

Every keyring call runs in a daemon thread with a timeout: a locked wallet can block for tens
of seconds and must neither freeze the event loop nor keep the process alive at exit.
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from desktop.core.config.loader import config_origin
from desktop.core.config.provider_registry import find_by_name
from desktop.core.config.schema import Config
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact, register_secret
from desktop.core.utils.threads import run_daemon, start_daemon

SERVICE = "nanobot-desktop"
SERVICE_ENV = "NANOBOT_DESKTOP_KEYRING_SERVICE"  # another service name (tests, second profile)
DEFAULT_TIMEOUT = 10.0
T = TypeVar("T")

KeySource = Literal["keyring", "session", "config-ref", "config", "env", "oauth", "none"]


class KeyringUnavailable(RuntimeError):
    """No usable OS keyring (or it did not answer in time). The message says what to do (a
    :class:`~desktop.core.utils.i18n.Phrase` when it is ours: the window translates it)."""


def _alternatives(provider: str | None) -> str:
    """Where ``provider``'s key can come from without a keyring (one sentence)."""
    spec = find_by_name(provider) if provider else None
    reference = '"apiKey": "${MY_VAR}"'
    # No mention of session-only keys: they exist only in the window, which offers them itself.
    if spec is not None and spec.env_key:
        template = QT_TR_NOOP(
            "The key can instead come from the environment variable {env}, or an {reference} "
            "reference in config.json."
        )
        return Phrase(template, env=spec.env_key, reference=reference)
    if spec is not None:
        template = QT_TR_NOOP(
            "The key can instead come from an environment variable named by an {reference} "
            "reference in config.json."
        )
        return Phrase(template, reference=reference)
    template = QT_TR_NOOP(
        "The key can instead come from the provider's environment variable (e.g. "
        "OPENAI_API_KEY), or an {reference} reference in config.json."
    )
    return Phrase(template, reference=reference)


def _no_keyring_help(detail: str, provider: str | None = None) -> str:
    """The message for "no keyring": what happened and the alternatives for ``provider``."""
    template = QT_TR_NOOP("No usable OS keyring on this system ({detail}). {alternatives}")
    return Phrase(template, detail=detail, alternatives=_alternatives(provider))


@dataclass(frozen=True)
class ResolvedKey:
    """A provider key and where it came from. ``repr`` never shows the value.

    For an OAuth provider (source ``oauth``) ``signed_in`` says whether someone is signed in
    and ``detail`` who; the tokens themselves are never put in ``value``.
    """

    provider: str
    value: str | None = field(repr=False, default=None)
    source: KeySource = "none"
    detail: str = ""
    signed_in: bool = False  # an OAuth sign-in stands in for the key (``value`` stays None)

    @property
    def found(self) -> bool:
        """Whether a non-empty key (or an OAuth sign-in) was found."""
        return bool(self.value) or self.signed_in


class SecretStore:
    """Keys per provider: the OS keyring, with a session-only fallback.

    Args:
        service: Keyring service name; default ``$NANOBOT_DESKTOP_KEYRING_SERVICE`` or
            ``nanobot-desktop``.
        timeout: Seconds to wait for any keyring call.
    """

    def __init__(self, service: str | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.service = service or os.environ.get(SERVICE_ENV) or SERVICE
        self.timeout = timeout
        self._session: dict[str, str] = {}
        self._backend_checked: tuple[bool, str] | None = None

    # -- plumbing -------------------------------------------------------------------------
    def _call(self, fn: Callable[[], T], provider: str | None = None) -> T:
        try:
            return start_daemon(fn, "keyring-call").result(self.timeout)
        except concurrent.futures.TimeoutError:
            # A wallet that hangs once will hang again: stop asking for this session.
            self._backend_checked = (False, f"timed out after {self.timeout:g} s")
            template = QT_TR_NOOP(
                "The OS keyring did not answer within {seconds} s (is the wallet locked?). "
                "{alternatives}"
            )
            message = Phrase(
                template, seconds=f"{self.timeout:g}", alternatives=_alternatives(provider)
            )
            raise KeyringUnavailable(message) from None
        except KeyringUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - any keyring failure becomes KeyringUnavailable
            raise self._translate(exc, provider) from None

    def _translate(self, exc: Exception, provider: str | None = None) -> KeyringUnavailable:
        return KeyringUnavailable(
            _no_keyring_help(redact(f"{type(exc).__name__}: {exc}"), provider)
        )

    def _probe(self) -> tuple[bool, str]:
        import keyring
        from keyring.backends import fail

        try:
            backend = keyring.get_keyring()
        except Exception as exc:  # noqa: BLE001 - a broken backend module or keyring config file
            return False, redact(f"{type(exc).__name__}: {exc}")
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        try:
            priority = float(backend.priority)
        except Exception:  # noqa: BLE001 - no usable priority counts as 0
            priority = 0.0
        usable = (
            not isinstance(backend, fail.Keyring) and "null" not in name.lower() and priority > 0
        )
        chained = getattr(backend, "backends", None)
        if chained is not None and not chained:
            usable = False
        return usable, name

    # -- backend --------------------------------------------------------------------------
    def backend_status(self) -> tuple[bool, str]:
        """``(usable, backend name)``; cached after the first probe."""
        if self._backend_checked is None:
            try:
                self._backend_checked = self._call(self._probe)
            except KeyringUnavailable:
                # _call has recorded why (a timeout); keep that short reason.
                if self._backend_checked is None:
                    self._backend_checked = (False, "the keyring backend did not load")
        return self._backend_checked

    def _require_backend(self, provider: str | None = None) -> None:
        usable, name = self.backend_status()
        if not usable:
            raise KeyringUnavailable(_no_keyring_help(name, provider))

    # -- sync API (CLI) -------------------------------------------------------------------
    def get(self, provider: str) -> str | None:
        """The key stored for ``provider`` (keyring or session), or ``None``."""
        if provider in self._session:
            return self._session[provider]
        return self.get_stored(provider)

    def get_stored(self, provider: str) -> str | None:
        """The key in the OS keyring only (a session-only key is ignored), or ``None``.

        Raises:
            KeyringUnavailable: The keyring failed or did not answer in time.
        """
        if not self.backend_status()[0]:
            return None
        import keyring

        value = self._call(lambda: keyring.get_password(self.service, provider), provider)
        register_secret(value)
        return value or None

    def set(self, provider: str, value: str) -> None:
        """Store a key in the keyring.

        Raises:
            KeyringUnavailable: No keyring; nothing was stored (see :meth:`set_session`).
            ValueError: Empty key.
        """
        value = value.strip()
        if not value:
            raise ValueError("the key is empty")
        register_secret(value)
        self._require_backend(provider)
        import keyring

        self._call(lambda: keyring.set_password(self.service, provider, value), provider)
        self._session.pop(provider, None)

    def set_session(self, provider: str, value: str) -> None:
        """Hold a key in memory for this session only (no keyring needed)."""
        value = value.strip()
        if not value:
            raise ValueError("the key is empty")
        register_secret(value)
        self._session[provider] = value

    def delete(self, provider: str) -> bool:
        """Remove a stored key; returns whether one existed.

        Raises:
            KeyringUnavailable: No usable keyring (and no session-only key was removed), so
                whether the keyring holds a key is unknown.
        """
        existed = self._session.pop(provider, None) is not None
        if not self.backend_status()[0]:
            if existed:
                return True
            self._require_backend(provider)
        import keyring
        from keyring.errors import PasswordDeleteError

        def remove() -> bool:
            try:
                keyring.delete_password(self.service, provider)
            except PasswordDeleteError:
                return False
            return True

        return self._call(remove, provider) or existed

    # -- async API (GUI, agent) -----------------------------------------------------------
    # Daemon threads, not ``asyncio.to_thread``: ``asyncio.run`` waits for the default
    # executor's threads at exit, so a hung keyring would delay quitting by the timeout.
    async def aget(self, provider: str) -> str | None:
        """Async :meth:`get`; runs in a worker thread, bounded by the timeout."""
        return await run_daemon(lambda: self.get(provider), "keyring-aget")

    async def aset(self, provider: str, value: str) -> None:
        """Async :meth:`set`."""
        await run_daemon(lambda: self.set(provider, value), "keyring-aset")

    async def adelete(self, provider: str) -> bool:
        """Async :meth:`delete`."""
        return await run_daemon(lambda: self.delete(provider), "keyring-adelete")

    # -- resolution -----------------------------------------------------------------------
    def resolve(
        self, provider: str, config: Config, environ: Mapping[str, str] | None = None
    ) -> ResolvedKey:
        """Find ``provider``'s key: keyring/session, then config, then the standard env var."""
        env = os.environ if environ is None else environ
        if provider in self._session:
            return ResolvedKey(
                provider,
                self._session[provider],
                "session",
                Phrase(QT_TR_NOOP("held for this session")),
            )
        try:
            stored = self.get(provider)
        except KeyringUnavailable:
            stored = None
        if stored:
            where = Phrase(QT_TR_NOOP("keyring {entry}"), entry=f"{self.service}/{provider}")
            return ResolvedKey(provider, stored, "keyring", where)
        section = config.provider_config(provider)
        if section and section.api_key:
            preserved = config_origin(config).preserved
            entry = next(
                (
                    entry
                    for path, entry in preserved.items()
                    if len(path) == 3
                    and path[0] == "providers"
                    and path[1] in (provider, _camel(provider))
                    and path[2] in ("apiKey", "api_key")
                ),
                None,
            )
            raw = entry[0] if entry is not None else None
            if isinstance(raw, str) and "${" in raw:
                where = Phrase(QT_TR_NOOP("config.json reference {reference}"), reference=raw)
                return ResolvedKey(provider, section.api_key, "config-ref", where)
            if entry is not None:
                # Not the file's value: a NANOBOT_PROVIDERS__<NAME>__API_KEY override.
                variable = f"NANOBOT_PROVIDERS__{provider.upper()}__API_KEY"
                where = Phrase(QT_TR_NOOP("environment override {variable}"), variable=variable)
                return ResolvedKey(provider, section.api_key, "env", where)
            where = Phrase(QT_TR_NOOP("config.json (plaintext; run 'keys migrate')"))
            return ResolvedKey(provider, section.api_key, "config", where)
        spec = find_by_name(provider)
        if spec and spec.env_key and env.get(spec.env_key):
            value = env[spec.env_key]
            register_secret(value)
            where = Phrase(QT_TR_NOOP("environment variable {variable}"), variable=spec.env_key)
            return ResolvedKey(provider, value, "env", where)
        return ResolvedKey(provider)

    async def aresolve(
        self, provider: str, config: Config, environ: Mapping[str, str] | None = None
    ) -> ResolvedKey:
        """Async :meth:`resolve` (the keyring part runs in a thread)."""
        return await run_daemon(lambda: self.resolve(provider, config, environ), "keyring-aresolve")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
