"""The real OS keyring for the ``keyring_real`` tier (a Secret Service under scripts/test.sh).

Tests using it get a unique keyring service name, so a developer's own ``nanobot-desktop``
entries are never read or touched, and every entry under that name is removed afterwards.
Without a usable keyring these tests skip, unless ``NANOBOT_TEST_REQUIRE_KEYRING=1`` (as in
scripts/test.sh), where they fail loudly instead.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import keyring
import pytest

from desktop.core.config.provider_registry import PROVIDERS
from desktop.core.config.secrets import KeyringUnavailable, SecretStore
from tests.fakes.memory_keyring import MemoryKeyring

REQUIRE_ENV = "NANOBOT_TEST_REQUIRE_KEYRING"
_problem: list[str | None] = []  # cached probe result: [None] = usable, [reason] = not


def _find_problem() -> str | None:
    """Why the real keyring cannot be used, or ``None`` when a round trip works."""
    from keyring.backends import fail

    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if isinstance(backend, (fail.Keyring, MemoryKeyring)) or "null" in name.lower():
        return f"no real keyring backend (got {name})"
    if sys.platform.startswith("linux") and "SecretService" not in name:
        return f"the keyring backend is {name}, not the Secret Service"
    service = f"nanobot-desktop-probe-{uuid.uuid4().hex[:12]}"
    store = SecretStore(service, timeout=15)
    try:
        store.set("openai", "probe-value-0123456789")
        ok = store.get_stored("openai") == "probe-value-0123456789"
        store.delete("openai")
    except KeyringUnavailable as exc:
        return f"the Secret Service does not work: {exc}"
    return None if ok else "the Secret Service did not return a stored value"


def real_keyring_problem() -> str | None:
    """Cached :func:`_find_problem`."""
    if not _problem:
        _problem.append(_find_problem())
    return _problem[0]


def require_real_keyring() -> None:
    """Skip (or, with NANOBOT_TEST_REQUIRE_KEYRING=1, fail) without a usable real keyring."""
    problem = real_keyring_problem()
    if problem is None:
        return
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {problem} (run through scripts/test.sh)", pytrace=False)
    pytest.skip(f"{problem}; run through scripts/test.sh for this tier")


@dataclass(frozen=True)
class RealKeyring:
    """A unique service name in the real keyring, emptied after the test."""

    service: str

    def get(self, provider: str) -> str | None:
        """Read an entry straight through the ``keyring`` API."""
        return keyring.get_password(self.service, provider)


@pytest.fixture
def real_keyring() -> Iterator[RealKeyring]:
    """The real keyring under a unique service name (skips or fails when there is none)."""
    require_real_keyring()
    handle = RealKeyring(f"nanobot-desktop-test-{uuid.uuid4().hex[:12]}")
    yield handle
    for spec in PROVIDERS:
        # OAuth sign-ins longer than one entry take extra entries NAME#1, NAME#2, ...
        extra = [f"{spec.name}#{i}" for i in range(1, 10)] if spec.oauth else []
        for name in (spec.name, *extra):
            try:
                keyring.delete_password(handle.service, name)
            except Exception:  # noqa: BLE001 - not there (the usual case)
                pass
