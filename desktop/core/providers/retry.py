"""Classify provider failures and decide on retries.

One retry layer only: LiteLLM's and the OpenAI client's own retries are switched off by the
caller, so the attempts counted here are the HTTP attempts made.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import inspect
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from desktop.core.providers.base import (
    ErrorKind,
    LLMError,
    LLMResponse,
    StreamCallback,
    StreamDelta,
)
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

DEFAULT_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0)
MAX_RETRY_AFTER = 60.0
_QUOTA_WORDS = (
    "insufficient_quota",
    "quota exceeded",
    "exceeded your current quota",
    "billing",
    "credit",
)


def _status(exc: BaseException) -> int | None:
    for attr in ("status_code", "status", "http_status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


# Transport failures (httpx / httpcore / openai names) found anywhere in an exception's chain.
_TRANSPORT_ERRORS = {
    "APIConnectionError",
    "ConnectError",
    "ReadError",
    "WriteError",
    "RemoteProtocolError",
    "LocalProtocolError",
    "NetworkError",
    "ProtocolError",
    "ProxyError",
}


def _transport_failure(exc: BaseException) -> bool:
    """Whether the request never got an HTTP answer (refused, reset, cut off mid-stream).

    LiteLLM reports such failures as ``InternalServerError`` with a made-up status 500; the
    real cause is further down the ``__cause__`` / ``__context__`` chain.
    """
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen and len(seen) < 20:
        seen.add(id(link))
        if isinstance(link, TimeoutError) or "timeout" in type(link).__name__.lower():
            return False
        if isinstance(link, OSError) or type(link).__name__ in _TRANSPORT_ERRORS:
            return True
        link = link.__cause__ or link.__context__
    return False


def _headers(exc: BaseException) -> dict[str, str]:
    for source in (getattr(exc, "response", None), exc):
        headers: Any = getattr(source, "headers", None) or getattr(
            source, "litellm_response_headers", None
        )
        if headers:
            try:
                return {str(k).lower(): str(v) for k, v in dict(headers).items()}
            except (TypeError, ValueError):
                continue
    return {}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


_PREFIX = re.compile(
    r"^\s*(?:litellm\.)?(?:[A-Za-z_]*(?:Error|Exception|Timeout)\b|Error code: \d+)\s*[:\-]\s*"
)
_JSON_MESSAGE = re.compile(r"[\"']message[\"']\s*:\s*[\"']((?:[^\"'\\]|\\.){1,300})[\"']")
REASON_CHARS = 160


def short_reason(text: str) -> str:
    """The provider's own one-line reason inside an exception text, without the wrappers.

    LiteLLM nests messages (``litellm.AuthenticationError: AuthenticationError: OpenAIException -
    {"error": {"message": "Incorrect API key"}}``); the person needs only the innermost sentence.
    """
    reason = text.strip()
    match = _JSON_MESSAGE.search(reason)
    if match:
        try:
            reason = json.loads(f'"{match.group(1)}"')
        except ValueError:
            reason = match.group(1)
    for _ in range(6):
        stripped = _PREFIX.sub("", reason, count=1)
        if stripped == reason:
            break
        reason = stripped
    reason = " ".join(reason.strip().splitlines()[0].split()) if reason.strip() else ""
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 1].rstrip() + "…"
    return reason.rstrip(".")


HEADLINE = QT_TR_NOOP("{label}.")
HEADLINE_REASON = QT_TR_NOOP("{label}: {reason}.")
CLAUSE_REASON = QT_TR_NOOP("{label}: {reason}")  # the same inside a longer sentence


def headline(kind: str, reason: str) -> str:
    """One sentence: what went wrong, with the provider's reason when it adds something.

    A :class:`~desktop.core.utils.i18n.Phrase`: our framing is translated where it is shown,
    the provider's own reason stays as it said it.
    """
    label = Phrase(_LABELS.get(kind, _LABELS["unknown"]))
    generic = {"", type(None).__name__, "error", "internal server error", "none"}
    if reason.lower() in generic or reason.lower() in label.lower():
        return Phrase(HEADLINE, label=label)
    return Phrase(HEADLINE_REASON, label=label, reason=reason)


def clause(message: str) -> str:
    """``message`` without its closing full stop (a phrase stays a phrase)."""
    if isinstance(message, Phrase) and message.template == HEADLINE:
        label = message.fields["label"]
        return label if isinstance(label, str) else message.rstrip(".")
    if isinstance(message, Phrase) and message.template == HEADLINE_REASON:
        return Phrase(CLAUSE_REASON, **message.fields)
    return message.rstrip(".")


def classify(exc: BaseException, attempts: int = 1) -> LLMError:  # noqa: C901  # one branch per providers' error family
    """Turn any exception from a model call into a redacted :class:`LLMError`."""
    if isinstance(exc, LLMError):
        return exc
    name = type(exc).__name__
    status = _status(exc)
    text = redact(str(exc) or name)
    lowered = text.lower()
    kind: ErrorKind
    retryable = False
    if isinstance(exc, asyncio.TimeoutError) or "timeout" in name.lower():
        kind, retryable = "timeout", True
    elif status in (None, 500) and _transport_failure(exc):
        kind, retryable, status = "connection", True, None  # the 500 is LiteLLM's invention
    elif (
        status in (401,)
        or "authentication" in name.lower()
        or status == 403
        or "permissiondenied" in name.lower()
    ):
        kind = "auth"
    elif status == 429 or "ratelimit" in name.lower():
        if any(word in lowered for word in _QUOTA_WORDS):
            kind = "quota"
        else:
            kind, retryable = "rate_limit", True
    elif status == 404 or "notfound" in name.lower():
        kind = "not_found"
    elif status is not None and 400 <= status < 500:
        kind = "quota" if status == 402 else "bad_request"
    elif status is not None and status >= 500:
        kind, retryable = "server", True
    elif "connection" in name.lower() or isinstance(exc, (ConnectionError, OSError)):
        kind, retryable = "connection", True
    elif "internalserver" in name.lower() or "serviceunavailable" in name.lower():
        kind, retryable = "server", True
    else:
        kind = "unknown"
    retry_after = parse_retry_after(_headers(exc).get("retry-after")) if retryable else None
    details = text if status is None else f"HTTP {status}: {text}"
    return LLMError(
        headline(kind, short_reason(text)),
        details=details,
        kind=kind,
        status=status,
        retryable=retryable,
        retry_after=retry_after,
        attempts=attempts,
    )


_LABELS: dict[str, str] = {
    "auth": QT_TR_NOOP("The provider rejected the API key"),
    "rate_limit": QT_TR_NOOP("Rate limited by the provider"),
    "quota": QT_TR_NOOP("The provider account is out of quota or credit"),
    "bad_request": QT_TR_NOOP("The provider rejected the request"),
    "not_found": QT_TR_NOOP("Model or endpoint not found"),
    "server": QT_TR_NOOP("The provider had a server error"),
    "timeout": QT_TR_NOOP("The provider did not answer in time"),
    "connection": QT_TR_NOOP("Could not reach the provider"),
    "cancelled": QT_TR_NOOP("Cancelled"),
    "empty_reply": QT_TR_NOOP("The model returned an empty answer"),
    "budget": QT_TR_NOOP("Stopped by your own spend budget"),
    "unknown": QT_TR_NOOP("The model call failed"),
}


def next_delay(error: LLMError, attempt: int, delays: Sequence[float]) -> float | None:
    """Delay before retry number ``attempt`` (1-based), or ``None`` to give up."""
    if not error.retryable or attempt > len(delays):
        return None
    delay = delays[attempt - 1]
    if error.retry_after is not None:
        delay = max(delay, min(error.retry_after, MAX_RETRY_AFTER))
    return delay


async def with_retries(
    attempt_fn: Callable[[int], Awaitable[LLMResponse]],
    delays: Sequence[float],
    before_retry: Callable[[LLMError, int, float], Awaitable[None]] | None = None,
    *,
    logger: logging.Logger = log,
) -> LLMResponse:
    """Call ``attempt_fn(attempt)`` until it answers or :func:`next_delay` gives up.

    Every failure is classified; ``before_retry(error, attempt, delay)`` runs before each
    wait (to tell the person). The response records the attempts made.

    Raises:
        LLMError: The last failure, classified.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            response = await attempt_fn(attempt)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - every provider error is classified: retried or reported
            error = classify(exc, attempt)
            error.attempts = attempt
            delay = next_delay(error, attempt, delays)
            if delay is None:
                raise error from None
            logger.warning(
                "model call attempt %d failed (%s); retrying in %.1fs", attempt, error.kind, delay
            )
            if before_retry is not None:
                await before_retry(error, attempt, delay)
            await asyncio.sleep(delay)
            continue
        return dataclasses.replace(response, attempts=attempt)


