"""The provider layer against a scripted OpenAI-compatible server, over both provider paths.

Every async test runs three times: through the real LiteLLM path (:class:`LiteLLMProvider`),
through the thin ``openai`` SDK path (:class:`OpenAIProvider`, which OpenAI-wire routes take)
with a client per call, and on that path with the connections kept between calls as the
runtime keeps them (``thin-kept``).
Every test counts HTTP attempts with ``len(server.chat_requests())``: LiteLLM's and the OpenAI
client's own retries are off, so our retry layer is the only one and the counts are exact.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.provider_registry import find_by_name
from desktop.core.providers.base import LLMError, StreamDelta
from desktop.core.providers.litellm_provider import LiteLLMProvider
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.openai_provider import OpenAIProvider
from desktop.core.providers.tokens import _encoding, count_messages, count_text
from tests.fakes.openai_server import Fail, Reply, Reset, ScriptedOpenAIServer, Stall

FAST = (0.05, 0.1, 0.2)
HELLO: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
SECRET = "sk-test-SECRET1234567890abcdef"
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the web.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    },
]


PATHS = {"litellm": LiteLLMProvider, "thin": OpenAIProvider, "thin-kept": OpenAIProvider}
_path: list[str] = ["litellm"]
_kept: list[LiteLLMProvider] = []  # "thin-kept" providers, closed after each test


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each model-calling (async) test runs over both provider paths."""
    if asyncio.iscoroutinefunction(metafunc.function):
        metafunc.parametrize("provider_path", list(PATHS), indirect=True)


@pytest.fixture(autouse=True)
def provider_path(request: pytest.FixtureRequest) -> str:
    """The provider class :func:`make_provider` builds for this test."""
    name = getattr(request, "param", "litellm")
    _path[0] = name
    if name == "thin-kept":
        request.getfixturevalue("close_kept")
    return str(name)


@pytest.fixture
async def close_kept() -> AsyncIterator[None]:
    """Close the connections the "thin-kept" providers of the test kept (their owner's job)."""
    yield
    while _kept:
        await _kept.pop().aclose()


def custom_choice(api_base: str) -> ProviderChoice:
    """The ``custom`` provider pointed at ``api_base``."""
    spec = find_by_name("custom")
    assert spec is not None
    return ProviderChoice(spec=spec, section="custom", model="openai/scripted", api_base=api_base)


def make_provider(server: ScriptedOpenAIServer | str, **options: Any) -> LiteLLMProvider:
    """A provider for the scripted server (or a URL) with tiny retry delays unless told otherwise."""
    options.setdefault("retry_delays", FAST)
    options.setdefault("request_timeout", 10.0)
    options.setdefault("stream_idle_timeout", 10.0)
    url = server if isinstance(server, str) else server.url
    provider = PATHS[_path[0]](custom_choice(url), **options)
    if _path[0] == "thin-kept":  # as the runtime uses it: one client for the calls
        provider.keep_connections()
        _kept.append(provider)
    return provider


def closed_port_url() -> str:
    """An API base on a local port where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class Deltas:
    """Collects stream deltas in arrival order."""

    def __init__(self) -> None:
        self.items: list[StreamDelta] = []
        self.first_text = asyncio.Event()

    def __call__(self, delta: StreamDelta) -> None:
        self.items.append(delta)
        if delta.kind == "text":
            self.first_text.set()

    def joined(self, kind: str) -> str:
        """All pieces of ``kind`` concatenated."""
        return "".join(d.text for d in self.items if d.kind == kind)

    def kinds(self) -> list[str]:
        """The kinds in arrival order."""
        return [d.kind for d in self.items]


# -- success paths --------------------------------------------------------------------------
async def test_streaming_text_reasoning_usage_and_finish(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Text streams in order; <think> and reasoning_content go to reasoning; usage is parsed."""
    text = "Hello streaming world, this arrives in many small pieces."
    scripted_server.push(
        Reply(
            text=f"<think>pondering deeply</think>{text}",
            reasoning="planned first",
            usage=(12, 7),
            chunk=3,
            finish_reason="length",
        )
    )
    deltas = Deltas()
    response = await make_provider(scripted_server).chat_stream(HELLO, on_delta=deltas)

    text_pieces = [d.text for d in deltas.items if d.kind == "text"]
    assert len(text_pieces) > 5  # really streamed, not one blob
    assert "".join(text_pieces) == text
    assert all("<" not in piece and ">" not in piece for piece in text_pieces)
    assert deltas.items[0] == StreamDelta("reasoning", "planned first")
    assert deltas.joined("reasoning") == "planned firstpondering deeply"
    assert "reset" not in deltas.kinds()
    assert response.content == text
    assert response.reasoning_content is not None
    assert (
        "planned first" in response.reasoning_content
        and "pondering deeply" in response.reasoning_content
    )
    assert response.usage.prompt_tokens == 12 and response.usage.completion_tokens == 7
    assert response.finish_reason == "length"
    assert response.tool_calls == [] and response.attempts == 1
    requests = scripted_server.chat_requests()
    assert len(requests) == 1
    assert requests[0].body["stream"] is True
    assert requests[0].body["messages"] == HELLO


