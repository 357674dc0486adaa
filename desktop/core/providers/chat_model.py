"""A chat's own model: the model one conversation uses instead of the default.

The default model (``agents.defaults.model`` / ``provider`` in ``config.json``, Settings →
Agent) answers every chat that has no model of its own. A chat given its own model (the
model picker in the chat's header) keeps it in its session metadata under
:data:`CHAT_MODEL`, ``{"model": "…", "provider": "…"}``; the agent loop uses it for that
chat's turns (:class:`desktop.core.providers.chat_models.ChatModels`).

nanobot 0.3.5 keeps unknown metadata keys and ignores this one: in nanobot the chat is answered
by nanobot's default model. nanobot's own per-session choice, :data:`SESSION_PRESET`
(``_nanobot_model_preset``), names one of the config's ``modelPresets``
(:mod:`desktop.core.providers.chat_presets`). A chat is on a preset or on a model of its own,
never both: setting one removes the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.core.session.manager import SessionManager

CHAT_MODEL = "desktop_model"
SESSION_PRESET = "_nanobot_model_preset"  # nanobot 0.3.5's key: the chat's model preset
AUTO = "auto"


@dataclass(frozen=True)
class ModelChoice:
    """A model and who serves it.

    Attributes:
        model: The model name (``openai/gpt-4.1-mini``…).
        provider: A provider's registry name, or ``auto`` (found from the model name).
    """

    model: str
    provider: str = AUTO

    def as_metadata(self) -> dict[str, str]:
        """The value stored under :data:`CHAT_MODEL`."""
        return {"model": self.model, "provider": self.provider or AUTO}


def chat_model(metadata: Mapping[str, Any]) -> ModelChoice | None:
    """The chat's own model from its session metadata (``None``: it uses the default).

    A value of another shape is ignored (the chat uses the default), never an error.
    """
    value = metadata.get(CHAT_MODEL)
    if not isinstance(value, Mapping):
        return None
    model = value.get("model")
    provider = value.get("provider") or AUTO
    if not isinstance(model, str) or not model.strip() or not isinstance(provider, str):
        return None
    return ModelChoice(model.strip(), provider)


def set_chat_model(sessions: SessionManager, key: str, choice: ModelChoice | None) -> None:
    """Give chat ``key`` its own model (``None``: back to the default) and save it.

    Blocking file I/O: call it in a worker thread, under the session lock. Not counted as
    activity (the chat keeps its place in the list).
    """
    session = sessions.get_or_create(key)
    if choice is None:
        if CHAT_MODEL not in session.metadata:
            return
        session.metadata.pop(CHAT_MODEL)
    else:
        session.metadata[CHAT_MODEL] = choice.as_metadata()
        session.metadata.pop(SESSION_PRESET, None)  # a model of its own replaces a preset
    sessions.save(session)
