"""An in-memory keyring backend for unit tests (the real Secret Service has its own tier)."""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """Stores passwords in a dict; counts calls so tests can see the keyring was used."""

    priority = 1
    # keyring auto-detects every imported KeyringBackend subclass: without this the fake would
    # become the process default (or, beside a real Secret Service, be chained behind it).
    # Tests install it explicitly through the ``memory_keyring`` fixture.
    viable = False

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's KeyringBackend.__init__ has no annotations
        self.store: dict[tuple[str, str], str] = {}
        self.calls = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.calls += 1
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.calls += 1
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.calls += 1
        if (service, username) not in self.store:
            raise PasswordDeleteError("not found")
        del self.store[(service, username)]
