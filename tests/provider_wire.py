"""Every provider section of nanobot 0.3.5's config, and where its request must arrive.

:data:`ROUTES` is the table the provider tests walk: for each ``providers.<section>`` of
nanobot's default config, the API base as a nanobot user writes it (a local server's address
followed by the path of the provider's real endpoint), the model asked for, and what the
request must look like when it reaches the server: its path, its authentication header and the
model it names. :func:`route_one` fills a config (the one given: nanobot's own default) with
``apiKey`` and ``apiBase`` for a section, forces that provider, builds it through the app's
factory and sends one streamed request over the real LiteLLM path.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pydantic.alias_generators import to_camel

from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMResponse
from desktop.core.providers.factory import build_provider
from tests.fakes.wire_server import WireRequest, WireServer

BEARER = ("Authorization", "Bearer {key}")
ANTHROPIC = ("x-api-key", "{key}")


@dataclass(frozen=True)
class Route:
    """One provider section and the request it must produce.

    Attributes:
        section: The registry name (snake_case of nanobot's camelCase section).
        base: The path of the provider's real API base (appended to the local server's URL).
        model: The model configured.
        path: The path the request must arrive at (without the query).
        auth: ``(header, value)`` with ``{key}`` standing for the section's apiKey.
        sent_model: The model named in the body (``None``: it is in the path).
        query: Query parameters the request must carry.
        headers: Further headers it must carry.
    """

    section: str
    base: str
    model: str
    path: str
    auth: tuple[str, str] = BEARER
    sent_model: str | None = ""
    query: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def expected_model(self) -> str | None:
        """The model the body must name."""
        return self.model if self.sent_model == "" else self.sent_model


def _chat(section: str, base: str, model: str = "", **extra: Any) -> Route:
    """An OpenAI-compatible provider: ``<base>/chat/completions`` with a bearer key."""
    return Route(section, base, model or f"{section}-model", f"{base}/chat/completions", **extra)


ROUTES: tuple[Route, ...] = (
    _chat("custom", "/v1"),
    Route(
        "azure_openai",
        "",
        "my-deployment",
        "/openai/deployments/my-deployment/chat/completions",
        ("api-key", "{key}"),
        query=(("api-version", "2024-10-21"),),
    ),
    Route(
        "bedrock",
        "",
        "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
        "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream",
        sent_model=None,
    ),
    _chat("openrouter", "/api/v1", "anthropic/claude-sonnet-4"),
    _chat("orcarouter", "/v1"),
    _chat("edenai", "/v3", "anthropic/claude-sonnet-4-5"),
    _chat("opencode", "/zen/v1", "opencode/qwen3-coder", sent_model="qwen3-coder"),
    _chat("opencode_zen", "/zen/v1", "opencode/qwen3-coder", sent_model="qwen3-coder"),
    _chat("opencode_go", "/zen/go/v1", "opencode-go/kimi-k2", sent_model="kimi-k2"),
    _chat("huggingface", "/v1", "meta-llama/Llama-3.3-70B-Instruct"),
    _chat("skywork", "/agent/v1"),
    _chat("aihubmix", "/v1", "anthropic/claude-sonnet-4", sent_model="claude-sonnet-4"),
    _chat("siliconflow", "/v1", "Qwen/Qwen3-8B"),
    _chat("novita", "/openai", "deepseek/deepseek-v3"),
    _chat("volcengine", "/api/v3", "doubao-seed-1-6"),
    _chat("volcengine_coding_plan", "/api/coding/v3"),
    _chat("byteplus", "/api/v3"),
    _chat("byteplus_coding_plan", "/api/coding/v3"),
    Route("anthropic", "/v1", "claude-sonnet-4-5", "/v1/messages", ANTHROPIC),
    _chat("openai", "/v1", "gpt-4.1-mini"),
    _chat("deepseek", "", "deepseek-chat"),  # nanobot's base is https://api.deepseek.com
    # nanobot reaches Gemini through Google's OpenAI-compatible endpoint.
    _chat("gemini", "/v1beta/openai", "gemini-2.5-flash"),
    _chat("zhipu", "/api/paas/v4", "glm-4.6"),
    _chat("dashscope", "/compatible-mode/v1", "qwen-max"),
    _chat("modelscope", "/v1", "Qwen/Qwen3-32B"),
    _chat("moonshot", "/v1", "kimi-k2-0905-preview"),
    Route(
        "kimi_coding",
        "/coding/v1",
        "kimi-for-coding",
        "/coding/v1/messages",
        ANTHROPIC,
        headers=(("User-Agent", "claude-code/0.1.0"),),
    ),
    _chat("minimax", "/v1", "MiniMax-M2"),
    Route("minimax_anthropic", "/anthropic", "MiniMax-M2", "/anthropic/v1/messages", ANTHROPIC),
    _chat("mistral", "/v1", "mistral-large-latest"),
    _chat("stepfun", "/v1", "step-3"),
    _chat("xiaomi_mimo", "/v1", "mimo-v2-flash"),
    _chat("longcat", "/openai/v1", "LongCat-Flash-Chat"),
    _chat("ant_ling", "/v1", "Ling-1T"),
    _chat("vllm", "/v1", "Qwen/Qwen3-8B"),
    _chat("ollama", "/v1", "llama3.2"),
    _chat("lm_studio", "/v1", "qwen3-8b"),
    _chat("atomic_chat", "/v1", "llama3.2"),
    _chat("ovms", "/v3", "OpenVINO/Qwen3-8B-int4-ov"),
    _chat("nvidia", "/v1", "nvidia/llama-3.3-nemotron-super-49b-v1"),  # the id holds "nvidia/"
    _chat("groq", "/openai/v1", "llama-3.3-70b-versatile"),
    _chat("qianfan", "/v2", "ernie-4.5-turbo-128k"),
)
"""Every chat provider section of nanobot 0.3.5's default config (all but AssemblyAI, which
only transcribes: see the transcription tests)."""

TRANSCRIPTION_ONLY = frozenset({"assemblyai"})


def key_for(section: str) -> str:
    """The apiKey the table puts into ``section``."""
    return f"key-{section.replace('_', '-')}-0123456789"


def filled(nanobot_default: dict[str, Any], route: Route, server: WireServer) -> Config:
    """nanobot's default config with ``route``'s section filled and its provider forced."""
    data = copy.deepcopy(nanobot_default)
    section = data["providers"][to_camel(route.section)]
    section["apiKey"] = key_for(route.section)
    section["apiBase"] = server.url + route.base
    data["agents"]["defaults"]["provider"] = route.section
    data["agents"]["defaults"]["model"] = route.model
    return Config.model_validate(data)


async def route_one(
    nanobot_default: dict[str, Any], route: Route, server: WireServer, store: SecretStore
) -> tuple[LLMResponse, WireRequest]:
    """Send one streamed request for ``route`` and return the answer and what arrived."""
    config = filled(nanobot_default, route, server)
    built = build_provider(config, store, environ={}, retry_delays=())
    response = await built.provider.chat_stream([{"role": "user", "content": "ping"}])
    arrived = server.take()
    assert len(arrived) == 1, [r.path for r in arrived]
    return response, arrived[0]


def mismatches(route: Route, seen: WireRequest) -> list[str]:
    """What about ``seen`` differs from what ``route`` expects (empty: all as expected)."""
    problems = []
    if seen.path != route.path:
        problems.append(f"path {seen.path!r} != {route.path!r}")
    name, template = route.auth
    if seen.header(name) != template.format(key=key_for(route.section)):
        problems.append(f"{name}: {seen.header(name)!r}")
    body = seen.body if isinstance(seen.body, dict) else {}
    if route.expected_model is not None and body.get("model") != route.expected_model:
        problems.append(f"model {body.get('model')!r} != {route.expected_model!r}")
    for key, value in route.query:
        if seen.query.get(key) != [value]:
            problems.append(f"query {key}={seen.query.get(key)!r}")
    for key, value in route.headers:
        if seen.header(key) != value:
            problems.append(f"header {key}: {seen.header(key)!r}")
    return problems
