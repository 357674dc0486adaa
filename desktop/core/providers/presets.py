"""Model presets and fallback models, as nanobot 0.3.5 keeps them in ``config.json``.

- ``modelPresets.<name>``: a model with its provider and generation settings (``maxTokens``,
  ``contextWindowTokens``, ``temperature``, ``reasoningEffort``). ``agents.defaults.modelPreset``
  names the one that stands in for the default model's fields; a chat can use another one:
  its session metadata names it under :data:`SESSION_PRESET` (nanobot's key, so a chat moved
  between the two programs keeps its preset).
- ``agents.defaults.fallbackModels``: tried in order when a call fails in a way another model
  may not (see :mod:`desktop.core.providers.fallback`); each entry is a preset's name or a
  model written out in place, whose unset settings are the primary model's.

A :class:`ModelTarget` is either of them resolved;
:func:`desktop.core.providers.factory.build_target` makes its provider through the same factory
as the default model (keys from the keyring, routing by the registry).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.config.schema import Config, InlineFallbackConfig, ModelPresetConfig
from desktop.core.providers.chat_model import SESSION_PRESET as CHAT_PRESET

log = logging.getLogger(__name__)

SESSION_PRESET = CHAT_PRESET
"""The session-metadata key naming a chat's preset (nanobot 0.3.5's)."""
AUTO = "auto"
DEFAULT = "default"  # nanobot's name for "the agents.defaults fields", never a preset's


@dataclass(frozen=True)
class ModelTarget:
    """A model with its provider and generation settings.

    Attributes:
        model: The model name.
        provider: A registry name, or ``auto``.
        max_tokens: Answer length (``None``: the caller's).
        temperature: Temperature (``None``: the provider's default).
        reasoning_effort: Reasoning effort (``None``: not sent).
        context_window_tokens: The model's context (``None``: the default's).
        name: The preset's name (``""`` for a model written out in place).
    """

    model: str
    provider: str = AUTO
    max_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    context_window_tokens: int | None = None
    name: str = ""

    @property
    def label(self) -> str:
        """What to call it in a sentence: the preset's name and its model, or the model."""
        return f"{self.name} ({self.model})" if self.name else self.model


def _from_preset(name: str, preset: ModelPresetConfig) -> ModelTarget:
    return ModelTarget(
        preset.model.strip(),
        preset.provider or AUTO,
        preset.max_tokens,
        preset.temperature,
        preset.reasoning_effort,
        preset.context_window_tokens,
        name,
    )


def preset_target(config: Config, name: str | None) -> ModelTarget | None:
    """The preset called ``name`` (``None`` when there is none, or it names no model)."""
    if not name or name == DEFAULT:
        return None
    preset = config.model_presets.get(name)
    if preset is None or not preset.model.strip():
        return None
    return _from_preset(name, preset)


def default_target(config: Config) -> ModelTarget:
    """The default model: the active preset (``agents.defaults.modelPreset``) when it names
    one, else the ``agents.defaults`` fields."""
    defaults = config.agents.defaults
    active = preset_target(config, defaults.model_preset)
    if active is not None:
        return active
    return ModelTarget(
        defaults.model,
        defaults.provider or AUTO,
        defaults.max_tokens,
        defaults.temperature,
        defaults.reasoning_effort,
        defaults.context_window_tokens,
    )


def session_preset(metadata: Mapping[str, Any]) -> str | None:
    """The preset a chat's session names (``None``: the default model)."""
    value = metadata.get(SESSION_PRESET)
    return value.strip() if isinstance(value, str) and value.strip() else None


def fallback_targets(config: Config, primary: ModelTarget | None = None) -> list[ModelTarget]:
    """``agents.defaults.fallbackModels`` resolved, in order. An entry naming no preset (or no
    model) is skipped with a warning; an entry written out in place takes the settings it
    leaves unset from ``primary`` (default: :func:`default_target`)."""
    base = primary or default_target(config)
    targets: list[ModelTarget] = []
    for entry in config.agents.defaults.fallback_models:
        if isinstance(entry, str):
            target = preset_target(config, entry)
            if target is None:
                log.warning("fallbackModels names %r, which is no model preset; skipped", entry)
                continue
            targets.append(target)
        elif isinstance(entry, InlineFallbackConfig) and entry.model.strip():
            targets.append(
                ModelTarget(
                    entry.model.strip(),
                    entry.provider or AUTO,
                    entry.max_tokens if entry.max_tokens is not None else base.max_tokens,
                    entry.temperature if entry.temperature is not None else base.temperature,
                    entry.reasoning_effort,
                    entry.context_window_tokens or base.context_window_tokens,
                )
            )
    return targets


def target_config(config: Config, target: ModelTarget) -> Config:
    """A copy of ``config`` whose default model is ``target`` (for the provider factory)."""
    trial = config.model_copy(deep=True)
    trial._origin = config._origin  # where keys found in the file came from
    defaults = trial.agents.defaults
    defaults.model = target.model
    defaults.provider = target.provider or AUTO
    defaults.model_preset = None
    if target.max_tokens is not None:
        defaults.max_tokens = target.max_tokens
    if target.temperature is not None:
        defaults.temperature = target.temperature
    defaults.reasoning_effort = target.reasoning_effort
    return trial
