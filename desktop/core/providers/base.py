"""Provider-neutral types: requests, responses, stream deltas, errors, the provider ABC."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.core.utils.i18n import Phrase

ErrorKind = Literal[
    "auth",
    "rate_limit",
    "quota",
    "bad_request",
    "not_found",
    "server",
    "timeout",
    "connection",
    "cancelled",
    "empty_reply",
    "budget",
    "storage",  # not the provider's: the turn could not be saved (disk full, permissions)
    "unknown",
]


@dataclass(frozen=True)
class ToolCallRequest:
    """One tool call asked for by the model.

    Attributes:
        id: The call id the tool result must echo.
        name: Tool name.
        arguments: Parsed arguments (always a JSON object).
        error: Set when the arguments could not be made into an object; the call must not run
            and the error becomes its tool result.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None


@dataclass(frozen=True)
class Usage:
    """Token accounting of one call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class LLMResponse:
    """What one model call produced."""

    content: str | None
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: Usage = field(default_factory=Usage)
    reasoning_content: str | None = None
    attempts: int = 1

    @property
    def has_tool_calls(self) -> bool:
        """Whether the model asked for tools."""
        return bool(self.tool_calls)


@dataclass(frozen=True)
class StreamDelta:
    """A piece of a streamed answer.

    ``kind`` is ``"text"`` or ``"reasoning"`` for content, ``"reset"`` when a retry after a
    broken stream starts over (consumers drop what they showed of the failed attempt; the final
    :class:`LLMResponse` never contains it), ``"retry"`` when an attempt failed and another
    one follows after ``delay_s``: ``text`` then says why in one sentence and ``attempt`` /
    ``max_attempts`` count the attempts (the next one is ``attempt + 1``), or ``"fallback"``
    when ``previous_model`` failed and the fallback ``model`` answers instead (``text`` says
    so in one sentence).
    """

    kind: Literal["text", "reasoning", "reset", "retry", "fallback"]
    text: str = ""
    attempt: int = 0
    max_attempts: int = 0
    delay_s: float = 0.0
    model: str = ""
    previous_model: str = ""


StreamCallback = Callable[[StreamDelta], Awaitable[None] | None]


def said(exc: BaseException) -> str:
    """``exc``'s message: its :class:`~desktop.core.utils.i18n.Phrase` when it was raised
    with one (so the window can translate it), else ``str(exc)``."""
    message = exc.args[0] if len(exc.args) == 1 else None
    return message if isinstance(message, Phrase) else str(exc)


class LLMError(Exception):
    """A failed model call, already redacted and classified.

    Attributes:
        kind: What went wrong, for deciding on retries and for the person.
        status: HTTP status, when there was one.
        retryable: Whether retrying may help.
        retry_after: Seconds the server asked us to wait, if it said.
        attempts: HTTP attempts made before giving up.
        message: One sentence for the person (what happened, not the exception chain).
        details: The full (redacted) error text for a "Details" view and the log.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind = "unknown",
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        attempts: int = 1,
        details: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        self.kind = kind
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.attempts = attempts


class LLMProvider(ABC):
    """A chat-completion backend. Keys are passed per call, never through the environment.

    Attributes:
        calls_litellm: Its calls import LiteLLM (what merely benefits from LiteLLM may wait
            for that import instead of causing it).
    """

    calls_litellm = False

    @abstractmethod
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
        """One non-streaming call (with retries)."""

    @abstractmethod
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
        """One streaming call (with retries); deltas go to ``on_delta`` as they arrive."""

    @property
    @abstractmethod
    def model(self) -> str:
        """The default model of this provider instance."""

    def keep_connections(self) -> None:
        """Let later calls share one HTTP client (connection reuse) until :meth:`aclose`.

        Called by the provider's owner, which promises to call :meth:`aclose` when done (the
        runtime's :class:`~desktop.core.providers.switchable.SwitchableProvider` does).
        Without it each call opens and closes its own connections. The default does nothing
        (backends whose connections are not theirs to keep).
        """
        return None

    async def aclose(self) -> None:
        """Close the connections :meth:`keep_connections` kept (the default has none)."""
        return None

    def price(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """The price in dollars of so many tokens of ``model`` (``None``: unknown).

        Used for calls that ended without an answer (the server's usage carries the price of
        answered ones); blocking, call it in a thread.
        """
        return None
