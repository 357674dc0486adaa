"""Load, ahead of the first call, what a provider's calls will need (and nothing else)."""

from __future__ import annotations

from desktop.core.providers.base import LLMProvider


def warm_up(provider: LLMProvider | None) -> str:
    """Import what ``provider``'s first call would import (blocking: run it in a thread).

    LiteLLM (≈200 MB) only for a provider whose calls go through it; the ``openai`` SDK for
    the thin path; nothing for the others (their own clients, or no provider yet: the first
    call imports what it needs).

    Args:
        provider: The runtime's provider (a switchable one is looked through).

    Returns:
        What was loaded: ``"litellm"``, ``"openai"`` or ``""``.
    """
    from desktop.core.providers.openai_provider import OpenAIProvider, import_openai

    current = getattr(provider, "current", provider)
    if isinstance(current, OpenAIProvider):
        import_openai()
        return "openai"
    if current is not None and current.calls_litellm:
        from desktop.core.providers.litellm_provider import import_litellm

        import_litellm()
        return "litellm"
    return ""
