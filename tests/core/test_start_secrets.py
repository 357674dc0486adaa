"""A secret saved in the real keyring is in effect on every headless start path.

The web-search key is stored in the real Secret Service (under the test's own service name)
and nowhere else. The scripted model asks for ``web_search``; the tool goes to Brave Search
only when it has the key, to DuckDuckGo otherwise, and its result (which the model reads and
repeats) names the engine. Web traffic goes to a loopback proxy port that refuses connections,
so the search fails at once and nothing leaves the machine. ``agent -m`` (no app running) and
``cron run`` used to build the runtime without loading the keyring's secrets, so they searched
DuckDuckGo; the gateway did load them. The app's start is covered in
``tests/ui/test_startup_secrets.py``.
"""

from __future__ import annotations

import json
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.secret_fields import WEB_SEARCH_KEY, keyring_name
from desktop.core.config.secrets import SERVICE_ENV, SecretStore
from tests.cli_runner import start_cli
from tests.conftest import cli_env, write_config
from tests.core.test_cli import run
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.real_keyring import RealKeyring

pytestmark = pytest.mark.keyring_real

KEY = "BSA-test-web-search-key-0123456789"
SEEN = "Brave Search search failed"  # the tool had the key
NOT_SEEN = "DuckDuckGo search failed"  # the tool had no key


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A loopback port bound but not listening: every connection to it is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def stored_key(real_keyring: RealKeyring) -> str:
    """The web-search key, in the real keyring only; the keyring service name to use."""
    SecretStore(real_keyring.service).set(keyring_name(WEB_SEARCH_KEY), KEY)
    return real_keyring.service


def _route(body: dict[str, Any]) -> Reply:
    """Search once, then repeat what the search tool said."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return Reply(f"Tool said: {last['content']}")
    return Reply(tool_calls=[("web_search", json.dumps({"query": "nanobot"}))])


def _config(tmp_path: Path, server: ScriptedOpenAIServer, proxy_port: int) -> str:
    """The scripted model; web tools through the refusing proxy; no key in the file."""
    path = write_config(
        tmp_path / "config" / "config.json",
        {
            "agents": {
                "defaults": {
                    "model": "any-name",
                    "provider": "custom",
                    "workspace": str(tmp_path / "workspace"),
                }
            },
            "providers": {"custom": {"apiBase": server.url}},
            "tools": {"web": {"proxy": f"http://127.0.0.1:{proxy_port}"}},
        },
    )
    assert KEY not in path.read_text()
    return str(path)


def _check(output: str) -> None:
    assert NOT_SEEN not in output, "the stored web-search key was ignored"
    assert SEEN in output, output
    assert KEY not in output


def test_agent_m_without_an_app_uses_the_stored_key(
    stored_key: str,
    scripted_server: ScriptedOpenAIServer,
    refusing_port: int,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    scripted_server.route = _route
    config = _config(tmp_path, scripted_server, refusing_port)
    result = run(
        ["agent", "-m", "search", "--config", config], isolated_env, **{SERVICE_ENV: stored_key}
    )
    assert result.returncode == 0, result.stderr
    _check(result.stdout)


def test_cron_run_uses_the_stored_key(
    stored_key: str,
    scripted_server: ScriptedOpenAIServer,
    refusing_port: int,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    scripted_server.route = _route
    config = _config(tmp_path, scripted_server, refusing_port)
    added = run(
        ["cron", "add", "--config", config, "--message", "search", "--every", "3600"],
        isolated_env,
        **{SERVICE_ENV: stored_key},
    )
    assert added.returncode == 0, added.stderr
    jobs = json.loads((tmp_path / "workspace" / "cron" / "jobs.json").read_text())["jobs"]
    job_id = next(j["id"] for j in jobs if j["payload"]["kind"] == "agent_turn")
    result = run(
        ["cron", "run", job_id, "--config", config], isolated_env, **{SERVICE_ENV: stored_key}
    )
    assert result.returncode == 0, result.stderr
    _check(result.stdout)


def test_the_gateway_uses_the_stored_key(
    stored_key: str,
    scripted_server: ScriptedOpenAIServer,
    refusing_port: int,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    """The gateway runs in its own process (forked from the pre-imported zygote); ``agent -m``
    hands it the message."""
    scripted_server.route = _route
    config = _config(tmp_path, scripted_server, refusing_port)
    process = start_cli(
        ["gateway", "--config", config], cli_env(isolated_env, **{SERVICE_ENV: stored_key})
    )
    try:
        assert process.stdout is not None
        printed = []
        for line in process.stdout:  # ends early if the gateway exits
            printed.append(line)
            if "running; Ctrl-C to stop" in line:
                break
        assert process.poll() is None, "".join(printed)
        result = run(["agent", "-m", "search", "--config", config], isolated_env)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert result.returncode == 0, result.stderr
    _check(result.stdout)
    assert KEY not in "".join(printed) + out + err
