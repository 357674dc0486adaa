"""Every provider section of nanobot 0.3.5's default config routes one real request.

The config is nanobot's own (``tests/fixtures/nanobot_0_3_5/config.json``, written by
nanobot-ai 0.3.5; the interop tier regenerates it with the real CLI). Each section gets an
apiKey and an apiBase on a local server that speaks the provider's wire protocol
(:mod:`tests.fakes.wire_server`); the request goes through the app's factory and the real
LiteLLM path, and the table (:mod:`tests.provider_wire`) says where it must arrive.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic.alias_generators import to_snake

from desktop.core.config.provider_registry import PROVIDERS, find_by_name
from desktop.core.config.provider_schema import ProvidersConfig
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMError
from desktop.core.providers.factory import build_provider
from desktop.core.providers.matching import ProviderNotFound, choose_provider
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.wire_server import WireServer, verify_sigv4
from tests.provider_wire import ROUTES, TRANSCRIPTION_ONLY, Route, mismatches, route_one

FIXTURE = Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "config.json"
# nanobot 0.3.5's registry (nanobot/providers/registry.py): the sections its config writes, and
# the three OAuth ones it keeps out of the file.
NANOBOT_PROVIDERS = set(
    """
    custom azure_openai bedrock openrouter orcarouter edenai opencode opencode_zen opencode_go
    huggingface skywork aihubmix siliconflow novita volcengine volcengine_coding_plan byteplus
    byteplus_coding_plan anthropic openai openai_codex xai_grok github_copilot deepseek gemini
    zhipu dashscope modelscope moonshot kimi_coding minimax minimax_anthropic mistral stepfun
    xiaomi_mimo longcat ant_ling vllm ollama lm_studio atomic_chat ovms nvidia groq assemblyai
    qianfan
    """.split()  # noqa: SIM905 - a word list reads better than 46 quoted strings
)


def nanobot_default() -> dict[str, Any]:
    """nanobot 0.3.5's default config.json."""
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def test_every_section_of_nanobots_registry_is_known() -> None:
    """The registry, the config schema and the route table cover nanobot's 46 providers."""
    ours = {spec.name for spec in PROVIDERS}
    assert ours >= NANOBOT_PROVIDERS, NANOBOT_PROVIDERS - ours
    assert set(ProvidersConfig.model_fields) >= NANOBOT_PROVIDERS
    in_file = {to_snake(name) for name in nanobot_default()["providers"]}
    assert len(in_file) == 43 and in_file <= NANOBOT_PROVIDERS
    assert {r.section for r in ROUTES} | TRANSCRIPTION_ONLY == in_file
    for name in NANOBOT_PROVIDERS:
        spec = find_by_name(name)
        assert spec is not None and spec.display_name


def test_nanobots_default_config_loads_with_every_section_typed() -> None:
    """Each section of nanobot's file loads into its own typed section, Bedrock's with its
    region and profile."""
    config = Config.model_validate(nanobot_default())
    for name in NANOBOT_PROVIDERS:
        assert config.provider_config(name) is not None, name
    assert config.providers.bedrock.region is None and config.providers.bedrock.profile is None
    assert config.providers.model_extra == {}


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.section)
async def test_each_section_routes_one_request(
    route: Route, wire: WireServer, memory_keyring: MemoryKeyring
) -> None:
    """A filled section of nanobot's config sends its request where that provider's API is,
    with its key in the provider's header and the model it was given."""
    response, seen = await route_one(nanobot_default(), route, wire, SecretStore())
    assert mismatches(route, seen) == []
    assert response.content == "pong"


@pytest.mark.parametrize(
    "route",
    [
        Route("gemini", "/v1beta/openai", "gemini-2.5-flash", ""),
        Route("anthropic", "/v1", "claude-sonnet-4-5", ""),
        Route("bedrock", "", "bedrock/amazon.nova-pro-v1:0", ""),
    ],
    ids=lambda r: r.section,
)
async def test_a_stream_cut_before_its_end_is_not_an_answer(
    route: Route, wire: WireServer, memory_keyring: MemoryKeyring
) -> None:
    """A stream that stops before the server's end (OpenAI's finish reason, Anthropic's
    message_stop, Bedrock's messageStop) is a broken connection, never a complete answer; with
    its end it is one."""
    wire.cut = True
    with pytest.raises(LLMError) as caught:
        await route_one(nanobot_default(), route, wire, SecretStore())
    assert caught.value.kind == "connection"
    wire.take()
    wire.cut = False
    response, _seen = await route_one(nanobot_default(), route, wire, SecretStore())
    assert response.content == "pong"