async def test_non_streaming_tool_calls_parsed_repaired_and_rejected(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Arguments become dicts; repairable JSON is repaired; non-objects are marked as errors."""
    scripted_server.push(
        Reply(
            tool_calls=[
                ("read_file", '{"path": "notes/a.txt"}'),
                ("search", "{'query': 'weather', 'limit': 3,}"),
                ("read_file", "[1, 2]"),
                ("search", '"just text"'),
            ],
            usage=(30, 9),
        )
    )
    response = await make_provider(scripted_server).chat(HELLO, TOOLS)

    assert response.content is None
    assert response.finish_reason == "tool_calls" and response.has_tool_calls
    assert [c.id for c in response.tool_calls] == ["call_0", "call_1", "call_2", "call_3"]
    assert [c.name for c in response.tool_calls] == ["read_file", "search", "read_file", "search"]
    good, repaired, array, string = response.tool_calls
    assert good.arguments == {"path": "notes/a.txt"} and good.error is None
    assert repaired.arguments == {"query": "weather", "limit": 3} and repaired.error is None
    for bad in (array, string):
        assert bad.arguments == {}
        assert bad.error is not None and "JSON object" in bad.error
    assert response.usage.prompt_tokens == 30 and response.usage.completion_tokens == 9
    requests = scripted_server.chat_requests()
    assert len(requests) == 1
    assert not requests[0].body.get("stream")
    assert [t["function"]["name"] for t in requests[0].body["tools"]] == ["read_file", "search"]


async def test_non_streaming_think_and_reasoning(scripted_server: ScriptedOpenAIServer) -> None:
    """A non-streamed answer also has <think> moved out of the content."""
    scripted_server.push(
        Reply(text="<think>weighing options</think>\n\nThe answer is 42.", usage=(8, 4))
    )
    response = await make_provider(scripted_server).chat(HELLO)

    assert response.content == "The answer is 42."
    assert response.reasoning_content == "weighing options"
    assert response.finish_reason == "stop" and response.tool_calls == []
    assert response.usage.total_tokens == 12
    assert len(scripted_server.chat_requests()) == 1


async def test_streamed_tool_calls_are_assembled(scripted_server: ScriptedOpenAIServer) -> None:
    """Tool-call arguments streamed in 8-character pieces are joined per call index."""
    first = '{"query": "weather in Paris tomorrow", "limit": 3}'
    second = '{"path": "/tmp/some/long/path/file.txt"}'
    scripted_server.push(
        Reply(text="Let me check.", tool_calls=[("search", first), ("read_file", second)])
    )
    deltas = Deltas()
    response = await make_provider(scripted_server).chat_stream(HELLO, TOOLS, on_delta=deltas)

    assert response.content == "Let me check."
    assert deltas.joined("text") == "Let me check."
    assert response.finish_reason == "tool_calls"
    assert [(c.id, c.name) for c in response.tool_calls] == [
        ("call_0", "search"),
        ("call_1", "read_file"),
    ]
    assert response.tool_calls[0].arguments == {"query": "weather in Paris tomorrow", "limit": 3}
    assert response.tool_calls[1].arguments == {"path": "/tmp/some/long/path/file.txt"}
    assert all(c.error is None for c in response.tool_calls)
    assert len(scripted_server.chat_requests()) == 1


# -- retries ----------------------------------------------------------------------------------
async def test_429_honours_retry_after(scripted_server: ScriptedOpenAIServer) -> None:
    """A 429 with Retry-After: 1 is retried after at least a second, despite tiny delays."""
    scripted_server.push(
        Fail(
            429,
            "Rate limit reached, slow down",
            headers={"Retry-After": "1"},
            error_type="rate_limit_error",
        ),
        Reply("after the wait"),
    )
    response = await make_provider(scripted_server).chat(HELLO)

    assert response.content == "after the wait"
    assert response.attempts == 2
    requests = scripted_server.chat_requests()
    assert len(requests) == 2
    assert requests[1].at - requests[0].at >= 0.95


async def test_500_then_503_then_success(scripted_server: ScriptedOpenAIServer) -> None:
    """Server errors are retried until an answer comes, for streaming calls too."""
    scripted_server.push(Fail(500), Fail(503, "overloaded"), Reply("third time lucky"))
    deltas = Deltas()
    response = await make_provider(scripted_server).chat_stream(HELLO, on_delta=deltas)

    assert response.content == "third time lucky"
    assert response.attempts == 3
    assert len(scripted_server.chat_requests()) == 3
    assert deltas.joined("text") == "third time lucky"
    assert "reset" not in deltas.kinds()  # nothing was shown before the good attempt


async def test_retries_exhausted_make_exactly_four_requests(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Four 500s: one try plus three retries, and no hidden retries in LiteLLM or OpenAI."""
    scripted_server.push(Fail(500), Fail(500), Fail(500), Fail(500), Reply("never reached"))
    with pytest.raises(LLMError) as caught:
        await make_provider(scripted_server).chat(HELLO)

    assert caught.value.kind == "server"
    assert caught.value.status == 500
    assert caught.value.attempts == 4
    assert len(scripted_server.chat_requests()) == 4


@pytest.mark.parametrize(
    ("step", "kind"),
    [
        (Fail(401, "Incorrect API key provided", error_type="invalid_request_error"), "auth"),
        (Fail(403, "Forbidden for this key", error_type="permission_error"), "auth"),
        (Fail(400, "messages: field required", error_type="invalid_request_error"), "bad_request"),
        (
            Fail(
                429,
                "You exceeded your current quota (insufficient_quota)",
                error_type="insufficient_quota",
            ),
            "quota",
        ),
    ],
    ids=["401", "403", "400", "429-quota"],
)
async def test_permanent_errors_are_not_retried(
    scripted_server: ScriptedOpenAIServer, step: Fail, kind: str
) -> None:
    """Auth, permission, bad-request and quota errors fail at once with the right kind."""
    scripted_server.push(step, Reply("a retry would get this"))
    with pytest.raises(LLMError) as caught:
        await make_provider(scripted_server).chat(HELLO)

    assert caught.value.kind == kind
    assert caught.value.status == step.status
    assert caught.value.retryable is False
    assert caught.value.attempts == 1
    assert len(scripted_server.chat_requests()) == 1


async def test_connection_reset_then_success(scripted_server: ScriptedOpenAIServer) -> None:
    """A reset before any response is a retryable connection error."""
    scripted_server.push(Reset(), Reply("reconnected"))
    response = await make_provider(scripted_server).chat(HELLO)

    assert response.content == "reconnected"
    assert response.attempts == 2
    assert len(scripted_server.chat_requests()) == 2


@pytest.mark.parametrize("stream", [False, True], ids=["chat", "stream"])
async def test_transport_failures_are_connection_errors(
    scripted_server: ScriptedOpenAIServer, stream: bool
) -> None:
    """Reset before headers, reset mid-stream and a refused connection: kind connection, no status."""
    cases: list[tuple[ScriptedOpenAIServer | str, Any]] = [
        (scripted_server, Reset()),
        (closed_port_url(), None),
    ]
    if stream:  # only a streamed answer can be cut off in the middle
        cases.append((scripted_server, Reply(text="cut off in the middle", reset_after=2)))
    for target, step in cases:
        if step is not None:
            scripted_server.push(step)
        provider = make_provider(target, retry_delays=())
        with pytest.raises(LLMError) as caught:
            await (provider.chat_stream(HELLO) if stream else provider.chat(HELLO))
        assert (caught.value.kind, caught.value.status) == ("connection", None), (
            step,
            caught.value.message,
        )
        assert caught.value.retryable and caught.value.attempts == 1
        assert caught.value.message.startswith("Could not reach the provider")
    assert len(scripted_server.chat_requests()) == (2 if stream else 1)  # nothing was retried


async def test_stall_before_headers_times_out_then_retries(
    scripted_server: ScriptedOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A server that says nothing for longer than request_timeout is abandoned and retried."""
    scripted_server.push(Stall(3, then=Reply("too late")), Reply("on time"))
    provider = make_provider(scripted_server, request_timeout=1.0)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="desktop.core.providers"):
        response = await provider.chat_stream(HELLO)
    elapsed = time.monotonic() - started

    assert response.content == "on time"
    assert response.attempts == 2
    assert len(scripted_server.chat_requests()) == 2
    assert elapsed >= 0.9  # waited out request_timeout, then gave up before the 3 s stall ended
    retries = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert len(retries) == 1 and "(timeout)" in retries[0]


async def test_stall_before_headers_reports_timeout_kind(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Without retries left, a stall surfaces as a timeout error after one attempt."""
    scripted_server.push(Stall(3, then=Reply("too late")))
    # Only the stall is waited for (no attempt has to succeed): any timeout under its 3 s
    # proves the point, and a short one is not waited out in full.
    provider = make_provider(scripted_server, request_timeout=0.3, retry_delays=())
    with pytest.raises(LLMError) as caught:
        await provider.chat(HELLO)

    assert caught.value.kind == "timeout" and caught.value.retryable
    assert caught.value.attempts == 1
    assert len(scripted_server.chat_requests()) == 1


async def test_stall_mid_stream_resets_and_does_not_duplicate(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """A stream that goes silent is abandoned; the retry starts over after a reset delta."""
    scripted_server.push(
        Reply(text="partial answer that stalls", stall_after=2, stall_for=3),
        Reply(text="complete second answer"),
    )
    deltas = Deltas()
    provider = make_provider(scripted_server, stream_idle_timeout=1.0)
    response = await provider.chat_stream(HELLO, on_delta=deltas)

    kinds = deltas.kinds()
    assert kinds.count("reset") == 1
    cut = kinds.index("reset")
    before = "".join(d.text for d in deltas.items[:cut] if d.kind == "text")
    after = "".join(d.text for d in deltas.items[cut + 1 :] if d.kind == "text")
    assert (
        before
        and "partial answer that stalls".startswith(before)
        and before != "partial answer that stalls"
    )
    assert after == "complete second answer"
    assert response.content == "complete second answer"
    assert response.attempts == 2
    assert len(scripted_server.chat_requests()) == 2


async def test_reset_mid_stream_resets_and_does_not_duplicate(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """A connection reset in the middle of a stream is retried without keeping the partial text."""
    scripted_server.push(
        Reply(text="broken answer that is cut off", reset_after=2, delay=0.05),
        Reply(text="whole answer"),
    )
    deltas = Deltas()
    response = await make_provider(scripted_server).chat_stream(HELLO, on_delta=deltas)

    assert response.content == "whole answer"
    assert response.attempts == 2
    assert len(scripted_server.chat_requests()) == 2
    kinds = deltas.kinds()
    assert kinds.count("reset") == 1
    after = "".join(d.text for d in deltas.items[kinds.index("reset") + 1 :] if d.kind == "text")
    assert after == "whole answer"
    assert "broken" not in (response.content or "")


async def test_cancel_streaming_closes_the_connection(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Cancelling a stream raises CancelledError promptly and the server sees the client go away."""
    # 240 chunks 0.05 s apart: ~12 s of stream, and the server notices the client gone at its
    # next writes, a tenth of a second after the cancel.
    scripted_server.push(Reply(text="slow " * 240, chunk=5, delay=0.05))
    deltas = Deltas()
    provider = make_provider(scripted_server)
    task = asyncio.create_task(provider.chat_stream(HELLO, on_delta=deltas))
    await asyncio.wait_for(deltas.first_text.wait(), 10)
    assert scripted_server.aborted_streams == 0

    task.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    # the rest of the stream would take ~12 s; generous for a loaded machine
    assert time.monotonic() - started < 6.0

    deadline = time.monotonic() + 5
    while scripted_server.aborted_streams == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert scripted_server.aborted_streams == 1
    assert scripted_server.completed_streams == 0
    assert len(scripted_server.chat_requests()) == 1


async def test_failing_consumer_closes_the_stream(scripted_server: ScriptedOpenAIServer) -> None:
    """When on_delta raises, the call fails without a retry and the HTTP stream is closed."""
    scripted_server.push(Reply(text="slow " * 240, chunk=5, delay=0.05))  # as above: ~12 s

    def explode(delta: StreamDelta) -> None:
        if delta.kind == "text":
            raise RuntimeError("the window went away")

    with pytest.raises(Exception, match="the window went away"):
        await make_provider(scripted_server).chat_stream(HELLO, on_delta=explode)

    deadline = time.monotonic() + 5
    while scripted_server.aborted_streams == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert scripted_server.aborted_streams == 1
    assert scripted_server.completed_streams == 0
    assert len(scripted_server.chat_requests()) == 1


# -- secrets and caching ----------------------------------------------------------------------
async def test_error_text_is_redacted(scripted_server: ScriptedOpenAIServer) -> None:
    """A server that echoes the key back does not get it into our error message."""
    scripted_server.push(Fail(401, "Invalid key", echo_key=True))
    provider = make_provider(scripted_server, api_key=SECRET)
    with pytest.raises(LLMError) as caught:
        await provider.chat(HELLO)

    error = caught.value
    assert scripted_server.chat_requests()[0].headers.get("Authorization") == f"Bearer {SECRET}"
    assert error.kind == "auth"
    assert "Invalid key" in error.message  # the server's text is kept…
    for text in (error.message, str(error), repr(error), repr(error.args)):
        assert SECRET not in text  # …but never the key
        assert "SECRET1234567890abcdef" not in text
    assert error.__cause__ is None and error.__suppress_context__


async def test_prompt_caching_marks_system_and_last_tool(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """OpenRouter requests carry cache_control on the system block and the last tool only."""
    spec = find_by_name("openrouter")
    assert spec is not None and spec.supports_prompt_caching
    choice = ProviderChoice(
        spec=spec,
        section="openrouter",
        model="openrouter/anthropic/claude-x",
        api_base=scripted_server.url,
    )
    provider = PATHS[_path[0]](
        choice,
        api_key="sk-or-test-0123456789",
        retry_delays=FAST,
        request_timeout=10.0,
        stream_idle_timeout=10.0,
    )
    messages = [
        {"role": "system", "content": "You are a careful assistant."},
        {"role": "user", "content": "hi"},
    ]
    response = await provider.chat_stream(messages, TOOLS)
    assert response.content == "Hello from the scripted server."

    body = scripted_server.chat_requests()[0].body
    system = body["messages"][0]
    assert system["role"] == "system"
    assert isinstance(system["content"], list)
    assert system["content"][-1]["text"] == "You are a careful assistant."
    assert system["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][1]["content"] == "hi"
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in body["tools"][0]
    assert messages[0]["content"] == "You are a careful assistant."  # caller's list untouched


async def test_custom_provider_sends_no_cache_control(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """A plain OpenAI-compatible server gets the messages and tools unmarked."""
    messages = [
        {"role": "system", "content": "You are a careful assistant."},
        {"role": "user", "content": "hi"},
    ]
    await make_provider(scripted_server).chat(messages, TOOLS)

    body = scripted_server.chat_requests()[0].body
    assert body["messages"][0] == {"role": "system", "content": "You are a careful assistant."}
    assert len(body["tools"]) == 2
    assert "cache_control" not in repr(body)


# -- tokens ---------------------------------------------------------------------------------
def test_token_counting_works_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken counts with LiteLLM's bundled encodings; no network needed."""

    def no_network(*_args: Any, **_kwargs: Any) -> None:
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    _encoding.cache_clear()  # load the encoding again, now without network
    assert count_text("") == 0
    hello = count_text("hello world")
    assert 0 < hello <= 3
    assert count_text("hello world " * 50) > 10 * hello
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hello world"},
    ]
    total = count_messages(messages)
    assert total > count_text("Be brief.") + hello
    assert (
        count_messages([*messages, {"role": "assistant", "content": "hello world " * 20}])
        > total + 20
    )


# -- defects found by a new user (wire shape, truncation, error text) ----------------------
async def test_every_message_on_the_wire_has_a_content_key(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """An assistant message with tool calls and no text still carries ``content`` on the wire
    (llama.cpp's chat template crashed on the missing key after answering HTTP 200)."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "What time is it?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "clock", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "name": "clock", "content": "10:30"},
    ]
    provider = make_provider(scripted_server)
    await provider.chat_stream(messages)
    await provider.chat(messages)
    for request in scripted_server.chat_requests():
        sent = request.body["messages"]
        assert all("content" in m for m in sent), sent
        assert sent[1]["content"] == "" and sent[1]["tool_calls"][0]["id"] == "c1"


async def test_a_stream_cut_off_without_a_finish_reason_is_retried(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """The server ends the stream mid-answer without a finish reason: that attempt is an
    error (retried with a reset), never a complete answer."""
    scripted_server.push(Reply("Hello there, this will be cut", close_after=4), Reply("Whole."))
    deltas: list[StreamDelta] = []
    response = await make_provider(scripted_server).chat_stream(HELLO, on_delta=deltas.append)
    assert response.content == "Whole." and response.attempts == 2
    kinds = [d.kind for d in deltas]
    assert "retry" in kinds and "reset" in kinds and kinds.index("retry") < kinds.index("reset")
    after_reset = "".join(d.text for d in deltas[kinds.index("reset") + 1 :] if d.kind == "text")
    assert after_reset == "Whole."


async def test_a_stream_always_cut_off_fails_with_a_clear_sentence(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Every attempt cut off: a retryable connection error, one sentence for the person."""
    for _ in range(4):
        scripted_server.push(Reply("Half an ans", close_after=3))
    with pytest.raises(LLMError) as caught:
        await make_provider(scripted_server).chat_stream(HELLO)
    assert caught.value.kind == "connection" and caught.value.attempts == 4
    assert caught.value.message == (
        "The connection to the model ended before the answer was complete."
    )
    assert len(scripted_server.chat_requests()) == 4


async def test_retry_notices_say_what_happened_before_waiting(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Each retry is announced (attempt n of m, the delay, one sentence) as it happens."""
    scripted_server.push(Fail(500, "overloaded"), Fail(503, "still overloaded"), Reply("ok"))
    notices: list[StreamDelta] = []
    await make_provider(scripted_server).chat_stream(
        HELLO, on_delta=lambda d: notices.append(d) if d.kind == "retry" else None
    )
    assert [(n.attempt, n.max_attempts) for n in notices] == [(1, 4), (2, 4)]
    assert [n.delay_s for n in notices] == list(FAST[:2])
    assert notices[0].text == "The provider had a server error: overloaded."


async def test_error_headline_is_one_sentence_and_details_keep_the_chain(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """The person reads one sentence without LiteLLM's wrappers or a repeated headline; the
    whole (redacted) text stays available as details."""
    scripted_server.push(
        Fail(401, "Incorrect API key provided", error_type="invalid_request_error")
    )
    with pytest.raises(LLMError) as caught:
        await make_provider(scripted_server, api_key=SECRET).chat_stream(HELLO)
    error = caught.value
    assert error.message == "The provider rejected the API key: Incorrect API key provided."
    assert "litellm" not in error.message.lower() and error.message.count(":") == 1
    assert "Error code" not in error.message  # the SDK's own wrapper text
    assert "AuthenticationError" in error.details and "HTTP 401" in error.details
    assert SECRET not in error.details


async def test_a_tool_name_repeated_in_every_chunk_is_not_concatenated(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """llama.cpp repeats the function name in each streamed chunk; the call keeps one name."""
    scripted_server.push(
        Reply(tool_calls=[("read_file", '{"path": "notes/todo.md"}')], repeat_name=True)
    )
    response = await make_provider(scripted_server).chat_stream(HELLO, TOOLS)
    [call] = response.tool_calls
    assert call.name == "read_file" and call.arguments == {"path": "notes/todo.md"}


def test_a_dotenv_file_where_the_app_starts_is_not_loaded(tmp_path: Path) -> None:
    """LiteLLM's import loads `.env` (in the frozen app: from the folder the app was started
    in) unless told not to; a project's `.env` must not change our keys or endpoints."""
    (tmp_path / ".env").write_text("OPENAI_BASE_URL=http://attacker.invalid\nNB_PROBE=loaded\n")
    code = (
        "import sys, os; sys.frozen = True\n"  # the frozen app's rule: dotenv looks in the cwd
        "from desktop.core.providers.litellm_provider import import_litellm\n"
        "import_litellm()\n"
        "print(os.environ.get('NB_PROBE'), os.environ.get('OPENAI_BASE_URL'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("LITELLM_MODE", "NB_PROBE")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert result.stdout.split() == ["None", "None"], result.stdout
