"""The real Secret Service: the ``keys`` command in other processes and SecretStore in-process.

``keys migrate`` runs as the installed console script; set/list/status/delete run in
processes forked from the pre-imported zygote (``tests.cli_runner.fork_cli``): each its own
process on the same D-Bus session, without a fresh interpreter's imports.

Each test works under its own keyring service name (NANOBOT_DESKTOP_KEYRING_SERVICE), so a
developer's real keys are never touched. Runs inside scripts/test.sh's private D-Bus session.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.config.loader import load_config
from desktop.core.config.migrate import migrate_plaintext_keys
from desktop.core.config.secrets import SERVICE_ENV, SecretStore
from tests.cli_runner import fork_cli
from tests.conftest import CLI, cli_env, write_config
from tests.real_keyring import RealKeyring

pytestmark = pytest.mark.keyring_real


def run(
    args: list[str], home: Path, service: str, stdin: str | None = None, *, script: bool = False
) -> subprocess.CompletedProcess[str]:
    """The CLI in another process on the same D-Bus session, under the test's service name:
    forked from the zygote, or the installed console script when ``script``."""
    env = cli_env(home, **{SERVICE_ENV: service})
    if sys.platform.startswith("linux"):
        assert env.get("DBUS_SESSION_BUS_ADDRESS"), "the process must reach the Secret Service"
    if not script:
        return fork_cli(args, env, stdin, timeout=180)
    return subprocess.run(
        [CLI, *args], input=stdin, capture_output=True, text=True, check=False, timeout=180, env=env
    )


def _key(label: str) -> str:
    return f"sk-real-{label}-{os.urandom(10).hex()}"


def test_cli_set_list_status_delete(
    real_keyring: RealKeyring, tmp_path: Path, isolated_env: Path
) -> None:
    """keys set --stdin → in the Secret Service; list/status name it; delete removes it."""
    key = _key("cli")
    config = write_config(
        tmp_path / "config.json",
        {
            "agents": {"defaults": {"model": "gpt-4o-mini", "workspace": str(tmp_path / "ws")}},
        },
    )
    cfg = ["--config", str(config)]

    result = run(
        ["keys", "set", "openai", "--stdin", *cfg],
        isolated_env,
        real_keyring.service,
        stdin=key + "\n",
    )
    assert result.returncode == 0, result.stderr
    assert (
        "Stored the OpenAI key in the OS keyring" in result.stdout
        and "SecretService" in result.stdout
    )
    assert key not in result.stdout + result.stderr
    assert real_keyring.get("openai") == key  # in-process, through the keyring API
    # Only under the test's service name (the default service is not even read).
    assert SecretStore(real_keyring.service + "-other").get("openai") is None

    result = run(["keys", "list", *cfg], isolated_env, real_keyring.service)
    assert result.returncode == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert "SecretService" in lines["keyring:"]
    assert lines["openai"].split(None, 1)[1] == f"keyring {real_keyring.service}/openai"
    assert "not set" in lines["anthropic"]
    assert key not in result.stdout + result.stderr

    result = run(["status", *cfg], isolated_env, real_keyring.service)
    assert result.returncode == 0, result.stderr
    rows = {
        line.split("  ", 1)[0].strip(): line.split("  ", 1)[1].strip()
        for line in result.stdout.splitlines()
        if "  " in line
    }
    assert rows["key"] == f"available from keyring {real_keyring.service}/openai"
    assert rows["provider"].startswith("OpenAI")
    assert key not in result.stdout + result.stderr

    result = run(["keys", "delete", "openai", *cfg], isolated_env, real_keyring.service)
    assert result.returncode == 0 and result.stdout.strip() == "Removed the stored OpenAI key."
    assert real_keyring.get("openai") is None
    result = run(["status", *cfg], isolated_env, real_keyring.service)
    assert "missing: run 'nanobot-desktop keys set openai'" in result.stdout
    result = run(["keys", "delete", "openai", *cfg], isolated_env, real_keyring.service)
    assert result.returncode == 0 and result.stdout.strip() == "No stored key for OpenAI."


def test_cli_migrate_into_the_real_keyring(
    real_keyring: RealKeyring, tmp_path: Path, isolated_env: Path
) -> None:
    """keys migrate: the plaintext key moves into the Secret Service and leaves the file."""
    key = _key("mig")
    original = {
        "agents": {"defaults": {"model": "deepseek-chat", "workspace": str(tmp_path / "ws")}},
        "providers": {
            "deepseek": {"apiKey": key, "apiBase": "https://api.deepseek.com"},
            "openai": {"apiKey": "${OPENAI_REF}"},
        },
        "tools": {"restrictToWorkspace": True},
    }
    config = write_config(tmp_path / "config.json", original)
    result = run(
        ["keys", "migrate", "--config", str(config)],
        isolated_env,
        real_keyring.service,
        script=True,
    )
    assert result.returncode == 0, result.stderr
    assert "moved: deepseek" in result.stdout
    assert key not in result.stdout + result.stderr
    assert real_keyring.get("deepseek") == key
    data = json.loads(config.read_text())
    expected = json.loads(json.dumps(original))
    expected["providers"]["deepseek"]["apiKey"] = None
    assert data == expected and key not in config.read_text()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert set(os.listdir(tmp_path)) <= {"config.json", "logs"}  # no temp files left

    result = run(["status", "--config", str(config)], isolated_env, real_keyring.service)
    assert f"available from keyring {real_keyring.service}/deepseek" in result.stdout, result.stdout


def test_secret_store_against_the_real_backend(real_keyring: RealKeyring, tmp_path: Path) -> None:
    """SecretStore directly on the Secret Service: set/get/resolve/delete, a second instance."""
    store = SecretStore(real_keyring.service)
    usable, backend = store.backend_status()
    assert usable and "SecretService" in backend
    key = _key("store")
    store.set("anthropic", key)
    assert real_keyring.get("anthropic") == key
    assert SecretStore(real_keyring.service).get("anthropic") == key  # persisted, not cached
    assert SecretStore(real_keyring.service + "-other").get("anthropic") is None
    path = write_config(
        tmp_path / "config.json",
        {"providers": {"anthropic": {"apiKey": "sk-ant-plain-0123456789"}}},
    )
    config = load_config(path, environ={})
    resolved = store.resolve("anthropic", config, {"ANTHROPIC_API_KEY": "sk-ant-env-0123456789"})
    assert (resolved.value, resolved.source) == (key, "keyring")
    assert store.delete("anthropic") is True
    assert real_keyring.get("anthropic") is None
    assert store.delete("anthropic") is False
    assert store.resolve("anthropic", config, {}).source == "config"


async def test_async_store_against_the_real_backend(real_keyring: RealKeyring) -> None:
    """aset/aget/adelete on the real backend."""
    store = SecretStore(real_keyring.service)
    key = _key("async")
    await store.aset("groq", key)
    assert await store.aget("groq") == key
    assert real_keyring.get("groq") == key
    assert await store.adelete("groq") is True
    assert await store.aget("groq") is None


def test_migrate_in_process_against_the_real_backend(
    real_keyring: RealKeyring, tmp_path: Path
) -> None:
    """migrate_plaintext_keys with the real backend, including a conflicting stored key."""
    store = SecretStore(real_keyring.service)
    k_openai, k_stored, k_file = _key("o"), _key("stored"), _key("file")
    store.set("gemini", k_stored)
    path = write_config(
        tmp_path / "config.json",
        {"providers": {"openai": {"apiKey": k_openai}, "gemini": {"apiKey": k_file}}},
    )
    report = migrate_plaintext_keys(path, store)
    assert report.moved == ["openai"] and [p for p, _ in report.skipped] == ["gemini"]
    assert real_keyring.get("openai") == k_openai and real_keyring.get("gemini") == k_stored
    data = json.loads(path.read_text())
    assert (
        data["providers"]["openai"]["apiKey"] is None
        and data["providers"]["gemini"]["apiKey"] == k_file
    )
