"""OAuth tokens of one provider, kept as one entry in the OS keyring.

The entry lives where an API key of that provider would (service ``nanobot-desktop``, username
= registry name), so ``keys list`` and the keyring's own tools show it in the usual place. Its
value is a small JSON object (split over ``<name>#1``, ``<name>#2``… when it is longer than
Windows' credential store allows); it never touches a file or a log (every token is registered
with :func:`desktop.core.utils.redact.register_secret` as soon as it is read or received).
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from desktop.core.config.secrets import SecretStore
from desktop.core.utils.redact import register_secret
from desktop.core.utils.threads import run_daemon

FORMAT = "nanobot-desktop-oauth/1"
PARTS_FORMAT = "nanobot-desktop-oauth-parts/1"
# Windows' credential store holds at most 2,560 bytes (1,280 UTF-16 characters) per entry and a
# ChatGPT access token alone is longer: longer values are split over extra entries.
PART_CHARS = 1000
EXPIRY_SKEW_S = 60.0  # refresh this long before the access token expires


@dataclass(frozen=True)
class OAuthTokens:
    """What a sign-in left us with. ``repr`` never shows a token.

    Attributes:
        provider: Registry name (``openai_codex``, ``github_copilot``).
        access: The access token sent with requests (GitHub: the GitHub token that is
            exchanged for short-lived Copilot tokens).
        refresh: The refresh token (``""`` when the provider gave none).
        expires_at: When ``access`` expires (epoch seconds); ``None`` = it does not.
        account: Who signed in, for people: an email address or a GitHub login.
        account_id: The provider's account id where requests need it (ChatGPT).
        signed_in_at: When the sign-in happened (epoch seconds).
    """

    provider: str
    access: str = field(repr=False)
    refresh: str = field(repr=False, default="")
    expires_at: float | None = None
    account: str = ""
    account_id: str = ""
    signed_in_at: float = 0.0

    def expiring(self, *, now: float | None = None, skew: float = EXPIRY_SKEW_S) -> bool:
        """Whether ``access`` has expired or will within ``skew`` seconds."""
        if self.expires_at is None:
            return False
        return (time.time() if now is None else now) >= self.expires_at - skew

    def to_json(self) -> str:
        """The keyring value."""
        data: dict[str, Any] = {"format": FORMAT, **asdict(self)}
        # No blank anywhere (spaces inside strings escaped): the store trims values, and a
        # value split into parts must not lose a space at a cut.
        return json.dumps(data, separators=(",", ":")).replace(" ", "\\u0020")

    @classmethod
    def from_json(cls, provider: str, text: str | None) -> OAuthTokens | None:
        """Parse a keyring value; ``None`` when it is missing or not ours (e.g. an API key
        stored under that name by hand)."""
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        access = data.get("access")
        if not isinstance(access, str) or not access:
            return None
        expires = data.get("expires_at")
        tokens = cls(
            provider=provider,
            access=access,
            refresh=str(data.get("refresh") or ""),
            expires_at=float(expires) if isinstance(expires, (int, float)) else None,
            account=str(data.get("account") or ""),
            account_id=str(data.get("account_id") or ""),
            signed_in_at=float(data.get("signed_in_at") or 0.0),
        )
        tokens.register()
        return tokens

    def register(self) -> None:
        """Make :func:`~desktop.core.utils.redact.redact` mask these tokens everywhere."""
        register_secret(self.access)
        register_secret(self.refresh)

    def replaced(self, **changes: Any) -> OAuthTokens:
        """A copy with ``changes`` (new tokens registered for redaction)."""
        tokens = replace(self, **changes)
        tokens.register()
        return tokens


def jwt_claims(token: str | None) -> dict[str, Any]:
    """The claims of a JWT, read without checking the signature (only to show who signed in
    and when the token expires; the server checks it). ``{}`` when it is not a JWT."""
    if not token or token.count(".") != 2:
        return {}
    payload = token.split(".")[1]
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        data = json.loads(raw)
    except (ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


class TokenVault:
    """Read, write and delete :class:`OAuthTokens` in the OS keyring through a SecretStore.

    The sync methods block (keyring calls, bounded by the store's timeout); the ``a``-methods
    run them in daemon threads.

    Args:
        store: The app's secret store (its service name is the keyring service).
    """

    def __init__(self, store: SecretStore) -> None:
        self.store = store

    @staticmethod
    def part_name(provider: str, index: int) -> str:
        """The keyring username of part ``index`` (1-based) of a long value."""
        return f"{provider}#{index}"

    def _parts(self, head: str | None) -> int:
        """How many extra entries ``head`` says the value was split over (0: none)."""
        if not head or PARTS_FORMAT not in head:
            return 0
        try:
            data = json.loads(head)
        except ValueError:
            return 0
        parts = data.get("parts") if isinstance(data, dict) else None
        return parts if isinstance(parts, int) and 0 < parts < 100 else 0

    def load(self, provider: str) -> OAuthTokens | None:
        """The stored tokens, or ``None`` when signed out.

        Raises:
            KeyringUnavailable: The keyring failed or did not answer.
        """
        return OAuthTokens.from_json(provider, self.read_text(provider))

    def read_text(self, name: str) -> str | None:
        """The value stored under ``name`` (joined again when split), or ``None``.

        Raises:
            KeyringUnavailable: The keyring failed or did not answer.
        """
        head = self.store.get_stored(name)
        parts = self._parts(head)
        if parts:
            pieces = [self.store.get_stored(self.part_name(name, i)) for i in range(1, parts + 1)]
            if any(piece is None for piece in pieces):
                return None  # a value half written or half deleted: signed out
            head = "".join(piece or "" for piece in pieces)
        return head

    def save(self, tokens: OAuthTokens) -> None:
        """Store ``tokens`` (replacing what was there), split over several entries when long.

        Raises:
            KeyringUnavailable: No keyring; nothing was stored.
        """
        tokens.register()
        self.write_text(tokens.provider, tokens.to_json())

    def write_text(self, name: str, text: str) -> None:
        """Store ``text`` under ``name``, split over ``name#1``, ``name#2``… when long.

        The parts are written before the entry that points at them, so a reader never finds
        a pointer to parts that are not there yet.

        Raises:
            KeyringUnavailable: No keyring; nothing was stored.
        """
        before = self._parts(self.store.get_stored(name))
        chunks = [text[i : i + PART_CHARS] for i in range(0, len(text), PART_CHARS)]
        if len(chunks) == 1:
            self.store.set(name, text)
            chunks = []
        else:
            for index, chunk in enumerate(chunks, start=1):
                self.store.set(self.part_name(name, index), chunk)
            self.store.set(name, json.dumps({"format": PARTS_FORMAT, "parts": len(chunks)}))
        for index in range(len(chunks) + 1, before + 1):
            self.store.delete(self.part_name(name, index))

    def delete(self, provider: str) -> bool:
        """Forget the tokens (every part); whether there were any."""
        parts = self._parts(self.store.get_stored(provider))
        existed = self.store.delete(provider)
        for index in range(1, parts + 1):
            self.store.delete(self.part_name(provider, index))
        return existed

    async def aload(self, provider: str) -> OAuthTokens | None:
        """Async :meth:`load`."""
        return await run_daemon(lambda: self.load(provider), "oauth-load")

    async def asave(self, tokens: OAuthTokens) -> None:
        """Async :meth:`save`."""
        await run_daemon(lambda: self.save(tokens), "oauth-save")

    async def adelete(self, provider: str) -> bool:
        """Async :meth:`delete`."""
        return await run_daemon(lambda: self.delete(provider), "oauth-delete")
