"""The model's real context window: asked from the server where it can be, else LiteLLM's table.

Sources, first answer wins:

1. llama.cpp's ``llama-server``: ``GET /props`` → ``default_generation_settings.n_ctx`` (the
   context it was started with, e.g. ``--ctx-size 8192``);
2. an OpenAI-compatible ``GET /models`` entry for the model with ``max_model_len`` (vLLM),
   ``context_length`` (OpenRouter and others), ``max_context_length`` (LM Studio) or
   ``context_window``;
3. LiteLLM's model table (``max_input_tokens``) for hosted models it knows.

The servers are only asked when the provider has an endpoint (an ``apiBase``, or a gateway or
local server's default one); hosted APIs are looked up in LiteLLM's table. Nothing here raises for an unreachable server or an
unknown model: the answer is then ``None`` and the configured window stays in force.

:func:`apply_context_window` puts the found window into the live config *unless the person set
one* (any value other than the schema default of 65,536): the agent loop, the Consolidator and
the usage events read it there. The value is recorded as an effective-only value in the
config's origin, so saving the settings writes back what the file had, never the probed number.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from desktop.core.config.schema import AgentDefaults, Config
from desktop.core.providers.matching import ProviderChoice
from desktop.core.utils.redact import register_secret

log = logging.getLogger(__name__)

DEFAULT_WINDOW: int = AgentDefaults.model_fields["context_window_tokens"].default
MIN_WINDOW = 1024  # the config's floor
MODEL_FIELDS = ("max_model_len", "context_length", "max_context_length", "context_window")
_PATH = ("agents", "defaults", "context_window_tokens")


@dataclass(frozen=True)
class ContextWindow:
    """A context window and where it was found.

    Attributes:
        tokens: The window in tokens.
        source: ``"llama.cpp /props"``, ``"/models"`` or ``"LiteLLM model info"``.
    """

    tokens: int
    source: str


def _positive(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value > 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip()) or None
    return None


def window_from_props(payload: Any) -> int | None:
    """``n_ctx`` from a llama.cpp ``/props`` answer (per slot settings or top level)."""
    if not isinstance(payload, dict):
        return None
    settings = payload.get("default_generation_settings")
    if isinstance(settings, dict):
        found = _positive(settings.get("n_ctx"))
        if found:
            return found
    return _positive(payload.get("n_ctx"))


def _bare(model: str) -> str:
    """``openai/llama3`` → ``llama3`` (the routing prefix is ours, not the server's)."""
    return model.split("/", 1)[1] if "/" in model else model


def window_from_models(payload: Any, model: str) -> int | None:
    """The window of ``model`` from a ``/models`` answer (``None`` when it does not say).

    With one model listed, its entry is used whatever its id (local servers often list the
    file name while accepting any model name).
    """
    items: Any = []
    if isinstance(payload, dict):
        items = payload.get("data") or payload.get("models") or []
    elif isinstance(payload, list):
        items = payload
    entries = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
    wanted = {model, _bare(model)}
    matching = [e for e in entries if str(e.get("id") or e.get("name") or "") in wanted]
    if not matching and len(entries) == 1:
        matching = entries
    for entry in matching:
        for name in MODEL_FIELDS:
            found = _positive(entry.get(name))
            if found:
                return found
        top = entry.get("top_provider")  # OpenRouter: the serving provider's own limit
        if isinstance(top, dict):
            found = _positive(top.get("context_length"))
            if found:
                return found
    return None


def _server_root(base: str) -> str:
    """``http://host:8080/v1`` → ``http://host:8080`` (where llama.cpp serves ``/props``)."""
    return base.rstrip("/").removesuffix("/v1")


async def _get_json(client: Any, url: str, headers: dict[str, str]) -> Any:
    import httpx

    try:
        response = await client.get(url, headers=headers)
    except httpx.HTTPError as exc:  # unreachable, refused, timed out: simply no answer
        log.debug("context window probe %s failed: %s", url, type(exc).__name__)
        return None
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def litellm_window(model: str) -> int | None:
    """``max_input_tokens`` (else ``max_tokens``) from LiteLLM's model table (blocking).

    Asked through LiteLLM once a call has loaded it; until then the table is read as a data
    file (:mod:`model_table`): this lookup alone never imports LiteLLM.
    """
    from desktop.core.providers import litellm_provider
    from desktop.core.providers.model_table import context_window

    litellm = litellm_provider._litellm
    if litellm is None:
        for name in (model, _bare(model)):
            found = context_window(name)
            if found:
                return found
        return None
    for name in (model, _bare(model)):
        try:
            info = litellm.get_model_info(name)
        except Exception:  # noqa: BLE001 - LiteLLM raises a bare Exception for unknown models
            log.debug("LiteLLM does not know %s", name)
            continue
        found = _positive(info.get("max_input_tokens")) or _positive(info.get("max_tokens"))
        if found:
            return found
    return None


async def probe_context_window(
    choice: ProviderChoice,
    api_key: str | None = None,
    *,
    timeout: float = 5.0,
    use_litellm: bool = True,
) -> ContextWindow | None:
    """Ask the provider's server (then LiteLLM) how large the model's context window is.

    Args:
        choice: The provider and model routing.
        api_key: Sent as a bearer token to the provider's own endpoint.
        timeout: Seconds per HTTP request.
        use_litellm: Fall back to LiteLLM's model table.
    """
    import httpx

    base = (choice.api_base or "").rstrip("/")
    if base:  # hosted APIs without an endpoint of their own: LiteLLM's table knows them
        headers = {"Accept": "application/json", **dict(choice.extra_headers or {})}
        if api_key:
            register_secret(api_key)
            headers["Authorization"] = f"Bearer {api_key}"
        spec = choice.spec
        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
            if spec.is_local or spec.name == "custom":  # possibly llama.cpp's server
                found = window_from_props(
                    await _get_json(client, f"{_server_root(base)}/props", headers)
                )
                if found:
                    return ContextWindow(found, "llama.cpp /props")
            if spec.supports_model_listing:
                found = window_from_models(
                    await _get_json(client, f"{base}/models", headers), choice.model
                )
                if found:
                    return ContextWindow(found, "/models")
    if use_litellm:
        found = await asyncio.to_thread(litellm_window, choice.model)
        if found:
            return ContextWindow(found, "LiteLLM model info")
    return None


_PROBED = "_probed_context_window"  # on the config's origin: the window we put in


def configured_window(config: Config) -> int | None:
    """The window the person chose, or ``None`` when the config has the default.

    A probed window put in by :func:`apply_context_window` does not count as chosen.
    """
    from desktop.core.config.loader import config_origin

    value = config.agents.defaults.context_window_tokens
    if getattr(config_origin(config), _PROBED, None) == value:
        return None
    return None if value == DEFAULT_WINDOW else value


def apply_context_window(config: Config, probed: int | None) -> int:
    """Use ``probed`` as the live context window unless the person set one; returns the
    window now in force.

    Saving the config afterwards writes the default (what the person had), not the probed
    number: the value is recorded as effective-only in the config's origin.
    """
    from desktop.core.config.loader import _MISSING, config_origin

    chosen = configured_window(config)
    if chosen is not None:
        return chosen
    origin = config_origin(config)
    target = max(MIN_WINDOW, probed) if probed else DEFAULT_WINDOW
    if target == DEFAULT_WINDOW:
        origin.preserved.pop(_PATH, None)
        setattr(origin, _PROBED, None)
    else:
        origin.preserved[_PATH] = (_MISSING, target)
        setattr(origin, _PROBED, target)
    config.agents.defaults.context_window_tokens = target
    return target
