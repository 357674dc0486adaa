"""The OpenAI-compatible API over the agent (``nanobot-desktop serve``)."""
