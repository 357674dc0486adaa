"""``nanobot-desktop serve``: the agent behind an OpenAI-compatible API, called with the
official ``openai`` client, the model answering from the scripted server over LiteLLM.

The command itself runs once as the installed console script (what a person starts, stopped
with Ctrl-C) and, for the token in the real keyring, in processes forked from the
pre-imported zygote; the rest start the same service in-process
(:func:`desktop.core.api.service.start_api`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keyring
import keyring.errors
import openai
import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.api.service import ApiService, start_api
from desktop.core.config.budgets import Budgets
from desktop.core.config.loader import load_config
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SERVICE_ENV, SecretStore
from desktop.core.providers.factory import abuild_provider
from desktop.core.session.manager import SessionManager
from desktop.core.usage.ledger import read_records
from desktop.core.usage.place import locate
from tests.cli_runner import fork_cli, run_cli, start_cli
from tests.conftest import CLI, cli_env, custom_config
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer, Stall
from tests.real_keyring import RealKeyring
from tests.waiting import until
from tests.zygote import Forked

TOKEN = "nbd-test-token-0123456789abcdef"


def saved(config_path: Path, workspace: Path, key: str) -> list[dict[str, Any]]:
    """The lines of session ``key``'s file, where nanobot 0.3.5 keeps it."""
    path = SessionManager(workspace, config_dir=config_path.parent).path_for(key)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def api_records(config_path: Path, workspace: Path) -> list[Any]:
    """The usage ledger's records of this workspace."""
    place = locate(workspace, config_path.parent, move=False)
    return read_records(place, 0, time.time() + 3600)


