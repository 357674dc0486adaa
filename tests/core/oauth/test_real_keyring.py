"""The real tier: sign-ins kept in the real Secret Service, a chat turn through the real agent
runtime, and the ``provider`` CLI end to end (other processes on the same D-Bus session: the
browser sign-in as the installed console script, the other commands forked from the
pre-imported zygote, ``tests.cli_runner.fork_cli``).

Every token the fake server hands out is then looked for in the captured logs, the CLI's
output and every file under the test's home and config folders: none may appear.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import subprocess
import sys
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.bus.events import InboundMessage, RunEvent, TextDelta, TurnFinished
from desktop.core.bus.queue import MessageBus
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SERVICE_ENV, SecretStore
from desktop.core.runtime import Runtime
from tests.cli_runner import fork_cli
from tests.conftest import CLI, cli_env, write_config
from tests.core.oauth.conftest import act_as_browser, signed_in_codex, signed_in_copilot
from tests.fakes.oauth_server import EMAIL, GITHUB_LOGIN, CodexReply, FakeOAuthServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.real_keyring import RealKeyring

pytestmark = pytest.mark.keyring_real


def _config(tmp_path: Path, model: str) -> Path:
    return write_config(
        tmp_path / "config" / "config.json",
        {"agents": {"defaults": {"model": model, "workspace": str(tmp_path / "ws")}}},
    )


def assert_no_tokens(server: FakeOAuthServer, *texts: str, folders: tuple[Path, ...] = ()) -> int:
    """No token the server issued appears in ``texts`` or any file under ``folders``; returns
    how many files were read (so a test can tell the search looked somewhere)."""
    assert server.issued, "the server handed out no tokens"
    for text in texts:
        for token in server.issued:
            assert token not in text
    read = 0
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                read += 1
                for token in server.issued:
                    assert token.encode() not in data, f"a token was written to {path}"
    return read


async def _turn(runtime: Runtime, events: list[RunEvent], text: str) -> TurnFinished:
    await runtime.bus.publish_inbound(InboundMessage("cli", "user", "direct", text))
    deadline = asyncio.get_running_loop().time() + 30
    while not any(isinstance(e, TurnFinished) for e in events):
        assert asyncio.get_running_loop().time() < deadline, "no answer in time"
        await asyncio.sleep(0.02)
    return next(e for e in events if isinstance(e, TurnFinished))


@pytest.fixture
async def codex_runtime(
    oauth_server: FakeOAuthServer, real_keyring: RealKeyring, tmp_path: Path
) -> AsyncIterator[tuple[Runtime, list[RunEvent]]]:
    store = SecretStore(real_keyring.service, timeout=15)
    await signed_in_codex(store)
    config = load_config(_config(tmp_path, "openai-codex/gpt-5.1-codex"))
    bus = MessageBus()
    events: list[RunEvent] = []
    bus.subscribe(events.append)
    runtime = await start_runtime(config, StartOptions(bus=bus, secrets=store, serve_socket=False))
    yield runtime, events
    await runtime.stop()


async def test_a_chat_turn_streams_from_codex_with_the_sign_in_in_the_real_keyring(
    codex_runtime: tuple[Runtime, list[RunEvent]],
    oauth_server: FakeOAuthServer,
    real_keyring: RealKeyring,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    caplog.set_level(logging.DEBUG, logger="desktop")
    runtime, events = codex_runtime
    stored = json.loads(real_keyring.get("openai_codex") or "{}")
    assert stored["account"] == EMAIL and stored["access"] in oauth_server.issued
    oauth_server.codex_replies.append(CodexReply("A streamed answer from Codex, piece by piece."))
    finished = await _turn(runtime, events, "hello")
    assert finished.content == "A streamed answer from Codex, piece by piece."
    assert sum(isinstance(e, TextDelta) for e in events) > 3
    [request] = oauth_server.seen("/backend-api/codex/responses")
    assert request.body["input"][-1]["content"][0]["text"].endswith("hello")
    # The agent's system prompt went in as the instructions.
    assert "nanobot" in request.body["instructions"].lower()
    assert_no_tokens(oauth_server, caplog.text, folders=(tmp_path, isolated_env))


async def test_a_chat_turn_streams_from_copilot_through_litellm(
    oauth_server: FakeOAuthServer,
    real_keyring: RealKeyring,
    scripted_server: ScriptedOpenAIServer,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    caplog.set_level(logging.DEBUG, logger="desktop")
    oauth_server.copilot_api = scripted_server.url
    scripted_server.authorize = oauth_server.copilot_gate
    scripted_server.default = Reply("Copilot answers, streamed in small chunks.", chunk=3)
    store = SecretStore(real_keyring.service, timeout=15)
    await signed_in_copilot(store)
    assert json.loads(real_keyring.get("github_copilot") or "{}")["account"] == GITHUB_LOGIN
    config = load_config(_config(tmp_path, "github-copilot/gpt-4.1"))
    bus = MessageBus()
    events: list[RunEvent] = []
    bus.subscribe(events.append)
    runtime = await start_runtime(config, StartOptions(bus=bus, secrets=store, serve_socket=False))
    try:
        finished = await _turn(runtime, events, "hello")
    finally:
        await runtime.stop()
    assert finished.content == "Copilot answers, streamed in small chunks."
    assert sum(isinstance(e, TextDelta) for e in events) > 3
    [request] = scripted_server.chat_requests()
    assert request.body["model"] == "gpt-4.1" and request.body["stream"] is True
    assert_no_tokens(oauth_server, caplog.text, folders=(tmp_path, isolated_env))


# -- the CLI -------------------------------------------------------------------------------


@pytest.fixture
def cli(
    oauth_server: FakeOAuthServer, real_keyring: RealKeyring, isolated_env: Path, tmp_path: Path
) -> Iterator[Any]:
    env = cli_env(isolated_env, **oauth_server.env(), **{SERVICE_ENV: real_keyring.service})
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    if sys.platform.startswith("linux"):
        assert env.get("DBUS_SESSION_BUS_ADDRESS"), "the CLI must reach the Secret Service"

    def run(*args: str, config: Path) -> subprocess.CompletedProcess[str]:
        return fork_cli([*args, "--config", str(config)], env, timeout=180)

    run.env = env  # type: ignore[attr-defined]
    yield run


def test_cli_device_login_status_chat_logout(
    cli: Any,
    oauth_server: FakeOAuthServer,
    real_keyring: RealKeyring,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    """login github-copilot prints the code and address and waits through pending; status
    and keys list say who is signed in; agent -m chats with it; logout forgets it."""
    oauth_server.device_script.extend(["authorization_pending", "authorization_pending"])
    oauth_server.copilot_api = scripted_server.url
    scripted_server.authorize = oauth_server.copilot_gate
    scripted_server.default = Reply("Hi from Copilot via the CLI.")
    config = _config(tmp_path, "github-copilot/gpt-4.1")
    outputs: list[str] = []

    login = cli("provider", "login", "github-copilot", "--no-browser", config=config)
    outputs += [login.stdout, login.stderr]
    assert login.returncode == 0, login.stderr
    assert f"open {oauth_server.url}/login/device" in login.stdout
    assert "enter the code: WDJB-MJHT" in login.stdout
    assert f"Signed in to GitHub Copilot as {GITHUB_LOGIN}" in login.stdout
    assert len(oauth_server.seen("/login/oauth/access_token")) == 3
    assert json.loads(real_keyring.get("github_copilot") or "{}")["account"] == GITHUB_LOGIN

    status = cli("provider", "status", config=config)
    outputs += [status.stdout, status.stderr]
    assert f"github-copilot  GitHub Copilot: signed in as {GITHUB_LOGIN}" in status.stdout
    assert "openai-codex  ChatGPT (Codex): not signed in" in status.stdout

    overall = cli("status", config=config)
    outputs += [overall.stdout, overall.stderr]
    rows = dict(line.split(None, 1) for line in overall.stdout.splitlines() if line.strip())
    assert rows["sign-in"].startswith(f"signed in as {GITHUB_LOGIN}")
    assert "GitHub Copilot" in rows["provider"]

    keys = cli("keys", "list", config=config)
    outputs += [keys.stdout, keys.stderr]
    assert re.search(rf"^github_copilot +signed in as {GITHUB_LOGIN}\b", keys.stdout, re.M)
    refused = cli("keys", "set", "github-copilot", "--stdin", config=config)
    assert refused.returncode != 0 and "provider login github-copilot" in refused.stderr

    chat = cli("agent", "-m", "hello", config=config)
    outputs += [chat.stdout, chat.stderr]
    assert chat.returncode == 0, chat.stderr
    assert "Hi from Copilot via the CLI." in chat.stdout

    logout = cli("provider", "logout", "github_copilot", config=config)
    outputs += [logout.stdout, logout.stderr]
    assert logout.returncode == 0 and "Signed out of GitHub Copilot." in logout.stdout
    assert real_keyring.get("github_copilot") is None
    after = cli("agent", "-m", "hello again", config=config)
    assert after.returncode != 0
    assert "Not signed in to GitHub Copilot" in after.stderr + after.stdout

    read = assert_no_tokens(oauth_server, *outputs, folders=(tmp_path, isolated_env))
    assert read > 0
    logs = list((tmp_path / "config" / "logs").glob("*.log"))
    assert logs and "GitHub Copilot" in "".join(p.read_text() for p in logs)


def test_cli_browser_login_for_codex(
    cli: Any,
    oauth_server: FakeOAuthServer,
    real_keyring: RealKeyring,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    """login openai-codex with no display prints the address; the 'browser' (this test)
    opens it, is sent back to the CLI's callback server, and the sign-in is stored."""
    config = _config(tmp_path, "openai-codex/gpt-5.1-codex")
    process = subprocess.Popen(
        [CLI, "provider", "login", "openai-codex", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli.env,
    )
    try:
        assert process.stdout is not None
        lines = []
        url = ""
        while not url:
            line = process.stdout.readline()
            assert line, f"the CLI ended early: {process.stderr.read() if process.stderr else ''}"
            lines.append(line)
            if line.startswith(f"{oauth_server.url}/oauth/authorize?"):
                url = line.strip()
        page = asyncio.run(act_as_browser(url))
        assert page.status_code == 200
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    stdout = "".join(lines) + out
    assert "open this address in your browser" in stdout
    assert f"Signed in to ChatGPT (Codex) as {EMAIL}" in stdout
    redirect = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))["redirect_uri"]
    assert redirect.startswith("http://localhost:")
    stored = json.loads(real_keyring.get("openai_codex") or "{}")
    assert stored["account"] == EMAIL and stored["account_id"] == "acct-test-0001"

    chat = cli("agent", "-m", "hello", config=config)
    assert chat.returncode == 0, chat.stderr
    assert "Hello from Codex." in chat.stdout
    assert_no_tokens(
        oauth_server, stdout, err, chat.stdout, chat.stderr, folders=(tmp_path, isolated_env)
    )


