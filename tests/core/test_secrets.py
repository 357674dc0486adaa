"""Provider keys: the keyring store, key resolution, migration and the ``keys`` command.

The unit tier: an in-memory keyring (or the 'fail' backend, or deliberately slow/hanging
backends) swapped in for the process. ``test_keyring_real.py`` covers the real Secret Service.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked, PasswordDeleteError

from desktop.cli import main as cli_main
from desktop.core.config.errors import ConfigError
from desktop.core.config.loader import load_config
from desktop.core.config.migrate import migrate_plaintext_keys, plaintext_keys
from desktop.core.config.schema import Config
from desktop.core.config.secrets import (
    SERVICE,
    SERVICE_ENV,
    KeyringUnavailable,
    ResolvedKey,
    SecretStore,
)
from desktop.core.utils.tasks import cancel_and_wait
from tests.cli_runner import logging_restored
from tests.conftest import write_config
from tests.fakes.memory_keyring import MemoryKeyring

SVC = "nanobot-desktop-unit"


# -- backends that misbehave --------------------------------------------------------------
# ``viable = False``: keyring auto-detects every imported KeyringBackend subclass; these must
# only ever be used when a test installs them explicitly.
class HangingKeyring(KeyringBackend):
    """A keyring whose every call blocks (a locked wallet waiting for a prompt nobody sees)."""

    priority = 1
    viable = False

    def __init__(self, seconds: float = 30.0) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's KeyringBackend.__init__ has no annotations
        self.seconds = seconds
        self.release = threading.Event()
        self.calls = 0

    def _hang(self) -> None:
        self.calls += 1
        self.release.wait(self.seconds)

    def get_password(self, service: str, username: str) -> str | None:
        self._hang()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._hang()

    def delete_password(self, service: str, username: str) -> None:
        self._hang()


class SlowKeyring(MemoryKeyring):
    """An in-memory keyring that takes ``delay`` seconds per call (time.sleep: blocking)."""

    viable = False

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def get_password(self, service: str, username: str) -> str | None:
        time.sleep(self.delay)
        return super().get_password(service, username)

    def set_password(self, service: str, username: str, password: str) -> None:
        time.sleep(self.delay)
        super().set_password(service, username, password)


class LockedKeyring(KeyringBackend):
    """A keyring that is there but refuses (a collection that cannot be unlocked)."""

    priority = 1
    viable = False

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's KeyringBackend.__init__ has no annotations

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("Failed to unlock the collection!")

    def delete_password(self, service: str, username: str) -> None:
        raise PasswordDeleteError("locked")


@contextmanager
def using(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    """Make ``backend`` the process keyring for the block."""
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def hanging_keyring() -> Iterator[HangingKeyring]:
    backend = HangingKeyring()
    with using(backend):
        yield backend
    backend.release.set()  # let the abandoned daemon threads finish


@pytest.fixture
def store(memory_keyring: MemoryKeyring) -> SecretStore:
    return SecretStore(SVC, timeout=5)


def _fake_key(label: str) -> str:
    return f"sk-{label}-{os.urandom(8).hex()}"


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text and 'File "' not in text and "\n  " not in text


# -- set / get / delete -------------------------------------------------------------------
def test_set_get_delete_round_trip(store: SecretStore, memory_keyring: MemoryKeyring) -> None:
    """A key lands in the keyring under (service, provider) and comes back; delete removes it."""
    key = _fake_key("rt")
    store.set("openai", f"  {key}\n")  # pasted with whitespace
    assert memory_keyring.store == {(SVC, "openai"): key}
    assert store.get("openai") == key
    assert store.get("anthropic") is None
    # A second store (a later run) sees the same keyring entry.
    assert SecretStore(SVC).get("openai") == key
    assert store.delete("openai") is True
    assert memory_keyring.store == {}
    assert store.get("openai") is None
    assert store.delete("openai") is False


def test_service_name_from_environment(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NANOBOT_DESKTOP_KEYRING_SERVICE picks the service; the default is nanobot-desktop."""
    assert SecretStore().service == SERVICE == "nanobot-desktop"
    monkeypatch.setenv(SERVICE_ENV, "nanobot-desktop-other-profile")
    other = SecretStore()
    other.set("groq", "gsk-profile-key-123456")
    assert memory_keyring.store == {
        ("nanobot-desktop-other-profile", "groq"): "gsk-profile-key-123456"
    }
    monkeypatch.delenv(SERVICE_ENV)
    assert SecretStore().get("groq") is None


