"""Check a provider from the settings: a one-token request, and the list of its models.

Both helpers are coroutines for the GUI (keyring calls run in daemon threads, HTTP is async)
and never raise for ordinary failures: they return a :class:`ProbeResult` whose message is
short, redacted and meant for a person.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop.core.config.provider_registry import ProviderSpec, find_by_name
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMError
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact, register_secret
from desktop.core.utils.threads import run_daemon

# Public ``/models`` endpoints of providers whose spec has no default apiBase (LiteLLM knows
# their endpoints itself, but listing is a plain HTTP call we make).
LISTING_BASES: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "groq": "https://api.groq.com/openai/v1",
    "mistral": "https://api.mistral.ai/v1",
    "dashscope": "https://dashscope.aliyuncs.com/compatible-mode/v1",
    "zhipu": "https://open.bigmodel.cn/api/paas/v4",
}
_ANTHROPIC_VERSION = "2023-06-01"
_MAX_MODELS = 2000


@dataclass(frozen=True)
class ProbeResult:
    """The outcome of a connection test or a model listing.

    Attributes:
        ok: Whether it worked.
        message: One line for the person (redacted): a
            :class:`~desktop.core.utils.i18n.Phrase` when it is our wording (the window shows
            it translated), else the provider's own text.
        models: Model ids (listing only), sorted.
        seconds: How long it took.
        kind: For failures, the error kind (``auth``, ``connection``, ...), else ``""``.
    """

    ok: bool
    message: str
    models: list[str] = field(default_factory=list)
    seconds: float = 0.0
    kind: str = ""


# Messages the window translates (marked; the result's message is a phrase).
ENTER_MODEL = QT_TR_NOOP("Enter a model name to test with.")
NO_KEY = QT_TR_NOOP("No API key for {provider}: enter one first.")
CONNECTED = QT_TR_NOOP("Connected: {model} answered in {seconds} s.")
NO_LISTING = QT_TR_NOOP("{provider} does not offer a model list here; type the model name.")
ONE_AVAILABLE = QT_TR_NOOP("1 model available.")
SOME_AVAILABLE = QT_TR_NOOP("{count} models available.")
UNKNOWN_PROVIDER = QT_TR_NOOP("Unknown provider {name}.")
WITH_STATUS = QT_TR_NOOP("HTTP {status}: {message}")
NO_ANSWER = QT_TR_NOOP("No answer from {url} within {seconds} s.")
CANNOT_REACH = QT_TR_NOOP("Cannot reach {url}: {error}")
HTTP_ERROR = QT_TR_NOOP("HTTP {status} from {url}: {error}")
NOT_JSON = QT_TR_NOOP("{url} did not answer with JSON.")
NO_MODELS = QT_TR_NOOP("{url} listed no models.")


def _said(ok: bool, template: str, fields: dict[str, str], **rest: Any) -> ProbeResult:
    """A result whose message is the phrase ``template`` filled in with ``fields``."""
    return ProbeResult(ok, Phrase(template, **fields), **rest)


def _failed(error: LLMError, seconds: float) -> ProbeResult:
    """The result of a test request the provider refused (``error`` is already redacted)."""
    message = error.message
    if error.status:
        message = Phrase(WITH_STATUS, status=str(error.status), message=message)
    text = redact(str(message))  # a secret registered since the error was made
    shown = message if text == str(message) else text
    return ProbeResult(False, shown, seconds=seconds, kind=error.kind)


def _lookup_failed(exc: LookupError, kind: str) -> ProbeResult:
    """The result when no provider or key was found (the error's phrase, when it has one)."""
    said = exc.args[0] if len(exc.args) == 1 else None
    text = redact(str(exc))
    message = said if isinstance(said, Phrase) and str(said) == text else text
    return ProbeResult(False, message, kind=kind)


def listing_base(spec: ProviderSpec, api_base: str | None) -> str | None:
    """Where ``GET /models`` lives for ``spec`` (``None`` when it cannot list models)."""
    if not spec.supports_model_listing:
        return None
    base = (api_base or spec.default_api_base or LISTING_BASES.get(spec.name) or "").strip()
    return base.rstrip("/") or None


def _probe_config(
    config: Config, provider: str, api_base: str | None, headers: Mapping[str, str] | None
) -> Config:
    """A copy of ``config`` with ``provider`` forced and its endpoint replaced."""
    probe = config.model_copy(deep=True)
    probe._origin = config._origin  # resolve() reads where a key came from
    probe.agents.defaults.provider = provider
    section = probe.provider_config(provider)
    if section is not None and hasattr(probe.providers, provider):
        if api_base is not None:
            section.api_base = api_base.strip() or None
        if headers is not None:
            section.extra_headers = dict(headers) or None
    return probe


async def check_connection(
    config: Config,
    store: SecretStore,
    *,
    provider: str,
    model: str,
    api_key: str | None = None,
    api_base: str | None = None,
    extra_headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> ProbeResult:
    """Send one tiny real request (``max_tokens=1``) through the normal provider path.

    Args:
        config: The current config (not modified).
        store: Where stored keys come from.
        provider: Registry name; forced for this request.
        model: The model to ask (as the person would write it in the config).
        api_key: A key to try instead of the stored one (e.g. typed but not saved yet).
        api_base: An endpoint to try instead of the configured one (``""`` = the default).
        extra_headers: Headers to try instead of the configured ones.
        timeout: Seconds for the whole request.
    """
    started = time.monotonic()
    spec = find_by_name(provider)
    if spec is None:
        return _said(False, UNKNOWN_PROVIDER, {"name": repr(provider)}, kind="bad_request")
    if not model.strip():
        return _said(False, ENTER_MODEL, {}, kind="bad_request")
    probe = _probe_config(config, spec.name, api_base, extra_headers)
    if spec.oauth:
        return await _check_signed_in(probe, store, model.strip(), timeout)
    if api_key:
        register_secret(api_key.strip())
    try:
        choice, resolved = await run_daemon(
            lambda: _resolve(probe, store, model.strip()), "probe-resolve"
        )
    except LookupError as exc:
        return _lookup_failed(exc, "bad_request")
    key = (api_key or "").strip() or resolved.value
    if choice.spec.needs_key and not key:
        return _said(False, NO_KEY, {"provider": spec.display_name}, kind="auth")

    def build() -> Any:
        from desktop.core.providers.litellm_provider import LiteLLMProvider, import_litellm
        from desktop.core.providers.openai_provider import (
            OpenAIProvider,
            import_openai,
            speaks_openai,
        )

        # Seconds on first use: in this thread, not on the event loop. OpenAI-wire routes
        # are tested as they are called, through the SDK without LiteLLM.
        thin = speaks_openai(choice)
        import_openai() if thin else import_litellm()
        return (OpenAIProvider if thin else LiteLLMProvider)(
            choice,
            api_key=key,
            max_tokens=1,
            temperature=0.0,
            request_timeout=timeout,
            stream_idle_timeout=timeout,
            retry_delays=(),
        )

    llm = await run_daemon(build, "probe-build")
    started = time.monotonic()  # the request only, not LiteLLM's first import
    try:
        await llm.chat([{"role": "user", "content": "Say OK."}], max_tokens=1)
    except LLMError as exc:
        return _failed(exc, time.monotonic() - started)
    except Exception as exc:  # noqa: BLE001 - anything else LiteLLM may throw: still a message, not a crash
        return ProbeResult(
            False,
            redact(f"{type(exc).__name__}: {exc}"),
            seconds=time.monotonic() - started,
            kind="unknown",
        )
    seconds = time.monotonic() - started
    fields = {"model": choice.model, "seconds": f"{seconds:.1f}"}
    return _said(True, CONNECTED, fields, seconds=seconds)


def _resolve(probe: Config, store: SecretStore, model: str) -> Any:
    """:func:`~desktop.core.providers.factory.resolve_choice`, imported here, in the worker
    thread (the factory may be mid-import in another thread: waiting for its import lock on
    the event loop froze the window)."""
    from desktop.core.providers.factory import resolve_choice

    return resolve_choice(probe, store, model=model)


def _build(probe: Config, store: SecretStore, **options: Any) -> Any:
    """:func:`~desktop.core.providers.factory.build_provider`, imported in the worker thread."""
    from desktop.core.providers.factory import build_provider

    return build_provider(probe, store, **options)


async def _check_signed_in(
    probe: Config, store: SecretStore, model: str, timeout: float
) -> ProbeResult:
    """:func:`check_connection` for an OAuth provider: the stored sign-in, renewed if due."""
    try:
        built = await run_daemon(
            lambda: _build(
                probe,
                store,
                model=model,
                retry_delays=(),
                request_timeout=timeout,
                stream_idle_timeout=timeout,
            ),
            "probe-build",
        )
    except LookupError as exc:
        return _lookup_failed(exc, "auth")
    started = time.monotonic()
    try:
        await built.provider.chat([{"role": "user", "content": "Say OK."}], max_tokens=1)
    except LLMError as exc:
        return _failed(exc, time.monotonic() - started)
    seconds = time.monotonic() - started
    fields = {"model": built.choice.model, "seconds": f"{seconds:.1f}"}
    return _said(True, CONNECTED, fields, seconds=seconds)


async def list_models(
    spec: ProviderSpec,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    extra_headers: Mapping[str, str] | None = None,
    timeout: float = 20.0,
) -> ProbeResult:
    """``GET {apiBase}/models`` (OpenAI-compatible; Anthropic's variant for Anthropic).

    Args:
        spec: The provider.
        api_base: Its endpoint (the spec's default or a known public one when empty).
        api_key: The key to send, if any.
        extra_headers: Extra request headers.
        timeout: Seconds for the request.
    """
    import httpx

    base = listing_base(spec, api_base)
    if base is None:
        return _said(False, NO_LISTING, {"provider": spec.display_name}, kind="bad_request")
    headers: dict[str, str] = {"Accept": "application/json", **dict(extra_headers or {})}
    if api_key:
        register_secret(api_key)
        if spec.name == "anthropic":
            headers["x-api-key"] = api_key
            headers["anthropic-version"] = _ANTHROPIC_VERSION
        else:
            headers["Authorization"] = f"Bearer {api_key}"
    started = time.monotonic()
    url = f"{base}/models"
    shown = redact(url)
    try:
        async with httpx.AsyncClient(
            timeout=timeout, trust_env=False, follow_redirects=True
        ) as client:
            response = await client.get(url, headers=headers)
    except httpx.TimeoutException:
        fields = {"url": shown, "seconds": f"{timeout:g}"}
        return _said(False, NO_ANSWER, fields, kind="timeout")
    except httpx.HTTPError as exc:
        fields = {"url": shown, "error": redact(f"{type(exc).__name__}: {exc}")}
        return _said(False, CANNOT_REACH, fields, kind="connection")
    seconds = time.monotonic() - started
    if response.status_code >= 400:
        kind = "auth" if response.status_code in (401, 403) else "server"
        fields = {
            "status": str(response.status_code),
            "url": shown,
            "error": redact(_error_text(response)),
        }
        return _said(False, HTTP_ERROR, fields, seconds=seconds, kind=kind)
    try:
        payload = response.json()
    except ValueError:
        return _said(False, NOT_JSON, {"url": shown}, seconds=seconds, kind="server")
    models = _model_ids(payload)
    if not models:
        return _said(False, NO_MODELS, {"url": shown}, seconds=seconds, kind="server")
    template = ONE_AVAILABLE if len(models) == 1 else SOME_AVAILABLE
    fields = {} if len(models) == 1 else {"count": str(len(models))}
    return _said(True, template, fields, models=models, seconds=seconds)


def models_text(count: int) -> str:
    """``1 model``, ``2 models``."""
    return f"{count} model" if count == 1 else f"{count} models"


def _model_ids(payload: Any) -> list[str]:
    """Model ids from ``{"data": [{"id": ...}]}`` (or ``{"models": [...]}``, as some servers do)."""
    items: Any = []
    if isinstance(payload, dict):
        items = payload.get("data") or payload.get("models") or []
    elif isinstance(payload, list):
        items = payload
    ids: set[str] = set()
    for item in items[:_MAX_MODELS] if isinstance(items, list) else []:
        if isinstance(item, dict):
            value = item.get("id") or item.get("name") or item.get("model")
        else:
            value = item
        if isinstance(value, str) and value.strip():
            ids.add(value.strip())
    return sorted(ids)


def _error_text(response: Any) -> str:
    """The provider's own error message, shortened."""
    try:
        body = response.json()
    except ValueError:
        text = response.text.strip()
    else:
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            text = str(error.get("message") or error)
        elif error:
            text = str(error)
        else:
            text = str(body.get("message") or body) if isinstance(body, dict) else str(body)
    text = " ".join(text.split())
    return (text[:200] + "…") if len(text) > 200 else (text or response.reason_phrase)


# Example model names shown as placeholders (never sent unless the person types them).
EXAMPLE_MODELS: dict[str, str] = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-3-5-haiku-latest",
    "openrouter": "openai/gpt-4o-mini",
    "deepseek": "deepseek-chat",
    "gemini": "gemini-2.0-flash",
    "groq": "llama-3.1-8b-instant",
    "mistral": "mistral-small-latest",
    "dashscope": "qwen-turbo",
    "zhipu": "glm-4-flash",
    "ollama": "llama3.2",
    "openai_codex": "gpt-5.1-codex",
    "github_copilot": "gpt-4.1",
}