def test_cli_rejects_unknown_names_and_accepts_nanobot_spellings(cli: Any, tmp_path: Path) -> None:
    config = _config(tmp_path, "gpt-4o-mini")
    bad = cli("provider", "login", "openai", config=config)
    assert bad.returncode == 2 and "not a provider you sign in to" in bad.stderr
    for name in ("openai-codex", "openai_codex", "github-copilot", "github_copilot", "copilot"):
        result = cli("provider", "status", name, config=config)
        assert result.returncode == 0 and "not signed in" in result.stdout, name


def test_a_long_sign_in_round_trips_through_the_secret_service(real_keyring: RealKeyring) -> None:
    """Real ChatGPT tokens are longer than one Windows credential: the split storage works
    against the real Secret Service too, and deleting removes every part."""
    from desktop.core.providers.oauth.tokens import OAuthTokens, TokenVault

    vault = TokenVault(SecretStore(real_keyring.service, timeout=15))
    tokens = OAuthTokens(
        "openai_codex", access="x" * 2500, refresh="y" * 64, account="A B", expires_at=9e9
    )
    vault.save(tokens)
    assert real_keyring.get("openai_codex#3") is not None
    assert vault.load("openai_codex") == tokens
    assert vault.delete("openai_codex")
    assert [real_keyring.get(n) for n in ("openai_codex", "openai_codex#1", "openai_codex#3")] == [
        None,
        None,
        None,
    ]