async def test_ollama_base_without_v1_works_too(
    wire: WireServer, memory_keyring: MemoryKeyring
) -> None:
    """The Ollama base our earlier versions wrote (without /v1) reaches the same chat API."""
    route = Route("ollama", "", "llama3.2", "/v1/chat/completions")
    response, seen = await route_one(nanobot_default(), route, wire, SecretStore())
    assert mismatches(route, seen) == [] and response.content == "pong"


async def test_bedrock_signs_with_aws_credentials(
    wire: WireServer, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without an API key a Bedrock request is signed (SigV4) with the environment's AWS
    credentials for the section's region; the server's check of the signature passes."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "session-token-example")
    data = nanobot_default()
    data["providers"]["bedrock"].update(apiBase=wire.url, region="eu-central-1")
    data["agents"]["defaults"].update(model="bedrock/amazon.nova-pro-v1:0", provider="auto")
    config = Config.model_validate(data)
    built = build_provider(config, SecretStore(), environ={}, retry_delays=())
    assert built.choice.spec.name == "bedrock" and built.choice.reason == "model prefix"
    streamed = await built.provider.chat_stream([{"role": "user", "content": "ping"}])
    answered = await built.provider.chat([{"role": "user", "content": "ping"}])
    assert streamed.content == answered.content == "pong"
    stream_request, plain_request = wire.take()
    assert stream_request.path == "/model/amazon.nova-pro-v1%3A0/converse-stream"
    assert plain_request.path == "/model/amazon.nova-pro-v1%3A0/converse"
    for seen in (stream_request, plain_request):
        assert seen.header("X-Amz-Security-Token") == "session-token-example"
        assert verify_sigv4(
            seen,
            wire.url,
            access_key="AKIDEXAMPLE",
            secret_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            region="eu-central-1",
        )
    assert not verify_sigv4(
        plain_request, wire.url, access_key="AKIDEXAMPLE", secret_key="wrong", region="eu-central-1"
    )


async def test_bedrock_without_credentials_says_what_to_do(
    wire: WireServer, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No key and no AWS credentials: a clear auth error, and nothing is sent."""
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    data = nanobot_default()
    data["providers"]["bedrock"].update(apiBase=wire.url, region="us-east-1")
    data["agents"]["defaults"].update(model="bedrock/amazon.nova-pro-v1:0")
    built = build_provider(Config.model_validate(data), SecretStore(), environ={}, retry_delays=())
    with pytest.raises(LLMError) as caught:
        await built.provider.chat([{"role": "user", "content": "ping"}])
    assert caught.value.kind == "auth" and "Bedrock API key" in caught.value.message
    assert wire.take() == []


async def test_llama_models_fetch_no_tokenizer(
    wire: WireServer, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pricing an answer of a Llama 3 model downloads nothing (LiteLLM would fetch a tokenizer
    from huggingface.co, retrying for ~20 s offline, on the event loop)."""
    import tokenizers

    fetched: list[str] = []

    def fetch(name: str, *args: Any, **kwargs: Any) -> Any:
        fetched.append(name)
        raise OSError("no network in this test")

    monkeypatch.setattr(tokenizers.Tokenizer, "from_pretrained", fetch)
    for route in ROUTES:
        if "llama-3" in route.model.lower():
            response, _seen = await route_one(nanobot_default(), route, wire, SecretStore())
            assert response.content == "pong"
    assert fetched == []


def test_assemblyai_is_never_a_chat_provider() -> None:
    """AssemblyAI only transcribes: forcing it says so, a key for it never routes a chat."""
    config = Config.model_validate(
        {"agents": {"defaults": {"model": "assemblyai/best", "provider": "assemblyai"}}}
    )
    with pytest.raises(ProviderNotFound, match="only transcribes"):
        choose_provider(config, has_key=lambda _n: True)
    config.agents.defaults.provider = "auto"
    with pytest.raises(ProviderNotFound):
        choose_provider(config, has_key=lambda name: name == "assemblyai")
