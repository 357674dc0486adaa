"""Voice messages as text, through the configured transcription provider.

The providers, their protocols and how one is chosen are in
:mod:`desktop.core.providers.transcription` (Groq unless ``transcription.provider`` names
another one of nanobot's: OpenAI, OpenRouter, AssemblyAI, Xiaomi MiMo, StepFun, SiliconFlow).
"""

from __future__ import annotations

from typing import Any

from desktop.core.providers.transcription import (
    DEFAULT_PROVIDER,
    TranscriptionAccess,
    chosen_spec,
    find_transcription,
    no_key_note,
    transcribe,
    transcription_access,
)

__all__ = [
    "NO_KEY_NOTE",
    "TranscriptionAccess",
    "missing_note",
    "transcribe",
    "transcription_access",
]

_DEFAULT = find_transcription(DEFAULT_PROVIDER)
assert _DEFAULT is not None
NO_KEY_NOTE = no_key_note(_DEFAULT)
OFF_NOTE = "(voice message: voice transcription is turned off in the settings)"


def missing_note(app_config: Any) -> str:
    """Why a voice message was not transcribed (no key for the provider, or turned off)."""
    if app_config is None:
        return NO_KEY_NOTE
    spec = chosen_spec(app_config)
    return OFF_NOTE if spec is None else no_key_note(spec)
