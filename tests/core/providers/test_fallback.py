"""fallbackModels: the next model answers when one fails, the chat is told, both calls count.

A real runtime on the scripted OpenAI server (real LiteLLM path); the server answers by the
model a request names, so the primary model can fail while the fallback answers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage, ModelFallback, RunEvent, StreamReset
from desktop.core.config.schema import Config
from desktop.core.providers.base import ErrorKind, LLMError, LLMProvider
from desktop.core.providers.factory import build_target
from desktop.core.providers.fallback import FallbackChain, should_fall_back
from desktop.core.providers.presets import ModelTarget
from desktop.core.providers.switchable import ModelCall, SwitchableProvider, UsageTag
from desktop.core.runtime import Runtime
from tests.core.agent.conftest import make_provider
from tests.core.usage.helpers import records_of
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.waiting import until

ENDS = ("turn_finished", "turn_stopped", "turn_failed")
BACKUP = "Answered by the backup model."


def _runtime(server: ScriptedOpenAIServer, tmp_path: Path, fallbacks: list[Any]) -> Runtime:
    config = _runtime_config(server, tmp_path, fallbacks)
    return build_runtime(config, make_provider(server.url))


def _runtime_config(server: ScriptedOpenAIServer, tmp_path: Path, fallbacks: list[Any]) -> Config:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Config.model_validate(
        {
            "agents": {"defaults": {"workspace": str(workspace), "fallbackModels": fallbacks}},
            "providers": {"custom": {"apiBase": server.url}},
            "modelPresets": {
                "steady": {"model": "backup-model", "provider": "custom", "temperature": 0.7}
            },
        }
    )


def _by_model(**steps: Callable[[], Any]) -> Callable[[dict[str, Any]], Any]:
    """A router: each request gets the step of the model it names (``scripted`` = primary)."""
    return lambda body: steps[body["model"].replace("-", "_")]()


def _ledger(runtime: Runtime) -> list[Any]:
    return records_of(runtime.ledger.place)


async def test_a_failing_model_hands_the_turn_to_the_fallback_and_the_chat_is_told(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """The primary answers 500 through its retries; the fallback (a preset) answers the turn.
    The window gets a ModelFallback event naming both models; the guard ran before both calls
    and the ledger has the failed call and the answered one under the models that made them."""
    scripted_server.route = _by_model(
        scripted=lambda: Fail(500, "upstream exploded"), backup_model=lambda: Reply(BACKUP)
    )
    runtime = _runtime(scripted_server, tmp_path, ["steady"])
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    guarded: list[tuple[UsageTag, str]] = []

    async def guard(tag: UsageTag, model: str) -> None:
        guarded.append((tag, model))

    runtime.provider.add_call_guard(guard)
    runtime.agent.start()
    try:
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "a", "hello"))
        await until(lambda: any(e.kind in ENDS for e in events))
    finally:
        await runtime.stop()

    assert [e.kind for e in events if e.kind in ENDS] == ["turn_finished"]
    assert getattr(events[-1], "content", None) == BACKUP
    [notice] = [e for e in events if isinstance(e, ModelFallback)]
    assert notice.previous_model == "openai/scripted" and notice.model == "backup-model"
    assert "steady (backup-model) answers instead" in notice.text and "500" not in notice.text
    models = [r.body["model"] for r in scripted_server.chat_requests()]
    assert models == ["scripted", "scripted", "backup-model"]  # the primary's retry, then one
    assert scripted_server.chat_requests()[-1].body["temperature"] == 0.7  # the preset's
    assert [(tag.source, model) for tag, model in guarded] == [
        ("chat", "openai/scripted"),
        ("chat", "openai/backup-model"),
    ]
    records = _ledger(runtime)
    assert [(r.model, r.outcome, r.source) for r in records] == [
        ("openai/scripted", "failed", "chat"),
        ("openai/backup-model", "ok", "chat"),
    ]
    assert records[1].prompt_tokens == 10 and records[1].completion_tokens == 5


async def test_a_chat_network_gets_a_line_before_the_answer(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """Rate-limited past its retries, the primary gives way to an inline fallback; a chat
    network hears about it in one line, then gets the answer."""
    scripted_server.route = _by_model(
        scripted=lambda: Fail(429, "slow down", error_type="rate_limit_exceeded"),
        backup_model=lambda: Reply(BACKUP),
    )
    inline = {"model": "backup-model", "provider": "custom"}
    runtime = _runtime(scripted_server, tmp_path, [inline])
    runtime.agent.start()
    try:
        await runtime.bus.publish_inbound(InboundMessage("telegram", "u1", "c1", "hello"))
        async with asyncio.timeout(60):
            line = await runtime.bus.consume_outbound()
            answer = await runtime.bus.consume_outbound()
    finally:
        await runtime.stop()
    assert line.metadata.get("fallback") is True and line.metadata.get("progress") is True
    assert "backup-model answers instead" in line.content and line.chat_id == "c1"
    assert answer.content == BACKUP


async def test_text_the_failed_model_streamed_is_withdrawn(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """A primary whose streams break off mid-answer: what it showed is reset before the
    fallback's notice, and only the fallback's answer is saved."""
    scripted_server.route = _by_model(
        scripted=lambda: Reply("half an answer that never", close_after=3),
        backup_model=lambda: Reply(BACKUP),
    )
    runtime = _runtime(scripted_server, tmp_path, [{"model": "backup-model", "provider": "custom"}])
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    runtime.agent.start()
    try:
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "a", "hello"))
        await until(lambda: any(e.kind in ENDS for e in events))
        session = runtime.agent.sessions.get_or_create("desktop:a")
    finally:
        await runtime.stop()
    kinds = [e.kind for e in events if isinstance(e, (StreamReset, ModelFallback))]
    assert kinds[-2:] == ["stream_reset", "model_fallback"]
    assert session.messages[-1]["role"] == "assistant"
    assert session.messages[-1]["content"] == BACKUP


async def test_a_request_error_is_not_handed_on(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """A 400 (the request itself is wrong) fails the turn: another model would refuse it too."""
    scripted_server.route = _by_model(
        scripted=lambda: Fail(400, "bad request", error_type="invalid_request_error"),
        backup_model=lambda: Reply(BACKUP),
    )
    runtime = _runtime(scripted_server, tmp_path, ["steady"])
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    runtime.agent.start()
    try:
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "a", "hello"))
        await until(lambda: any(e.kind in ENDS for e in events))
    finally:
        await runtime.stop()
    assert [e.kind for e in events if e.kind in ENDS] == ["turn_failed"]
    assert {r.body["model"] for r in scripted_server.chat_requests()} == {"scripted"}
    assert not any(isinstance(e, ModelFallback) for e in events)


async def test_the_chain_goes_on_past_a_fallback_that_fails_or_cannot_be_built(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """A missing preset is skipped, a fallback without a key is passed over, a failing one
    hands on again; the last answers. With every one failing, the last error is the call's."""
    scripted_server.route = _by_model(
        scripted=lambda: Fail(503, "down"),
        second=lambda: Fail(502, "also down"),
        third=lambda: Reply("third time lucky"),
    )
    chain = [
        "no-such-preset",
        {"model": "gpt-4.1", "provider": "openai"},  # no OpenAI key anywhere
        {"model": "second", "provider": "custom"},
        {"model": "third", "provider": "custom"},
    ]
    config = _runtime_config(scripted_server, tmp_path, chain)

    async def build(target: ModelTarget) -> LLMProvider:  # the real factory, quick retries
        return await build_target(config, None, target, retry_delays=(0.01,))

    provider = SwitchableProvider(
        make_provider(scripted_server.url), fallbacks=FallbackChain(config, build=build)
    )
    calls: list[ModelCall] = []
    provider.add_call_listener(calls.append)
    response = await provider.chat([{"role": "user", "content": "hi"}])
    assert response.content == "third time lucky"
    assert [r.body["model"] for r in scripted_server.chat_requests()] == [
        *["scripted", "scripted", "second", "second", "third"]
    ]
    scripted_server.route = _by_model(
        scripted=lambda: Fail(503, "down"),
        second=lambda: Fail(502, "also down"),
        third=lambda: Fail(500, "everything is down"),
    )
    try:
        await provider.chat([{"role": "user", "content": "hi"}])
    except LLMError as exc:
        assert exc.kind == "server" and "everything is down" in exc.details
    else:
        raise AssertionError("every model failed, the call must fail")
    assert [(c.model, c.outcome) for c in calls] == [
        ("openai/scripted", "failed"),
        ("openai/second", "failed"),
        ("openai/third", "ok"),
        ("openai/scripted", "failed"),
        ("openai/second", "failed"),
        ("openai/third", "failed"),
    ]