@pytest.mark.parametrize("empty", ["", "   ", "\n\t"])
def test_empty_key_is_rejected(
    store: SecretStore, memory_keyring: MemoryKeyring, empty: str
) -> None:
    """Nothing is stored for an empty key, in the keyring or for the session."""
    with pytest.raises(ValueError, match="empty"):
        store.set("openai", empty)
    with pytest.raises(ValueError, match="empty"):
        store.set_session("openai", empty)
    assert memory_keyring.store == {} and store.get("openai") is None


async def test_async_round_trip(store: SecretStore, memory_keyring: MemoryKeyring) -> None:
    """aset / aget / adelete do what their sync twins do."""
    await store.aset("deepseek", "sk-async-0123456789")
    assert memory_keyring.store[(SVC, "deepseek")] == "sk-async-0123456789"
    assert await store.aget("deepseek") == "sk-async-0123456789"
    assert await store.adelete("deepseek") is True
    assert await store.aget("deepseek") is None


# -- resolution order ---------------------------------------------------------------------
def _config(
    tmp_path: Path,
    providers: dict[str, Any],
    environ: dict[str, str] | None = None,
    name: str = "config.json",
) -> Config:
    path = write_config(tmp_path / name, {"providers": providers})
    return load_config(path, environ=environ or {})


def test_resolve_order(store: SecretStore, tmp_path: Path) -> None:
    """keyring > config ${VAR} reference > plaintext config apiKey > provider env var > none."""
    k_ring, k_ref, k_plain, k_env = (_fake_key(x) for x in ("ring", "ref", "plain", "env"))
    environ = {"MY_OPENAI": k_ref, "OPENAI_API_KEY": k_env}
    with_ref = _config(tmp_path, {"openai": {"apiKey": "${MY_OPENAI}"}}, environ, "ref.json")
    with_plain = _config(tmp_path, {"openai": {"apiKey": k_plain}}, environ, "plain.json")
    without = _config(
        tmp_path, {"openai": {"apiBase": "https://example.invalid/v1"}}, environ, "none.json"
    )

    store.set("openai", k_ring)
    for config in (with_ref, with_plain, without):
        key = store.resolve("openai", config, environ)
        assert (key.value, key.source) == (k_ring, "keyring")
        assert key.detail == f"keyring {SVC}/openai"
    store.delete("openai")

    key = store.resolve("openai", with_ref, environ)
    assert (key.value, key.source) == (k_ref, "config-ref")
    assert key.detail == "config.json reference ${MY_OPENAI}"

    key = store.resolve("openai", with_plain, environ)
    assert (key.value, key.source) == (k_plain, "config")
    assert "keys migrate" in key.detail

    key = store.resolve("openai", without, environ)
    assert (key.value, key.source) == (k_env, "env")
    assert key.detail == "environment variable OPENAI_API_KEY"

    key = store.resolve("openai", without, {})
    assert (key.value, key.source, key.found) == (None, "none", False)

    # No detail ever carries the value.
    for config in (with_ref, with_plain, without):
        assert all(
            k not in store.resolve("openai", config, environ).detail
            for k in (k_ring, k_ref, k_plain, k_env)
        )


def test_resolve_unset_reference_falls_through_to_env(store: SecretStore, tmp_path: Path) -> None:
    """A ${VAR} whose variable is not set is no key: the standard env var is used."""
    config = _config(tmp_path, {"anthropic": {"apiKey": "${NOT_SET_ANYWHERE}"}})
    key = store.resolve("anthropic", config, {"ANTHROPIC_API_KEY": "sk-ant-env-0123456789"})
    assert (key.value, key.source) == ("sk-ant-env-0123456789", "env")


def test_resolve_snake_case_sections(store: SecretStore, tmp_path: Path) -> None:
    """Both spellings of a section and of apiKey are read; references are recognised in both."""
    providers = {
        "lmStudio": {"api_key": "${LMS_KEY}"},
        "openrouter": {"api_key": "sk-or-plain-123456"},
    }
    config = _config(tmp_path, providers, {"LMS_KEY": "lms-secret-123456"})
    lm = store.resolve("lm_studio", config, {})
    assert (lm.value, lm.source) == ("lms-secret-123456", "config-ref")
    gw = store.resolve("openrouter", config, {})
    assert (gw.value, gw.source) == ("sk-or-plain-123456", "config")