async def emit(callback: StreamCallback | None, delta: StreamDelta) -> None:
    """Hand ``delta`` to ``callback`` (sync or async; none: dropped)."""
    if callback is None:
        return
    result = callback(delta)
    if inspect.isawaitable(result):
        await result


class StreamRetries:
    """What a streamed call tells the person across retries.

    :meth:`forward` passes deltas on and notes that the attempt showed something;
    :meth:`before_retry` (for :func:`with_retries`) says "retrying n/m" at once, then, when the
    failed attempt had shown text, a ``reset`` so the next attempt starts clean.

    Args:
        on_delta: The caller's callback.
        max_attempts: Attempts in all (the retries plus the first).
    """

    def __init__(self, on_delta: StreamCallback | None, max_attempts: int) -> None:
        self.on_delta = on_delta
        self.max_attempts = max_attempts
        self._emitted = False

    async def forward(self, delta: StreamDelta) -> None:
        """Pass one delta on."""
        self._emitted = True
        await emit(self.on_delta, delta)

    async def before_retry(self, error: LLMError, attempt: int, delay: float) -> None:
        """Announce the retry, then drop what the failed attempt showed."""
        await emit(
            self.on_delta,
            StreamDelta(
                "retry",
                error.message,
                attempt=attempt,
                max_attempts=self.max_attempts,
                delay_s=delay,
            ),
        )
        if self._emitted:
            self._emitted = False
            await emit(self.on_delta, StreamDelta("reset"))