def test_which_errors_hand_on() -> None:
    """Server, rate limit, quota, timeout, connection and a refused key hand on; a wrong
    request, a missing model, a budget stop, a cancel or an unknown error do not."""
    handed = {kind for kind in get_args(ErrorKind) if should_fall_back(LLMError("x", kind=kind))}
    assert handed == {"auth", "rate_limit", "quota", "server", "timeout", "connection"}


def test_inline_entries_take_the_primarys_settings() -> None:
    """An inline entry leaves unset what the primary has; a preset brings its own."""
    config = Config.model_validate(
        {
            "agents": {
                "defaults": {
                    "maxTokens": 1234,
                    "temperature": 0.3,
                    "fallbackModels": [
                        {"model": "x", "provider": "custom", "temperature": 0.9},
                        "p",
                    ],
                }
            },
            "modelPresets": {"p": {"model": "y", "maxTokens": 99}},
        }
    )
    first, second = FallbackChain(config).targets()
    assert first == ModelTarget("x", "custom", 1234, 0.9, None, 65_536)
    assert (second.model, second.max_tokens, second.temperature, second.name) == (
        "y",
        99,
        0.1,
        "p",
    )
    assert (
        json.loads(config.model_dump_json(by_alias=True))["agents"]["defaults"]["fallbackModels"][1]
        == "p"
    )