def test_resolve_names_an_environment_override(store: SecretStore, tmp_path: Path) -> None:
    """A NANOBOT_PROVIDERS__X__API_KEY override is not called a plaintext config key."""
    path = write_config(tmp_path / "config.json", {"providers": {"openai": {}}})
    config = load_config(
        path, environ={"NANOBOT_PROVIDERS__OPENAI__API_KEY": "sk-override-0123456789"}
    )
    key = store.resolve("openai", config, {})
    assert (key.value, key.source) == ("sk-override-0123456789", "env")
    assert "NANOBOT_PROVIDERS__OPENAI__API_KEY" in key.detail and "migrate" not in key.detail


def test_session_key_wins_and_stays_out_of_the_keyring(
    store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """A session-only key is used first and never written anywhere."""
    config = _config(tmp_path, {"openai": {"apiKey": "sk-plain-0123456789"}})
    store.set_session("openai", "sk-session-0123456789")
    key = store.resolve("openai", config, {"OPENAI_API_KEY": "sk-env-0123456789"})
    assert (key.value, key.source) == ("sk-session-0123456789", "session")
    assert memory_keyring.store == {}
    assert store.delete("openai") is True
    assert store.resolve("openai", config, {}).source == "config"


def test_keys_never_reach_os_environ(store: SecretStore, tmp_path: Path) -> None:
    """Neither storing nor resolving (from any source) puts a key into os.environ."""
    before = dict(os.environ)
    k_ring, k_ref, k_env = _fake_key("ring"), _fake_key("ref"), _fake_key("env")
    environ = {"MY_REF": k_ref, "OPENAI_API_KEY": k_env, "ANTHROPIC_API_KEY": k_env}
    config = _config(tmp_path, {"deepseek": {"apiKey": "${MY_REF}"}}, environ)
    store.set("openai", k_ring)
    store.set_session("groq", "gsk-session-0123456789")
    found = [
        store.resolve(name, config, environ) for name in ("openai", "deepseek", "anthropic", "groq")
    ]
    assert [k.source for k in found] == ["keyring", "config-ref", "env", "session"]
    assert dict(os.environ) == before
    for value in (k_ring, k_ref, k_env, "gsk-session-0123456789"):
        assert not any(value in v for v in os.environ.values())


def test_resolved_key_repr_hides_the_value() -> None:
    """repr/str of a ResolvedKey (what a log line or a traceback would show) omit the value."""
    key = ResolvedKey("openai", "sk-repr-secret-0123456789", "keyring", "keyring x/openai")
    assert "sk-repr-secret" not in repr(key) and "sk-repr-secret" not in str(key)
    assert "openai" in repr(key) and "keyring" in repr(key)
    assert key.found and not ResolvedKey("openai").found and not ResolvedKey("openai", "").found


# -- no keyring -----------------------------------------------------------------------------
@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_set_explains_the_alternatives(tmp_path: Path) -> None:
    """'fail' backend: set raises a short, actionable KeyringUnavailable naming the variable."""
    store = SecretStore(SVC)
    assert store.backend_status() == (False, "keyring.backends.fail.Keyring")
    for provider, variable in (("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")):
        with pytest.raises(KeyringUnavailable) as info:
            store.set(provider, "sk-nokeyring-0123456789")
        message = str(info.value)
        assert "No usable OS keyring" in message
        assert variable in message and '"apiKey": "${MY_VAR}"' in message
        assert "sk-nokeyring" not in message
        _no_traceback(message)
    with pytest.raises(KeyringUnavailable) as info:
        store.set("custom", "sk-nokeyring-0123456789")
    assert "OPENAI_API_KEY" not in str(info.value) and "${MY_VAR}" in str(info.value)


@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_resolve_still_finds_env_and_config(tmp_path: Path) -> None:
    """Without a keyring, env keys and ${VAR} references still work."""
    store = SecretStore(SVC)
    config = _config(tmp_path, {"deepseek": {"apiKey": "${DS}"}}, {"DS": "sk-ds-ref-0123456789"})
    env = {"OPENAI_API_KEY": "sk-env-0123456789"}
    assert store.get("openai") is None
    key = store.resolve("openai", config, env)
    assert (key.value, key.source) == ("sk-env-0123456789", "env")
    assert store.resolve("deepseek", config, env).source == "config-ref"
    assert store.resolve("anthropic", config, env).source == "none"


@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_session_fallback(tmp_path: Path) -> None:
    """set_session holds the key in memory when the keyring cannot; delete forgets it."""
    store = SecretStore(SVC)
    config = _config(tmp_path, {})
    store.set_session("openai", " sk-session-0123456789 ")
    assert store.get("openai") == "sk-session-0123456789"
    key = store.resolve("openai", config, {"OPENAI_API_KEY": "sk-env-0123456789"})
    assert (key.value, key.source) == ("sk-session-0123456789", "session")
    assert SecretStore(SVC).get("openai") is None  # not persisted anywhere
    assert store.delete("openai") is True
    assert store.get("openai") is None
    # Nothing held and no keyring: whether a key is stored is unknown, so say so.
    with pytest.raises(KeyringUnavailable, match="OPENAI_API_KEY"):
        store.delete("openai")


def test_backend_errors_become_keyring_unavailable(tmp_path: Path) -> None:
    """A keyring that is there but refuses: KeyringUnavailable with the provider's hint."""
    store = SecretStore(SVC)
    with using(LockedKeyring()):
        assert store.backend_status()[0] is True
        with pytest.raises(KeyringUnavailable) as info:
            store.set("anthropic", "sk-ant-locked-0123456789")
        message = str(info.value)
        assert "KeyringLocked" in message and "ANTHROPIC_API_KEY" in message
        assert "sk-ant-locked" not in message
        _no_traceback(message)
        assert info.value.__cause__ is None and info.value.__suppress_context__
        # resolve never raises: it moves on to the other sources.
        env = {"ANTHROPIC_API_KEY": "sk-ant-env-0123456789"}
        key = store.resolve("anthropic", _config(tmp_path, {}), env)
        assert key.source == "env"


# -- a keyring that hangs -----------------------------------------------------------------
def test_hanging_keyring_times_out_once(hanging_keyring: HangingKeyring, tmp_path: Path) -> None:
    """A hung get_password costs one timeout; afterwards nothing waits on the keyring again."""
    store = SecretStore(SVC, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(KeyringUnavailable) as info:
        store.get("openai")
    elapsed = time.monotonic() - started
    assert 0.45 <= elapsed < 3.0, elapsed
    assert "did not answer within 0.5 s" in str(info.value) and "OPENAI_API_KEY" in str(info.value)
    assert hanging_keyring.calls == 1

    config = _config(tmp_path, {})
    assert store.get("openai") is None
    key = store.resolve("openai", config, {"OPENAI_API_KEY": "sk-env-0123456789"})
    with pytest.raises(KeyringUnavailable, match=r"timed out after 0\.5 s"):
        store.set("openai", "sk-new-0123456789")
    assert (key.value, key.source) == ("sk-env-0123456789", "env")
    assert store.backend_status() == (False, "timed out after 0.5 s")
    assert hanging_keyring.calls == 1  # never asked again


def test_hanging_keyring_in_resolve_falls_back(
    hanging_keyring: HangingKeyring, tmp_path: Path
) -> None:
    """resolve bounded by the timeout, then the config key is used."""
    store = SecretStore(SVC, timeout=0.5)
    config = _config(tmp_path, {"openai": {"apiKey": "sk-plain-0123456789"}})
    started = time.monotonic()
    key = store.resolve("openai", config, {})
    assert time.monotonic() - started < 3.0
    assert (key.value, key.source) == ("sk-plain-0123456789", "config")


async def test_async_hang_does_not_block_the_loop(hanging_keyring: HangingKeyring) -> None:
    """aget on a hung keyring: the loop keeps running, the await ends with KeyringUnavailable."""
    store = SecretStore(SVC, timeout=0.5)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    before = ticks
    started = time.monotonic()
    with pytest.raises(KeyringUnavailable):
        await store.aget("openai")
    assert time.monotonic() - started < 3.0
    await cancel_and_wait(task)
    assert ticks - before >= 5, ticks - before  # ≈50 at 10 ms per tick; a blocked loop: 0


async def test_async_calls_do_not_block_the_loop() -> None:
    """A slow (blocking) backend under aset/aget/aresolve: a concurrent task keeps ticking."""
    backend = SlowKeyring(delay=0.4)
    with using(backend):
        store = SecretStore(SVC, timeout=5)
        store.backend_status()
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        await asyncio.sleep(0.05)
        calls: tuple[Callable[[], Awaitable[object]], ...] = (
            lambda: store.aset("openai", "sk-slow-0123456789"),
            lambda: store.aget("openai"),
        )
        for call in calls:
            before, started = ticks, time.monotonic()
            await call()
            assert time.monotonic() - started >= 0.35
            assert ticks - before >= 5, ticks - before  # ≈40; a blocked loop would tick 0 times
        assert backend.store[(SVC, "openai")] == "sk-slow-0123456789"
        await cancel_and_wait(task)


# -- migration --------------------------------------------------------------------------------
def _legacy_config(tmp_path: Path, openai: str, anthropic: str) -> tuple[Path, dict[str, Any]]:
    data = {
        "agents": {
            "defaults": {
                "model": "gpt-4o-mini",
                "workspace": str(tmp_path / "ws"),
                "maxToolIterations": 7,
            }
        },
        "providers": {
            "openai": {"apiKey": openai, "apiBase": None, "extraHeaders": {"X-Org": "org-1"}},
            "anthropic": {"apiKey": anthropic},
            "deepseek": {"apiKey": "${DEEPSEEK_KEY}", "apiBase": "https://api.deepseek.com"},
            "groq": {"apiKey": ""},
            "lmStudio": {"apiKey": None, "apiBase": "http://127.0.0.1:1234/v1"},
        },
        "channels": {"telegram": {"enabled": False, "allowFrom": ["me"]}},
        "someFutureSection": {"kept": [1, 2, {"x": "y"}]},
    }
    path = write_config(tmp_path / "config.json", data)
    path.chmod(0o644)
    return path, data


def test_migrate_moves_plaintext_keys(
    store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """Both plaintext keys move; the file loses only them; ${VAR} and the rest stay."""
    k_openai, k_anthropic = _fake_key("openai"), "sk-ant-" + os.urandom(8).hex()
    path, original = _legacy_config(tmp_path, k_openai, k_anthropic)
    assert plaintext_keys(path) == {"openai": k_openai, "anthropic": k_anthropic}

    report = migrate_plaintext_keys(path, store)

    assert report.moved == ["openai", "anthropic"] and report.skipped == []
    assert memory_keyring.store == {(SVC, "openai"): k_openai, (SVC, "anthropic"): k_anthropic}
    text = path.read_text()
    assert k_openai not in text and k_anthropic not in text
    expected = json.loads(json.dumps(original))
    expected["providers"]["openai"]["apiKey"] = None
    expected["providers"]["anthropic"]["apiKey"] = None
    assert json.loads(text) == expected  # every other key (and ${DEEPSEEK_KEY}) unchanged
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(tmp_path) == ["config.json"]  # no temp files left beside it
    assert plaintext_keys(path) == {}
    # The migrated file still loads, and the keys now come from the keyring.
    config = load_config(path, environ={"DEEPSEEK_KEY": "sk-ds-0123456789"})
    assert store.resolve("openai", config, {}).source == "keyring"
    assert store.resolve("anthropic", config, {}).value == k_anthropic
    assert store.resolve("deepseek", config, {}).source == "config-ref"
    # Running it again finds nothing to do and leaves the file alone.
    before = path.read_bytes()
    again = migrate_plaintext_keys(path, store)
    assert (again.moved, again.skipped) == ([], []) and path.read_bytes() == before


def test_migrate_keeps_a_conflicting_key(
    store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """A keyring holding a different key wins nothing and loses nothing: that key stays in the file."""
    k_file, k_ring, k_anthropic = _fake_key("file"), _fake_key("ring"), _fake_key("ant")
    memory_keyring.store[(SVC, "openai")] = k_ring
    path, _ = _legacy_config(tmp_path, k_file, k_anthropic)

    report = migrate_plaintext_keys(path, store)

    assert report.moved == ["anthropic"]
    assert [name for name, _ in report.skipped] == ["openai"]
    assert "different key" in report.skipped[0][1]
    data = json.loads(path.read_text())
    assert data["providers"]["openai"]["apiKey"] == k_file
    assert data["providers"]["anthropic"]["apiKey"] is None
    assert memory_keyring.store[(SVC, "openai")] == k_ring


def test_migrate_same_key_already_stored(
    store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """The keyring already holds exactly the file's key: it just leaves the file."""
    k_openai, k_anthropic = _fake_key("same"), _fake_key("ant")
    memory_keyring.store[(SVC, "openai")] = k_openai
    path, _ = _legacy_config(tmp_path, k_openai, k_anthropic)
    report = migrate_plaintext_keys(path, store)
    assert report.moved == ["openai", "anthropic"] and not report.skipped
    assert k_openai not in path.read_text()


def test_migrate_ignores_session_keys(
    store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """A session-only key is not 'the keyring': the key really goes to the keyring first."""
    k_openai, k_anthropic = _fake_key("sess"), _fake_key("ant")
    path, _ = _legacy_config(tmp_path, k_openai, k_anthropic)
    store.set_session("openai", k_openai)  # same value, held in memory only
    store.set_session("anthropic", _fake_key("other"))  # a different one
    report = migrate_plaintext_keys(path, store)
    assert report.moved == ["openai", "anthropic"] and not report.skipped
    assert memory_keyring.store == {(SVC, "openai"): k_openai, (SVC, "anthropic"): k_anthropic}


def test_migrate_both_spellings_with_different_keys(
    store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """apiKey and api_key with different values: nothing is guessed, both stay in the file."""
    both = {"apiKey": "sk-first-0123456789", "api_key": "sk-second-0123456789"}
    path = write_config(tmp_path / "config.json", {"providers": {"openai": both}})
    before = path.read_bytes()
    report = migrate_plaintext_keys(path, store)
    assert report.moved == [] and [name for name, _ in report.skipped] == ["openai"]
    assert path.read_bytes() == before and memory_keyring.store == {}


def test_migrate_malformed_json(
    store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """Broken JSON: ConfigError naming the line, the file byte-identical, the keyring untouched."""
    path = tmp_path / "config.json"
    broken = b'{\n  "providers": {\n    "openai": {"apiKey": "sk-broken-0123456789",}\n  }\n}\n'
    path.write_bytes(broken)
    with pytest.raises(ConfigError) as info:
        migrate_plaintext_keys(path, store)
    assert info.value.line == 3
    assert path.read_bytes() == broken
    assert memory_keyring.calls == 0 and memory_keyring.store == {}
    assert os.listdir(tmp_path) == ["config.json"]


@pytest.mark.usefixtures("no_keyring")
def test_migrate_without_keyring_changes_nothing(tmp_path: Path) -> None:
    """No keyring: KeyringUnavailable, the file byte-identical, no temp files."""
    path, _ = _legacy_config(tmp_path, _fake_key("nk"), _fake_key("ant"))
    before = path.read_bytes()
    with pytest.raises(KeyringUnavailable, match="OPENAI_API_KEY"):
        migrate_plaintext_keys(path, SecretStore(SVC))
    assert path.read_bytes() == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert os.listdir(tmp_path) == ["config.json"]


# -- the keys command, in-process (so it can use the in-memory keyring) --------------------
RunCli = Callable[..., tuple[int, str, str]]
"""The ``run_cli`` fixture: ``run_cli(args, stdin="") -> (exit code, stdout, stderr)``."""


@pytest.fixture
def run_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[RunCli]:
    """Call the CLI entry point in-process: ``run_cli(args, stdin) -> (code, out, err)``."""
    monkeypatch.setenv(SERVICE_ENV, SVC)

    def run(args: list[str], stdin: str = "") -> tuple[int, str, str]:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = cli_main(args)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    # The CLI's log file handler and its echo of notices (bound to this test's captured
    # stderr) go with the test: a later in-process run must not write to a closed stream.
    with logging_restored():
        yield run


def test_cli_keys_set_list_delete(
    run_cli: RunCli, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """keys set/list/delete: stored under the service, listed by source, never printed."""
    key = _fake_key("cli")
    config = write_config(
        tmp_path / "config.json", {"providers": {"deepseek": {"apiKey": "${DS_KEY}"}}}
    )
    code, out, err = run_cli(
        ["keys", "set", "openai", "--stdin", "--config", str(config)], f"{key}\n"
    )
    assert code == 0, err
    assert "Stored the OpenAI key in the OS keyring" in out
    assert memory_keyring.store == {(SVC, "openai"): key}

    code, out, err = run_cli(["keys", "list", "--config", str(config)])
    assert code == 0, err
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert f"keyring {SVC}/openai" in lines["openai"]
    assert "not set" in lines["deepseek"]  # ${DS_KEY} with DS_KEY unset is no key
    assert "not set" in lines["anthropic"] and "not needed" in lines["ollama"]
    assert key not in out + err

    code, out, err = run_cli(["keys", "delete", "openai", "--config", str(config)])
    assert (code, out.strip()) == (0, "Removed the stored OpenAI key.")
    assert memory_keyring.store == {}
    code, out, err = run_cli(["keys", "delete", "openai", "--config", str(config)])
    assert (code, out.strip()) == (0, "No stored key for OpenAI.")


def test_cli_keys_set_rejects_bad_input(
    run_cli: RunCli, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """Unknown provider and empty input: usage errors, nothing stored."""
    code, _out, err = run_cli(["keys", "set", "nosuchprovider", "--stdin"], "sk-x-0123456789\n")
    assert code == 2 and "unknown provider 'nosuchprovider'" in err and "openai" in err
    code, _out, err = run_cli(["keys", "set", "openai", "--stdin"], "\n")
    assert code == 2 and "no key entered" in err
    assert memory_keyring.store == {}


@pytest.mark.usefixtures("no_keyring")
def test_cli_keys_without_keyring(run_cli: RunCli, tmp_path: Path) -> None:
    """No keyring: set fails with the alternatives (no traceback, no key); list still works."""
    key = _fake_key("nokr")
    code, out, err = run_cli(["keys", "set", "anthropic", "--stdin"], f"{key}\n")
    assert code == 1
    assert "No usable OS keyring" in err and "ANTHROPIC_API_KEY" in err and "${MY_VAR}" in err
    assert "Nothing was stored" in err
    assert key not in out + err
    _no_traceback(err)
    code, out, err = run_cli(["keys", "list"])
    assert code == 0 and out.startswith("keyring: unavailable")


def test_cli_keys_migrate(run_cli: RunCli, memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    """keys migrate says what moved and never prints a key."""
    k_openai, k_anthropic = _fake_key("mig"), _fake_key("ant")
    path, _ = _legacy_config(tmp_path, k_openai, k_anthropic)
    code, out, err = run_cli(["keys", "migrate", "--config", str(path)])
    assert code == 0, err
    assert "moved: openai" in out and "moved: anthropic" in out
    assert k_openai not in out + err and k_anthropic not in out + err
    assert memory_keyring.store[(SVC, "openai")] == k_openai
    code, out, err = run_cli(["keys", "migrate", "--config", str(path)])
    assert code == 0 and "No plaintext keys" in out


def test_cli_keys_migrate_conflict_exits_1(
    run_cli: RunCli, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """A skipped key is reported and makes the exit status 1."""
    path, _ = _legacy_config(tmp_path, _fake_key("file"), _fake_key("ant"))
    memory_keyring.store[(SVC, "openai")] = _fake_key("ring")
    code, out, _err = run_cli(["keys", "migrate", "--config", str(path)])
    assert code == 1
    assert "left in place: openai" in out and "moved: anthropic" in out


@pytest.mark.usefixtures("no_keyring")
def test_cli_keys_migrate_without_keyring(run_cli: RunCli, tmp_path: Path) -> None:
    """No keyring: exit 1, 'Nothing was changed', file byte-identical."""
    path, _ = _legacy_config(tmp_path, _fake_key("nk"), _fake_key("ant"))
    before = path.read_bytes()
    code, _out, err = run_cli(["keys", "migrate", "--config", str(path)])
    assert code == 1 and "Nothing was changed" in err
    _no_traceback(err)
    assert path.read_bytes() == before
