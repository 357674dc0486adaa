"""The one module that imports LiteLLM (lazily: the import costs seconds).

Only ``litellm.acompletion`` is used. LiteLLM's and the OpenAI client's own retries are off
(``num_retries=0``, ``max_retries=0``): :mod:`desktop.core.providers.retry` is the single retry
layer. Every call has our own request timeout, and streams an idle watchdog; cancelling a call
closes the HTTP stream.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from desktop.core.providers.aws import with_credentials
from desktop.core.providers.base import (
    LLMError,
    LLMProvider,
    LLMResponse,
    StreamCallback,
    StreamDelta,
    ToolCallRequest,
    Usage,
)
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.meter import current_meter
from desktop.core.providers.retry import (
    DEFAULT_DELAYS,
    StreamRetries,
    classify,
    with_retries,
)
from desktop.core.providers.sanitize import (
    apply_prompt_caching,
    parse_tool_arguments,
    sanitize_messages,
    split_think,
)
from desktop.core.providers.think import ThinkSplitter
from desktop.core.providers.tokens import ensure_offline_tiktoken
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret
from desktop.core.utils.tasks import finish

log = logging.getLogger(__name__)
_litellm: Any = None
# Who waits for LiteLLM to be imported by someone else (see litellm_loaded).
_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = []
_waiters_lock = threading.Lock()


async def litellm_loaded() -> Any:
    """LiteLLM, once something that needs it (a model call) has imported it; never imports it.

    Lookups that merely benefit from LiteLLM (its model table) wait here instead of loading
    ≈200 MB for a call that may never come. No polling: the import wakes the waiter.
    """
    with _waiters_lock:
        if _litellm is not None:
            return _litellm
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        _waiters.append((asyncio.get_running_loop(), future))
    try:
        return await future
    finally:
        with _waiters_lock:
            _waiters[:] = [(lp, f) for lp, f in _waiters if f is not future]


def _wake_waiters(litellm: Any) -> None:
    with _waiters_lock:
        waiters, _waiters[:] = list(_waiters), []
    for loop, future in waiters:

        def wake(future: asyncio.Future[Any] = future) -> None:
            if not future.done():
                future.set_result(litellm)

        try:
            loop.call_soon_threadsafe(wake)
        except RuntimeError:  # that loop is closed: nobody waits any more
            pass


async def aimport_litellm() -> Any:
    """:func:`import_litellm` in a worker thread the first time (the import takes seconds and
    would freeze a window sharing the event loop); instant afterwards."""
    if _litellm is not None:
        return _litellm
    return await asyncio.to_thread(import_litellm)


def import_litellm() -> Any:
    """Import and configure LiteLLM once (offline cost map and tokenizers, quiet logs)."""
    global _litellm
    if _litellm is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        # LiteLLM's default "DEV" mode loads a `.env` file at import: one found above its own
        # folder, or (in the frozen app) in whatever folder the app was started from — keys and
        # endpoints nobody chose would silently apply. Keys come from the keyring and config.
        os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
        ensure_offline_tiktoken()
        import litellm

        litellm.suppress_debug_info = True
        litellm.drop_params = True
        # httpx, not LiteLLM's default aiohttp transport: aiohttp ends a response whose body
        # runs until the connection closes (SSE without chunked encoding) *normally* when the
        # connection is reset, so a stream cut off mid-answer looked complete and was never
        # retried. httpx reports the reset as a read error, which becomes a retryable failure.
        litellm.disable_aiohttp_transport = True
        if hasattr(litellm, "telemetry"):
            litellm.telemetry = False
        _import_call_path()
        _offline_token_counts(litellm)
        with _waiters_lock:
            _litellm = litellm
        _wake_waiters(litellm)
    return _litellm


def _import_call_path() -> None:
    """Import here, in the importing thread, what the first call would import on the event
    loop: the OpenAI client's resource modules (≈500 modules, 1–2 s during which the window
    froze mid-send) and the HTTP/2 stack its transport loads."""
    for name in (
        "openai.resources",
        "httpcore",
        "h2.connection",
        "anyio._backends._asyncio",
        "encodings.idna",
        "litellm._service_logger",
    ):
        try:
            importlib.import_module(name)
        except ImportError:  # an optional part missing: the call imports what it needs
            log.debug("%s not importable ahead of the first call", name)


def _offline_token_counts(litellm: Any) -> None:
    """Count tokens of Llama and Command-R models with the bundled tokenizer.

    LiteLLM prices each response as it arrives and, for model names containing ``llama-2``,
    ``llama-3`` or ``command-r``, downloads a tokenizer from huggingface.co to count the
    answer -- on the event loop, retrying for about 20 s when there is no network. The
    bundled tiktoken counts are close enough for a price that is only an estimate.
    """
    utils = getattr(litellm, "utils", None)
    if utils is not None and hasattr(utils, "_return_huggingface_tokenizer"):
        utils._return_huggingface_tokenizer = lambda _model: None


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


class LiteLLMProvider(LLMProvider):
    """Chat completions through LiteLLM for any provider in the registry.

    Args:
        choice: The provider and model routing from :func:`choose_provider`.
        api_key: The key for this provider (``None`` for keyless servers).
        max_tokens: Default completion limit.
        temperature: Default temperature.
        reasoning_effort: Default reasoning effort (``None``: not sent).
        request_timeout: Seconds for a whole non-streaming call, or until a stream starts.
        stream_idle_timeout: Seconds a stream may stay silent before it is abandoned.
        retry_delays: Backoff before each retry; its length is the number of retries
            (``None``: this module's ``DEFAULT_DELAYS``, read at construction, so a test can
            shorten the back-off of providers the app builds itself).
    """

    calls_litellm = True
    # Stop reading once the finish reason and the usage have come (see _stream_once).
    stop_when_complete = True
    _log = log

    def __init__(
        self,
        choice: ProviderChoice,
        *,
        api_key: str | None = None,
        max_tokens: int = 8192,
        temperature: float = 0.1,
        reasoning_effort: str | None = None,
        request_timeout: float = 120.0,
        stream_idle_timeout: float = 60.0,
        retry_delays: Sequence[float] | None = None,
    ) -> None:
        self.choice = choice
        self._api_key = api_key
        register_secret(api_key)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.reasoning_effort = reasoning_effort
        self.request_timeout = request_timeout
        self.stream_idle_timeout = stream_idle_timeout
        self.retry_delays = tuple(DEFAULT_DELAYS if retry_delays is None else retry_delays)

    def __repr__(self) -> str:
        return f"LiteLLMProvider(provider={self.choice.spec.name!r}, model={self.choice.model!r})"

    @property
    def model(self) -> str:
        """The routed default model."""
        return self.choice.model

    # -- request --------------------------------------------------------------------------
    def _kwargs(  # noqa: C901  # one branch per optional request setting
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        *,
        model: str | None,
        max_tokens: int | None,
        temperature: float | None,
        tool_choice: str | dict[str, Any] | None,
        reasoning_effort: str | None,
        stream: bool,
    ) -> dict[str, Any]:
        spec = self.choice.spec
        clean = sanitize_messages(messages)
        if spec.supports_prompt_caching:
            clean, tools = apply_prompt_caching(clean, tools)
        kwargs: dict[str, Any] = {
            "model": model or self.choice.model,
            "messages": clean,
            "max_tokens": max_tokens or self.max_tokens,
            "temperature": self.temperature if temperature is None else temperature,
            "timeout": self.request_timeout,
            "num_retries": 0,
            "max_retries": 0,
            "stream": stream,
        }
        kwargs.update(self.choice.options)
        kwargs.update(self.choice.params)
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if self._api_key:
            kwargs["api_key"] = self._api_key
        elif not spec.needs_key and not spec.direct:
            kwargs["api_key"] = "no-key"  # OpenAI-compatible clients insist on some value
        if self.choice.api_base:
            kwargs["api_base"] = self.choice.api_base
        if self.choice.extra_headers:
            kwargs["extra_headers"] = dict(self.choice.extra_headers)
        if reasoning_effort or self.reasoning_effort:
            kwargs["reasoning_effort"] = reasoning_effort or self.reasoning_effort
            if spec.litellm_prefix == "openai" and spec.name != "openai":
                # LiteLLM drops it for model names it does not know; an OpenAI-compatible
                # server is asked as the person configured (as nanobot does).
                kwargs["allowed_openai_params"] = ["reasoning_effort"]
        if stream:
            kwargs["stream_options"] = {"include_usage": True}
        return kwargs

    async def _retrying(
        self,
        attempt_fn: Callable[[int], Awaitable[LLMResponse]],
        before_retry: Callable[[LLMError, int, float], Awaitable[None]] | None = None,
    ) -> LLMResponse:
        return await with_retries(attempt_fn, self.retry_delays, before_retry, logger=self._log)

    # -- non-streaming --------------------------------------------------------------------
    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        reasoning_effort: str | None = None,
    ) -> LLMResponse:
        """One non-streaming call with retries."""
        kwargs = self._kwargs(
            messages,
            tools,
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
            stream=False,
        )
        backend = await self._backend()

        async def attempt(_n: int) -> LLMResponse:
            raw = await self._send(backend, kwargs)
            return self._parse_response(raw, kwargs["model"])

        return await self._retrying(attempt)

    async def _backend(self) -> Any:
        """What makes the requests: LiteLLM itself (imported off the loop the first time)."""
        return await aimport_litellm()

    async def _request(self, backend: Any, kwargs: dict[str, Any]) -> Any:
        """One HTTP attempt: the response, or the stream of chunks when ``kwargs`` stream."""
        return await backend.acompletion(**kwargs)

    def _answer_complete(self, stream: Any, fold: _StreamFold) -> bool:
        """Whether the server itself ended the answer (LiteLLM makes up a final "stop" chunk
        when the connection simply ends; only its ``received_finish_reason`` tells)."""
        return getattr(stream, "received_finish_reason", "unknown") is not None

    async def _send(self, backend: Any, kwargs: dict[str, Any]) -> Any:
        """:meth:`_request` under the request timeout, noted in the call's meter.

        The attempt counts as sent (its prompt may be billed) unless the server answered with
        an error or could not be reached; a timeout or a cancel leaves it counted.
        """
        if self.choice.spec.litellm_prefix.startswith("bedrock"):
            kwargs = await with_credentials(kwargs)
        meter = current_meter()
        if meter is not None:
            meter.sending()
        try:
            async with asyncio.timeout(self.request_timeout):
                return await self._request(backend, kwargs)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if meter is not None and classify(exc).kind != "timeout":
                meter.refused()
            raise

    def price(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """The price from LiteLLM's bundled map (``None`` when the model is not in it)."""
        try:
            prompt_cost, completion_cost = import_litellm().cost_per_token(
                model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
            )
        except Exception:  # noqa: BLE001 - unknown model price: no cost shown
            return None
        return float(prompt_cost) + float(completion_cost)

    def _parse_response(self, raw: Any, model: str) -> LLMResponse:
        choices = _get(raw, "choices") or []
        if not choices:
            raise LLMError(
                Phrase(QT_TR_NOOP("The provider returned no choices")),
                kind="server",
                retryable=True,
            )
        choice = choices[0]
        message = _get(choice, "message")
        content, think = split_think(_get(message, "content"))
        reasoning = _get(message, "reasoning_content") or _get(message, "reasoning") or think
        if reasoning and isinstance(content, str):
            # LiteLLM may already have moved <think> into reasoning_content, leaving the blank
            # lines that followed the tag (split_think strips those when it does the split).
            content = content.lstrip() or None
        calls = []
        for index, call in enumerate(_get(message, "tool_calls") or []):
            function = _get(call, "function")
            arguments, error = parse_tool_arguments(_get(function, "arguments"))
            calls.append(
                ToolCallRequest(
                    id=_get(call, "id") or f"call_{index}",
                    name=_get(function, "name") or "",
                    arguments=arguments,
                    error=error,
                )
            )
        finish = _get(choice, "finish_reason") or ("tool_calls" if calls else "stop")
        return LLMResponse(
            content, calls, finish, self._usage(_get(raw, "usage"), model), reasoning
        )

    def _usage(self, usage: Any, model: str) -> Usage:
        if usage is None:
            return Usage()
        prompt = int(_get(usage, "prompt_tokens", 0) or 0)
        completion = int(_get(usage, "completion_tokens", 0) or 0)
        details = _get(usage, "prompt_tokens_details")
        # DeepSeek reports its cache hits under a name of its own (LiteLLM renames it).
        cached = int(
            _get(details, "cached_tokens", 0) or _get(usage, "prompt_cache_hit_tokens", 0) or 0
        )
        return Usage(prompt, completion, cached, self.price(model, prompt, completion))

    # -- streaming ------------------------------------------------------------------------
    async def chat_stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        on_delta: StreamCallback | None = None,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        reasoning_effort: str | None = None,
    ) -> LLMResponse:
        """One streaming call with retries; a retry after partial output emits a reset."""
        kwargs = self._kwargs(
            messages,
            tools,
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
            stream=True,
        )
        # "retrying 2/3" is said at once; what the failed attempt showed is then dropped.
        retries = StreamRetries(on_delta, len(self.retry_delays) + 1)
        return await self._retrying(
            lambda _n: self._stream_once(kwargs, retries.forward), retries.before_retry
        )

    async def _stream_once(
        self, kwargs: dict[str, Any], on_delta: Callable[[StreamDelta], Awaitable[None]]
    ) -> LLMResponse:
        stream = await self._send(await self._backend(), kwargs)
        model = kwargs["model"]
        fold = _StreamFold(on_delta, lambda raw: self._usage(raw, model))
        started = time.monotonic()
        try:
            iterator = stream.__aiter__()
            while True:
                try:
                    async with asyncio.timeout(self.stream_idle_timeout):
                        chunk = await anext(iterator)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise LLMError(
                        Phrase(
                            QT_TR_NOOP("The provider stream stalled for {seconds} s"),
                            seconds=f"{self.stream_idle_timeout:g}",
                        ),
                        kind="timeout",
                        retryable=True,
                    ) from None
                if await fold.add(chunk) and self.stop_when_complete:
                    # Everything has arrived (the provider put usage beside the finish reason).
                    # Reading on would make LiteLLM rebuild the whole response from its chunks on
                    # the event loop (~0.2 s for a 3,000-chunk answer); closing skips that. With
                    # OpenAI-style streams usage only comes out of that final step, so it stays.
                    break
        finally:
            closer = getattr(stream, "aclose", None) or getattr(stream, "close", None)
            if closer is not None:
                try:
                    await finish(closer())
                except asyncio.CancelledError:
                    raise  # a cancel that came while closing goes on
                except Exception:
                    log.debug("closing the stream failed", exc_info=True)
        await fold.flush()
        tool_calls = fold.tool_calls()
        if not self._answer_complete(stream, fold):
            # A cut answer is an error (retried, never saved as if it were the whole answer).
            raise LLMError(
                Phrase(
                    QT_TR_NOOP("The connection to the model ended before the answer was complete.")
                ),
                kind="connection",
                retryable=True,
                details=f"stream ended without a finish reason after {len(fold.text)} text pieces",
            )
        self._log.debug("stream finished in %.2fs", time.monotonic() - started)
        joined = "".join(fold.text)
        if fold.reasoning:
            joined = joined.lstrip()  # the blank line that followed </think>
        content = joined if joined.strip() else None
        return LLMResponse(
            content=content,
            tool_calls=tool_calls,
            finish_reason=fold.finish or ("tool_calls" if tool_calls else "stop"),
            usage=self._usage(fold.usage_raw, model),
            reasoning_content="".join(fold.reasoning).strip() or None,
        )