def start_serve(
    config: Path, env: dict[str, str], *, forked: bool = False
) -> tuple[subprocess.Popen[str] | Forked, str, str]:
    """``nanobot-desktop serve --port 0`` as a process: it, its banner and its base URL.

    The installed console script, or (``forked``) a process forked from the pre-imported
    zygote (``tests.cli_runner.start_cli``).
    """
    args = ["serve", "--port", "0", "--config", str(config)]
    process: subprocess.Popen[str] | Forked = (
        start_cli(args, env)
        if forked
        else subprocess.Popen(
            [CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
    )
    assert process.stdout is not None
    lines: list[str] = []
    while not lines or not lines[-1].startswith("running"):
        line = process.stdout.readline()
        if not line:
            process.kill()
            raise AssertionError(f"serve ended early: {''.join(lines)} {process.communicate()}")
        lines.append(line)
    banner = "".join(lines)
    port = re.search(r"http://127\.0\.0\.1:(\d+)/v1", banner)
    assert port, banner
    return process, banner, f"http://127.0.0.1:{port.group(1)}/v1"


def stop_serve(process: subprocess.Popen[str] | Forked) -> tuple[str, str]:
    """Ctrl-C; its remaining output and error (it must end cleanly)."""
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return out, err


# -- the command, as a person runs it ---------------------------------------------------------
def test_serve_answers_the_openai_client_and_keeps_the_session(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """``serve`` on a machine without a keyring: a token for the run is printed; the
    ``openai`` client gets the model list, a completion and a streamed completion; a wrong
    token gets 401 and runs nothing; both turns are in ``api:default`` (nanobot's key), their
    calls in the ledger as ``api``; Ctrl-C ends it cleanly."""
    config = custom_config(tmp_path, scripted_server.url)
    env = cli_env(isolated_env, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    process, banner, base = start_serve(config, env)
    try:
        token = re.search(r"this run only.*:\n  (\S+)\n", banner)
        assert token, banner
        client = openai.OpenAI(base_url=base, api_key=token.group(1), max_retries=0)

        assert [m.id for m in client.models.list().data] == ["any-name"]
        scripted_server.push(Reply("Hello from the agent.", chunk=4, usage=(12, 5)))
        answer = client.chat.completions.create(
            model="any-name", messages=[{"role": "user", "content": "hi there"}]
        )
        assert answer.choices[0].message.content == "Hello from the agent."
        assert answer.usage is not None and answer.usage.total_tokens == 17

        scripted_server.push(Reply("A streamed answer, piece by piece.", chunk=5))
        stream = client.chat.completions.create(
            model="any-name", messages=[{"role": "user", "content": "and now?"}], stream=True
        )
        pieces = [c.choices[0].delta.content for c in stream if c.choices[0].delta.content]
        assert "".join(pieces) == "A streamed answer, piece by piece." and len(pieces) > 3

        requests_before = len(scripted_server.chat_requests())
        intruder = openai.OpenAI(base_url=base, api_key="not-the-token", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as refused:
            intruder.chat.completions.create(
                model="any-name", messages=[{"role": "user", "content": "let me in"}]
            )
        assert refused.value.status_code == 401
        assert len(scripted_server.chat_requests()) == requests_before

        # The second request's model call carried the first turn: one conversation.
        last = scripted_server.chat_requests()[-1].body["messages"]
        assert any(m["role"] == "assistant" and m["content"] == "Hello from the agent."
                   for m in last)  # fmt: skip
    finally:
        out, err = stop_serve(process)
    assert token.group(1) not in err and "stopping" in out
    workspace = tmp_path / "workspace"
    lines_saved = saved(config, workspace, "api:default")
    assert lines_saved[0]["key"] == "api:default"
    assert [(m["role"], m["content"]) for m in lines_saved[1:]] == [
        ("user", "hi there"),
        ("assistant", "Hello from the agent."),
        ("user", "and now?"),
        ("assistant", "A streamed answer, piece by piece."),
    ]
    records = api_records(config, workspace)
    assert [r.source for r in records] == ["api", "api"]
    assert {r.session for r in records} == {"api:default"}
    assert token.group(1) not in (tmp_path / "config" / "config.json").read_text()


@pytest.mark.keyring_real
def test_the_first_serve_keeps_its_token_in_the_real_keyring(
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
    real_keyring: RealKeyring,
) -> None:
    """With the Secret Service: the first ``serve`` makes the token, keeps it there and
    prints it once; the next one uses it without printing it; ``serve token`` shows it."""
    config = custom_config(tmp_path, scripted_server.url)
    env = cli_env(isolated_env, **{SERVICE_ENV: real_keyring.service})
    try:
        process, banner, base = start_serve(config, env, forked=True)
        try:
            made = re.search(r"new token, kept in the OS keyring.*:\n  (\S+)\n", banner)
            assert made, banner
            token = made.group(1)
            assert real_keyring.get("api.apiKey") == token
        finally:
            stop_serve(process)
        process, banner, base = start_serve(config, env, forked=True)
        try:
            assert token not in banner and "OS keyring" in banner
            scripted_server.push(Reply("Still you."))
            client = openai.OpenAI(base_url=base, api_key=token, max_retries=0)
            answer = client.chat.completions.create(
                model="any-name", messages=[{"role": "user", "content": "me again"}]
            )
            assert answer.choices[0].message.content == "Still you."
        finally:
            stop_serve(process)
        shown = fork_cli(["serve", "token", "--config", str(config)], env, timeout=120)
        assert shown.returncode == 0 and shown.stdout.strip() == token, shown.stderr
        assert token not in config.read_text()
    finally:
        try:
            keyring.delete_password(real_keyring.service, "api.apiKey")
        except keyring.errors.PasswordDeleteError:
            pass


# -- the service in this process --------------------------------------------------------------
@dataclass
class Served:
    """A running API and what the tests look at."""

    service: ApiService
    config: Config
    config_path: Path
    workspace: Path
    policy: ApprovalPolicy

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.service.port}/v1"

    def client(self, token: str = TOKEN) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(base_url=self.base, api_key=token, max_retries=0)


@asynccontextmanager
async def serving(
    tmp_path: Path, server: ScriptedOpenAIServer, **options: Any
) -> AsyncIterator[Served]:
    """The API service in this process on the scripted server (``ask`` approvals)."""
    config_path = custom_config(tmp_path, server.url)
    config = load_config(config_path)
    policy = ApprovalPolicy(mode="ask")
    built = await abuild_provider(config, SecretStore())
    prefs = PrefsStore(tmp_path / "desktop.json")  # desktop.json: what the API reads budgets from
    prefs.update(budgets=options.pop("budgets", Budgets)())
    service = await start_api(
        config, built.provider, token=TOKEN, approval=policy, prefs=prefs, **options
    )
    try:
        yield Served(service, config, config_path, tmp_path / "workspace", policy)
    finally:
        await service.stop()


@pytest.fixture
async def served(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, memory_keyring: MemoryKeyring
) -> AsyncIterator[Served]:
    async with serving(tmp_path, scripted_server) as running:
        yield running


async def test_session_id_names_the_session(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """``session_id`` in the body keeps a conversation of its own: ``api:<id>``; its model
    call is in the usage ledger as source ``api`` for that session."""
    scripted_server.push(Reply("Noted for work."))
    async with served.client() as client:
        answer = await client.chat.completions.create(
            model="any-name",
            messages=[{"role": "user", "content": "a work question"}],
            extra_body={"session_id": "work"},
        )
    assert answer.choices[0].message.content == "Noted for work."
    lines = saved(served.config_path, served.workspace, "api:work")
    assert [m["content"] for m in lines[1:]] == ["a work question", "Noted for work."]
    assert (
        not SessionManager(served.workspace, config_dir=served.config_path.parent)
        .path_for("api:default")
        .exists()
    )
    records = await asyncio.to_thread(api_records, served.config_path, served.workspace)
    assert [(r.source, r.session, r.channel) for r in records] == [("api", "api:work", "api")]


# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _image_parts(body: dict[str, Any]) -> list[str]:
    """The image URLs of the newest user message a model request carried."""
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    parts = content if isinstance(content, list) else []
    return [p["image_url"]["url"] for p in parts if p.get("type") == "image_url"]


async def test_images_reach_the_model_as_json_parts_and_as_uploaded_files(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """A base64 image part (the openai client) and a file in nanobot's upload form
    (``multipart/form-data``: message, session_id, files) are saved under ``media/api/`` and
    shown to the model with the message; a remote image URL is refused."""
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    scripted_server.push(Reply("A dot."), Reply("The same dot."))
    async with served.client() as client:
        answer = await client.chat.completions.create(
            model="any-name",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "what is this?"},
                        {"type": "image_url", "image_url": {"url": url}},
                    ],
                }
            ],
        )
        assert answer.choices[0].message.content == "A dot."
        with pytest.raises(openai.BadRequestError, match="remote image URLs are not fetched"):
            await client.chat.completions.create(
                model="any-name",
                messages=[
                    {
                        "role": "user",
                        "content": [{"type": "image_url", "image_url": {"url": "http://x/y.png"}}],
                    }
                ],
            )
    assert _image_parts(scripted_server.chat_requests()[0].body) == [url]
    import httpx

    async with httpx.AsyncClient(timeout=60) as http:
        uploaded = await http.post(
            served.base + "/chat/completions",
            headers={"Authorization": f"Bearer {TOKEN}"},
            data={"message": "and this file?", "session_id": "pics"},
            files=[("files", ("../dot.png", PNG, "image/png"))],
        )
    assert uploaded.status_code == 200, uploaded.text
    assert uploaded.json()["choices"][0]["message"]["content"] == "The same dot."
    assert _image_parts(scripted_server.chat_requests()[1].body) == [url]
    saved_files = sorted(p.name for p in (served.workspace / "media" / "api").iterdir())
    assert len(saved_files) == 2
    assert sum(name.endswith("_dot.png") for name in saved_files) == 1
    lines = saved(served.config_path, served.workspace, "api:pics")
    assert lines[1]["content"] == "and this file?" and len(lines[1]["media"]) == 1


async def test_a_tool_call_that_needs_approval_is_refused_at_once_unless_allowed(
    served: Served, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Nobody can answer an approval over the API: in ``ask`` mode a write outside the
    workspace is not executed and the request still answers; once the person always allows
    ``write_file``, the same call runs."""
    outside = tmp_path / "outside.txt"
    call = json.dumps({"path": str(outside), "content": "from the API"})
    scripted_server.push(Reply(tool_calls=[("write_file", call)]), Reply("I could not write it."))
    async with served.client() as client:
        answer = await client.chat.completions.create(
            model="any-name", messages=[{"role": "user", "content": "write the file"}]
        )
        assert answer.choices[0].message.content == "I could not write it."
        assert not outside.exists()
        tool_result = scripted_server.chat_requests()[-1].body["messages"][-1]
        assert tool_result["role"] == "tool" and "Not executed" in tool_result["content"]
        assert "needs the person's approval" in tool_result["content"]

        served.policy.allow_always("write_file")
        scripted_server.push(Reply(tool_calls=[("write_file", call)]), Reply("Written."))
        answer = await client.chat.completions.create(
            model="any-name", messages=[{"role": "user", "content": "now write it"}]
        )
    assert answer.choices[0].message.content == "Written."
    assert outside.read_text() == "from the API"


async def test_requests_the_api_cannot_answer_are_refused_clearly(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """A conversation in the request, another model, no token: 400/401 with a sentence, and
    no model call."""
    async with served.client() as client:
        with pytest.raises(openai.BadRequestError, match="exactly one user message"):
            await client.chat.completions.create(
                model="any-name",
                messages=[
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "hello"},
                    {"role": "user", "content": "again"},
                ],
            )
        with pytest.raises(openai.BadRequestError, match="only the configured model 'any-name'"):
            await client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
            )
    import httpx

    async with httpx.AsyncClient() as http:
        health = await http.get(served.base.removesuffix("/v1") + "/health")
        missing = await http.get(served.base + "/models")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert missing.status_code == 401 and "Bearer" in missing.json()["error"]["message"]
    assert scripted_server.chat_requests() == []


async def test_a_message_the_agent_sends_to_the_caller_is_in_the_answer(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """What the agent sends with the ``message`` tool into the API chat reaches the caller
    (a chat's own answer after it is then left out, as in every channel)."""
    note = json.dumps({"content": "Here is the summary you asked for."})
    scripted_server.push(Reply(tool_calls=[("message", note)]), Reply("Sent it."))
    async with served.client() as client:
        answer = await client.chat.completions.create(
            model="any-name", messages=[{"role": "user", "content": "send me the summary"}]
        )
    assert answer.choices[0].message.content == "Here is the summary you asked for."


async def test_two_requests_in_one_session_run_in_turn_and_keep_their_messages(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """A second request for a session waits for the first one's turn; what the first turn
    sends with the ``message`` tool goes to the first caller, not to the one who came later."""
    note = json.dumps({"content": "For the first caller."})
    scripted_server.push(
        Stall(1.0, then=Reply(tool_calls=[("message", note)])),
        Reply("Sent."),
        Reply("Second answer."),
    )
    channel = served.service.server.channel
    async with served.client() as client:

        def ask(text: str) -> Any:
            return client.chat.completions.create(
                model="any-name", messages=[{"role": "user", "content": text}]
            )

        first = asyncio.ensure_future(ask("first"))
        await until(lambda: served.service.runtime.agent.is_busy("api:default"), what="turn 1")
        second = asyncio.ensure_future(ask("second"))
        await until(lambda: channel.waiting("api:default") == 2, what="both requests")
        answers = await asyncio.gather(first, second)
    assert [a.choices[0].message.content for a in answers] == [
        "For the first caller.",
        "Second answer.",
    ]
    lines = saved(served.config_path, served.workspace, "api:default")
    users = [m["content"] for m in lines[1:] if m.get("role") == "user"]
    assert users == ["first", "second"]


async def test_a_turn_that_breaks_is_an_error_not_an_empty_success(
    served: Served, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An unexpected failure inside the turn (a stand-in here: the loop's entry raises)
    answers 500 with a sentence, and a stream ends with an error event, never ``[DONE]``."""

    async def broken(*_args: Any, **_kwargs: Any) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(served.service.runtime.agent, "process_direct", broken)
    ask: dict[str, Any] = {"model": "any-name", "messages": [{"role": "user", "content": "hi"}]}
    async with served.client() as client:
        with pytest.raises(openai.InternalServerError, match="the agent failed") as error:
            await client.chat.completions.create(**ask)
        assert error.value.status_code == 500
        stream = await client.chat.completions.create(**ask, stream=True)
        with pytest.raises(openai.APIError, match="the agent failed"):
            async for _chunk in stream:
                pass
    assert "disk on fire" in caplog.text


async def test_a_turn_past_the_timeout_is_stopped_and_answered_504(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, memory_keyring: MemoryKeyring
) -> None:
    """A model that does not answer within ``timeout`` gets the request a 504, the turn is
    stopped (nothing left running) and the user message stays saved."""
    scripted_server.push(Stall(60))
    async with serving(tmp_path, scripted_server, timeout_s=1.0) as running:
        async with running.client() as client:
            with pytest.raises(openai.InternalServerError, match="timed out after 1 s") as error:
                await client.chat.completions.create(
                    model="any-name", messages=[{"role": "user", "content": "slow one"}]
                )
        assert error.value.status_code == 504
        assert not running.service.runtime.agent.is_busy("api:default")
        lines = saved(running.config_path, running.workspace, "api:default")
        assert [m["content"] for m in lines[1:] if m.get("role") == "user"] == ["slow one"]


async def test_the_api_source_has_its_own_budget(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, memory_keyring: MemoryKeyring
) -> None:
    """A budget on the ``api`` source with the hard cap: once spent, the next request is
    refused with 429 and no model call; the window's own chats are not in that budget."""
    budgets = Budgets.model_validate({"sources": {"api": {"dailyTokens": 10}}, "chatHardCap": True})
    scripted_server.push(Reply("First answer.", usage=(12, 5)))
    async with (
        serving(tmp_path, scripted_server, budgets=lambda: budgets) as running,
        running.client() as client,
    ):
        first = await client.chat.completions.create(
            model="any-name", messages=[{"role": "user", "content": "one"}]
        )
        assert first.choices[0].message.content == "First answer."
        with pytest.raises(openai.RateLimitError, match="spend cap is reached") as refused:
            await client.chat.completions.create(
                model="any-name", messages=[{"role": "user", "content": "two"}]
            )
    assert refused.value.status_code == 429
    assert len(scripted_server.chat_requests()) == 1


async def test_a_client_that_leaves_a_stream_stops_its_turn(
    served: Served, scripted_server: ScriptedOpenAIServer
) -> None:
    """The caller closes a stream half-way: the turn is stopped, not left running."""
    scripted_server.push(Reply("word " * 200, chunk=5, delay=0.02))
    async with served.client() as client:
        stream = await client.chat.completions.create(
            model="any-name", messages=[{"role": "user", "content": "talk a lot"}], stream=True
        )
        async for chunk in stream:
            if chunk.choices[0].delta.content:
                break
        await stream.close()
    agent = served.service.runtime.agent
    await until(lambda: not agent.is_busy("api:default"), what="the turn to stop")
    assert scripted_server.completed_streams == 0


# -- the token ------------------------------------------------------------------------------
def test_serve_token_is_made_once_and_kept_in_the_keyring(
    tmp_path: Path, isolated_env: Path, memory_keyring: MemoryKeyring
) -> None:
    """``serve token`` makes a token, keeps it in the keyring (not in config.json) and shows
    the same one again; ``--new`` replaces it."""
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    first = run_cli(["serve", "token", "--config", str(config)], isolated_env)
    assert first.returncode == 0, first.stderr
    token = first.stdout.strip()
    assert len(token) > 40 and "keyring" in first.stderr
    assert memory_keyring.get_password("nanobot-desktop", "api.apiKey") == token
    again = run_cli(["serve", "token", "--config", str(config)], isolated_env)
    assert again.stdout.strip() == token and "api.apiKey" in again.stderr
    new = run_cli(["serve", "token", "--new", "--config", str(config)], isolated_env)
    assert new.returncode == 0 and new.stdout.strip() not in ("", token)
    assert token not in config.read_text() and new.stdout.strip() not in config.read_text()


def test_a_host_other_machines_reach_is_refused_without_a_token(
    tmp_path: Path, isolated_env: Path, no_keyring: None
) -> None:
    """``--host 0.0.0.0`` with no token set up: refused before anything listens or runs."""
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    result = run_cli(["serve", "--host", "0.0.0.0", "--port", "0", "--config", str(config)],
                     isolated_env)  # fmt: skip
    assert result.returncode == 2
    assert "can be reached from other machines" in result.stderr
    assert "serve token" in result.stderr and "running" not in result.stdout
