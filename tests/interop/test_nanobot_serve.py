"""``serve`` in both programs on one config: nanobot 0.3.5's API and ours keep the API's
conversation in the same session (``api:default``), so it continues across them both ways.
The token is nanobot's own ``api.apiKey`` in config.json, which ours honours too."""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import openai

from desktop.core.session.manager import SessionManager
from tests.conftest import write_config
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, jsonl, texts
from tests.waiting import wait_for

TOKEN = "interop-api-token-0123456789"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def serving(shared: Shared, program: str) -> Iterator[openai.OpenAI]:
    """``program serve`` on a free port until the body ends (then Ctrl-C); a client for it."""
    port = _free_port()
    process = shared.start(program, "serve", "--port", str(port))
    try:
        wait_for(lambda: process.poll() is not None or _healthy(port), 120, f"{program} serve")
        assert process.poll() is None, process.communicate()
        with openai.OpenAI(
            base_url=f"http://127.0.0.1:{port}/v1", api_key=TOKEN, max_retries=0
        ) as client:
            yield client
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert TOKEN not in out + err, f"{program} printed the token"


def _ask(client: openai.OpenAI, text: str) -> str | None:
    answer = client.chat.completions.create(
        model="scripted-model", messages=[{"role": "user", "content": text}]
    )
    return answer.choices[0].message.content


def test_the_api_conversation_continues_across_both_programs(shared: Shared) -> None:
    """nanobot's API answers first, ours continues the same conversation, nanobot's again."""
    data = {
        "agents": {
            "defaults": {
                "model": "scripted-model",
                "provider": "custom",
                "workspace": str(shared.workspace),
            }
        },
        "providers": {"custom": {"apiBase": shared.server.url, "apiKey": "sk-interop"}},
        "api": {"apiKey": TOKEN},
    }
    write_config(shared.config, data)
    shared.server.push(Reply("First, from nanobot."))
    with serving(shared, "nanobot") as client:
        assert _ask(client, "question one") == "First, from nanobot."
    shared.server.push(Reply("Second, from ours."))
    with serving(shared, "ours") as client:
        assert _ask(client, "question two") == "Second, from ours."
    assert texts(shared.last_messages(), "assistant") == ["First, from nanobot."]
    shared.server.push(Reply("Third, from nanobot."))
    with serving(shared, "nanobot") as client:
        assert _ask(client, "question three") == "Third, from nanobot."
    assert texts(shared.last_messages(), "assistant") == [
        "First, from nanobot.",
        "Second, from ours.",
    ]
    path = SessionManager(shared.workspace, config_dir=shared.config.parent).path_for("api:default")
    lines = jsonl(path)
    assert lines[0]["key"] == "api:default"
    said = [(m["role"], m["content"]) for m in lines[1:] if m.get("role") in ("user", "assistant")]
    assert said[1::2] == [
        ("assistant", "First, from nanobot."),
        ("assistant", "Second, from ours."),
        ("assistant", "Third, from nanobot."),
    ]
    assert [content for _role, content in said[0::2]][1] == "question two"
    assert Path(shared.config).read_text().count(TOKEN) == 1  # nanobot's own value, kept