class _StreamFold:
    """What one streamed answer has brought so far: text, reasoning, tool calls, the finish
    reason and the reported usage (each piece passed on to ``on_delta`` as it comes).

    Args:
        on_delta: Receives the text and reasoning pieces.
        usage: Turns the provider's usage object into :class:`Usage` (for the call meter).
    """

    def __init__(
        self,
        on_delta: Callable[[StreamDelta], Awaitable[None]],
        usage: Callable[[Any], Usage],
    ) -> None:
        self.on_delta = on_delta
        self.usage = usage
        self.meter = current_meter()
        self.splitter = ThinkSplitter()
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.finish: str | None = None
        self.usage_raw: Any = None

    async def add(self, chunk: Any) -> bool:
        """Fold in one chunk; ``True`` once the finish reason and the usage have both come."""
        reported = _get(chunk, "usage")
        if reported:
            self.usage_raw = reported
            if self.meter is not None:
                self.meter.reported(self.usage(reported))
        for choice in _get(chunk, "choices") or []:
            self.finish = _get(choice, "finish_reason") or self.finish
            await self._delta(_get(choice, "delta"))
        return bool(self.finish) and self.usage_raw is not None

    async def _delta(self, delta: Any) -> None:
        # ``reasoning``: OpenRouter's and newer vLLM's name for it (LiteLLM renames it).
        piece = _get(delta, "reasoning_content") or _get(delta, "reasoning")
        if piece:
            self._count(piece)
            self.reasoning.append(piece)
            await self.on_delta(StreamDelta("reasoning", piece))
        piece = _get(delta, "content")
        if piece:
            self._count(piece)
            for kind, part in self.splitter.feed(piece):
                await self._emit(kind, part)
        for call in _get(delta, "tool_calls") or []:
            self._call(call)

    def _call(self, call: Any) -> None:
        """One fragment of a tool call (its arguments come in pieces)."""
        slot = self.calls.setdefault(
            int(_get(call, "index", len(self.calls)) or 0),
            {"id": "", "name": "", "arguments": ""},
        )
        slot["id"] = _get(call, "id") or slot["id"]
        function = _get(call, "function")
        name = _get(function, "name") or ""
        if name == slot["name"]:  # some servers (llama.cpp) repeat the whole
            name = ""  # name in every chunk; OpenAI sends it once
        slot["name"] += name
        arguments = _get(function, "arguments") or ""
        slot["arguments"] += arguments
        self._count(name + arguments)

    def _count(self, piece: str) -> None:
        if self.meter is not None:
            self.meter.output(piece)

    async def _emit(self, kind: Literal["text", "reasoning"], part: str) -> None:
        (self.text if kind == "text" else self.reasoning).append(part)
        await self.on_delta(StreamDelta(kind, part))

    async def flush(self) -> None:
        """Pass on what the ``<think>`` splitter still holds (the stream has ended)."""
        for kind, part in self.splitter.flush():
            await self._emit(kind, part)

    def tool_calls(self) -> list[ToolCallRequest]:
        """The tool calls, in index order, with their arguments parsed."""
        requests = []
        for index in sorted(self.calls):
            slot = self.calls[index]
            arguments, error = parse_tool_arguments(slot["arguments"])
            requests.append(
                ToolCallRequest(slot["id"] or f"call_{index}", slot["name"], arguments, error)
            )
        return requests
