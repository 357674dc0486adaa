"""The leak test: a provider key must never reach a file, a log or the terminal.

The server is scripted to fail and to echo the bearer token it received back in its error
body, the worst case: the key then sits inside an exception message that gets printed,
logged and retried. Afterwards every file under the config directory (including ``logs/``),
the workspace and the home directory, and the subprocess output, are searched for the key.
The server's record of the Authorization header proves the key was really sent, so the
search is not vacuous.

Each command is its own process (everything it writes to its standard output and error is
captured at the file descriptors), forked from the pre-imported zygote (``tests.zygote``): a
fresh interpreter's imports have nothing to do with a leak. Its provider retries as often as
the app's, with a back-off of hundredths of a second (``tests.core.short_retries``).
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop.core.config.secrets import SERVICE_ENV
from tests import zygote
from tests.conftest import cli_env, custom_config
from tests.fakes.openai_server import Fail, ScriptedOpenAIServer
from tests.real_keyring import RealKeyring


@dataclass
class Scene:
    """One leak-test set-up: a config, the key, the places to search."""

    key: str
    config: Path
    workspace: Path
    home: Path
    env: dict[str, str]


def _fresh_key() -> str:
    return "sk-leaktest-" + secrets.token_hex(16)


def _needles(key: str) -> list[bytes]:
    """The key, and fragments of it that a partial leak (or a stripped prefix) would show."""
    random_part = key.rsplit("-", 1)[1]
    return [
        key.encode(),
        random_part.encode(),
        random_part[:12].encode(),
        random_part[-12:].encode(),
    ]


def _hits(roots: list[Path], texts: dict[str, str], key: str) -> list[str]:
    """Every file (recursively) or text that contains the key or a fragment of it."""
    needles = _needles(key)
    found: list[str] = []
    for root in roots:
        for path in [root] if root.is_file() else sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                found += [f"{path}: {n.decode()}" for n in needles if n in data]
    for name, text in texts.items():
        found += [f"{name}: {n.decode()}" for n in needles if n.decode() in text]
    return found


def _scene(
    tmp_path: Path, home: Path, server: ScriptedOpenAIServer, *, api_key: str | None, **env: str
) -> Scene:
    key = _fresh_key()
    config = custom_config(tmp_path, server.url)
    data = json.loads(config.read_text())
    if api_key is not None:
        data["providers"]["custom"]["apiKey"] = api_key
    config.write_text(json.dumps(data, indent=2))
    return Scene(key, config, tmp_path / "workspace", home, cli_env(home, **env))


def _run(
    scene: Scene, args: list[str], stdin: str | None = None, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    return zygote.run(
        "tests.core.short_retries:main",
        [*args, "--config", str(scene.config)],
        env={**scene.env, **extra_env},
        stdin=stdin,
        timeout=240.0,
    )


def _assert_no_leak(
    scene: Scene, server: ScriptedOpenAIServer, outputs: dict[str, str], attempts: int
) -> None:
    # The key really went over the wire, on every attempt (so the searches below can fail).
    sent = [r.headers.get("Authorization") for r in server.chat_requests()]
    assert sent == [f"Bearer {scene.key}"] * attempts, [s and s[:20] for s in sent]
    # Something was written where we look: the log file and the session with the user's message.
    assert (scene.config.parent / "logs" / "nanobot-desktop.log").is_file()
    assert any(scene.workspace.rglob("*.jsonl"))
    hits = _hits([scene.config.parent, scene.workspace, scene.home], outputs, scene.key)
    assert hits == [], "the key leaked:\n" + "\n".join(hits)


def test_key_from_env_reference_never_leaks(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """${LEAK_KEY} in the config; a 401 echoing the key, then 500s echoing it through retries."""
    scene = _scene(tmp_path, isolated_env, scripted_server, api_key="${LEAK_KEY}")
    key = scene.key
    outputs: dict[str, str] = {}

    scripted_server.push(
        Fail(401, "invalid api key", echo_key=True, error_type="invalid_request_error")
    )
    result = _run(scene, ["agent", "-m", "hi"], LEAK_KEY=key)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and result.stderr.strip()
    outputs.update({"401 stdout": result.stdout, "401 stderr": result.stderr})
    # The echoed key did reach the error text shown to the person, and was masked there.
    assert "[REDACTED]" in result.stderr, result.stderr
    _assert_no_leak(scene, scripted_server, outputs, attempts=1)  # a bad key is not retried

    scripted_server.push(*[Fail(500, "upstream exploded", echo_key=True)] * 4)
    result = _run(scene, ["agent", "-m", "hi again"], LEAK_KEY=key)
    assert result.returncode != 0
    outputs.update({"500 stdout": result.stdout, "500 stderr": result.stderr})
    log_text = (scene.config.parent / "logs" / "nanobot-desktop.log").read_text()
    assert "attempt 1 failed" in log_text and "attempt 3 failed" in log_text  # retries logged
    _assert_no_leak(scene, scripted_server, outputs, attempts=5)

    for args in (["status"], ["keys", "list"]):
        result = _run(scene, args, LEAK_KEY=key)
        assert result.returncode == 0, result.stderr
        outputs[" ".join(args)] = result.stdout + result.stderr
    assert "config.json reference ${LEAK_KEY}" in outputs["keys list"]
    _assert_no_leak(scene, scripted_server, outputs, attempts=5)

    text = scene.config.read_text()
    assert "${LEAK_KEY}" in text and key not in text
    assert json.loads(text)["providers"]["custom"]["apiKey"] == "${LEAK_KEY}"


@pytest.mark.keyring_real
def test_key_from_real_keyring_never_leaks(
    real_keyring: RealKeyring,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    """The same, with the key in the real keyring (keys set custom --stdin)."""
    scene = _scene(
        tmp_path, isolated_env, scripted_server, api_key=None, **{SERVICE_ENV: real_keyring.service}
    )
    assert scene.env.get("DBUS_SESSION_BUS_ADDRESS") or not sys.platform.startswith("linux")
    outputs: dict[str, str] = {}
    result = _run(scene, ["keys", "set", "custom", "--stdin"], stdin=scene.key + "\n")
    assert result.returncode == 0, result.stderr
    outputs["keys set"] = result.stdout + result.stderr
    assert real_keyring.get("custom") == scene.key

    scripted_server.push(
        Fail(401, "invalid api key", echo_key=True, error_type="invalid_request_error")
    )
    result = _run(scene, ["agent", "-m", "hi"])
    assert result.returncode != 0
    outputs.update({"401 stdout": result.stdout, "401 stderr": result.stderr})
    scripted_server.push(*[Fail(500, "upstream exploded", echo_key=True)] * 4)
    result = _run(scene, ["agent", "-m", "hi again"])
    assert result.returncode != 0
    outputs.update({"500 stdout": result.stdout, "500 stderr": result.stderr})
    assert "attempt 1 failed" in (scene.config.parent / "logs" / "nanobot-desktop.log").read_text()
    result = _run(scene, ["status"])
    assert f"available from keyring {real_keyring.service}/custom" in result.stdout
    outputs["status"] = result.stdout + result.stderr

    _assert_no_leak(scene, scripted_server, outputs, attempts=5)
    assert "apiKey" not in scene.config.read_text()
