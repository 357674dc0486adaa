"""The thin provider path: OpenAI-wire endpoints through the ``openai`` SDK, without LiteLLM.

LiteLLM (≈200 MB, seconds to import) adds nothing for a server that speaks OpenAI's chat
completions protocol: OpenAI itself, the gateways (OpenRouter and the ``openai``-route
sections of the registry), DeepSeek, and local servers (llama.cpp, vLLM, Ollama, LM Studio).
For those routes (:func:`speaks_openai`) :class:`OpenAIProvider` sends the same request
through ``openai.AsyncOpenAI`` directly. Everything else is the LiteLLM path's, inherited: the
request built by :class:`LiteLLMProvider` (then spelled for the SDK), the one retry layer
(:mod:`retry`; the SDK's own retries are off), the request timeout and the stream's idle
watchdog, streaming with reasoning and streamed tool calls, usage and the call meter, error
classification and redaction. Prices and context windows come from LiteLLM's model table read
as a data file (:mod:`model_table`).

Connections: once the provider's owner has called :meth:`OpenAIProvider.keep_connections`
(the runtime's switchable provider does, and closes it with :meth:`OpenAIProvider.aclose` when
the runtime stops), the calls made on one event loop share one HTTP client, so a turn's model
calls and the next turn's reuse the open connection (no new TCP and TLS handshake). Otherwise,
and for a call on another event loop, each call opens its own client and closes it when the
answer has been read (or the call is cancelled), so no connection outlives the call.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import ssl
import threading
from typing import Any

from desktop.core.providers.base import LLMError
from desktop.core.providers.litellm_provider import LiteLLMProvider, _StreamFold
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.model_table import known, lookup
from desktop.core.providers.model_table import price as table_price
from desktop.core.providers.retry import classify
from desktop.core.utils.tasks import finish

log = logging.getLogger(__name__)

# LiteLLM route prefix -> the API base it uses when the config gives none.
_ROUTES: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "deepseek": "https://api.deepseek.com/beta",
    "hosted_vllm": "http://localhost:8000/v1",
    "lm_studio": "http://localhost:1234/v1",
}
# OpenAI's reasoning models: ``max_completion_tokens`` instead of ``max_tokens``, and the only
# OpenAI models that take ``reasoning_effort`` (LiteLLM drops it for the others).
_REASONING_MODELS = ("o1", "o3", "o4", "gpt-5")
# What LiteLLM takes beside the request body; the SDK's client holds these instead.
_CLIENT_ONLY = ("api_key", "api_base", "timeout", "num_retries", "max_retries")

_sdk: Any = None
_ssl_context: ssl.SSLContext | None = None
_sdk_lock = threading.Lock()


def speaks_openai(choice: ProviderChoice) -> bool:
    """Whether ``choice`` is reached over OpenAI's wire protocol (the thin path serves it)."""
    spec = choice.spec
    return not spec.oauth and spec.litellm_prefix in _ROUTES


def import_openai() -> Any:
    """Import the SDK with what its first call would import on the event loop (the HTTP
    stack) and make the TLS context once (blocking: call it in a thread)."""
    global _sdk, _ssl_context
    with _sdk_lock:
        if _sdk is None:
            import httpx
            import openai

            for name in (
                "openai.types.chat",
                "openai._streaming",
                "httpcore",
                "h11",
                "anyio._backends._asyncio",
                "encodings.idna",
            ):
                try:
                    importlib.import_module(name)
                except ImportError:  # an optional part missing: the call imports what it needs
                    log.debug("%s not importable ahead of the first call", name)
            _ssl_context = httpx.create_ssl_context()
            _sdk = openai
    return _sdk


async def aimport_openai() -> Any:
    """:func:`import_openai` in a worker thread the first time; instant afterwards."""
    if _sdk is not None:
        return _sdk
    return await asyncio.to_thread(import_openai)


def _bare_model(prefix: str, model: str) -> str:
    """The model as the server knows it: LiteLLM's route prefix removed once."""
    return model[len(prefix) + 1 :] if model.startswith(f"{prefix}/") else model


def _flatten_text(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages whose content is a list of text parts only, with that text as one string
    (DeepSeek's chat API takes no content parts; LiteLLM joins them the same way)."""
    flat = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and all(
            isinstance(part, dict) and part.get("type") == "text" for part in content
        ):
            message = {**message, "content": "".join(str(p.get("text", "")) for p in content)}
        flat.append(message)
    return flat


class _CallStream:
    """A streamed answer and the HTTP client it came through; closing it closes the answer
    (its connection goes back to the client's pool) and a client of this call alone."""

    def __init__(self, stream: Any, client: Any | None) -> None:
        self._stream = stream
        self._client = client

    def __aiter__(self) -> Any:
        return self._stream.__aiter__()

    async def aclose(self) -> None:
        try:
            await self._stream.close()
        finally:
            if self._client is not None:
                await self._client.close()


class OpenAIProvider(LiteLLMProvider):
    """Chat completions through the ``openai`` SDK for routes that speak OpenAI's protocol.

    Takes the arguments of :class:`LiteLLMProvider`; ``choice`` must satisfy
    :func:`speaks_openai`.
    """

    calls_litellm = False
    # The SDK does not rebuild the answer at the end: reading to ``[DONE]`` costs nothing.
    stop_when_complete = False
    _log = log

    _keep = False
    _kept: tuple[asyncio.AbstractEventLoop, Any] | None = None  # the loop and its client

    def __repr__(self) -> str:
        return f"OpenAIProvider(provider={self.choice.spec.name!r}, model={self.choice.model!r})"

    def keep_connections(self) -> None:
        """Share one HTTP client between the calls on one event loop (see the module
        docstring) until :meth:`aclose`."""
        self._keep = True

    async def aclose(self) -> None:
        """Close the shared client; later calls open their own again. A client made on
        another event loop (closed with it) is only forgotten."""
        self._keep = False
        kept, self._kept = self._kept, None
        if kept is not None and kept[0] is asyncio.get_running_loop():
            await finish(kept[1].close())

    @property
    def _prefix(self) -> str:
        return self.choice.spec.litellm_prefix

    def _kwargs(self, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """LiteLLM's request (see :class:`LiteLLMProvider`) spelled for the SDK: the client's
        settings kept aside, each route's own parameters. The model keeps LiteLLM's spelling
        (prices are looked up by it); :meth:`_request` sends it bare."""
        request = super()._kwargs(messages, *args, **kwargs)
        request.pop("allowed_openai_params", None)
        client = {name: request.pop(name, None) for name in _CLIENT_ONLY}
        model = _bare_model(self._prefix, request["model"])
        effort = request.pop("reasoning_effort", None)
        spec = self.choice.spec
        if spec.name == "openai" and self._prefix == "openai":
            reasoning = model.lower().startswith(_REASONING_MODELS)
            if reasoning:
                request["max_completion_tokens"] = request.pop("max_tokens")
                if effort:
                    request["reasoning_effort"] = effort
        elif self._prefix == "deepseek":
            request["messages"] = _flatten_text(request["messages"])
            if effort:  # DeepSeek's switch for thinking mode
                kind = "disabled" if effort == "none" else "enabled"
                request["extra_body"] = {
                    **request.get("extra_body", {}),
                    "thinking": {"type": kind},
                }
        elif effort:
            request["reasoning_effort"] = "xhigh" if effort == "max" else effort
        if request.get("stream_options") is not None and not request.get("stream"):
            request.pop("stream_options")
        request["_client"] = client
        return request

    async def _backend(self) -> Any:
        return await aimport_openai()

    def _new_client(self, sdk: Any, api_key: str) -> Any:
        """A client (the TLS context is shared, so making one is cheap)."""
        return sdk.AsyncOpenAI(
            api_key=api_key,
            base_url=self.choice.api_base or _ROUTES[self._prefix],
            max_retries=0,
            timeout=self.request_timeout,
            http_client=sdk.DefaultAsyncHttpxClient(
                verify=_ssl_context if _ssl_context is not None else True
            ),
        )

    def _client(self, sdk: Any, settings: dict[str, Any]) -> tuple[Any, bool]:
        """The client for a call and whether it is the call's own (to close after it)."""
        api_key = settings.get("api_key") or "no-key"
        loop = asyncio.get_running_loop()
        if self._keep and api_key == (self._api_key or "no-key"):
            if self._kept is None or self._kept[1].is_closed():
                self._kept = (loop, self._new_client(sdk, api_key))
            if self._kept[0] is loop:
                return self._kept[1], False
        return self._new_client(sdk, api_key), True

    async def _request(self, backend: Any, kwargs: dict[str, Any]) -> Any:
        """``POST /chat/completions`` through the client's own request machinery (auth, SSE,
        typed errors). Not ``client.chat.completions.create``: its resource modules are
        ≈14 MB and ≈0.3 s of imports for a body that is sent as it is anyway."""
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        if not known(kwargs["model"]):  # the answer is priced from the table: read it now
            await asyncio.to_thread(lookup, kwargs["model"])
        body = dict(kwargs)
        settings = body.pop("_client")
        body["model"] = _bare_model(self._prefix, body["model"])
        body.update(body.pop("extra_body", None) or {})
        headers = body.pop("extra_headers", None)
        stream = bool(body.get("stream"))
        client, own = self._client(backend, settings)
        options: dict[str, Any] = {"timeout": settings.get("timeout") or self.request_timeout}
        if headers:
            options["headers"] = dict(headers)
        try:
            answer = await client.post(
                "/chat/completions",
                body=body,
                cast_to=ChatCompletion,
                options=options,
                stream=stream,
                stream_cls=backend.AsyncStream[ChatCompletionChunk],
            )
        except BaseException as exc:
            if own:
                await finish(client.close())
            if isinstance(exc, Exception) and not isinstance(exc, LLMError):
                raise _named(exc) from None
            raise
        if stream:
            return _CallStream(answer, client if own else None)
        if own:
            await finish(client.close())
        return answer

    def _answer_complete(self, stream: Any, fold: _StreamFold) -> bool:
        """Only the server's finish reason says the answer is whole (a stream may just end)."""
        return fold.finish is not None

    def price(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """The price from LiteLLM's table, read without LiteLLM (``None``: not in it)."""
        return table_price(model, prompt_tokens, completion_tokens)


def _named(exc: Exception) -> LLMError:
    """``exc`` classified, its details naming the SDK's error class (the SDK's text says only
    ``Error code: 401 - {…}``; LiteLLM's named the class, and the Details view keeps that)."""
    error = classify(exc)
    name = type(exc).__name__
    if name not in error.details:
        head, sep, rest = error.details.partition(": ")
        if error.status is not None and sep:
            error.details = f"{head}: {name}: {rest}"
        else:
            error.details = f"{name}: {error.details}"
    return error
