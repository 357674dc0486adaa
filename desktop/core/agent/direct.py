"""A single conversational turn without tools: the seed of the agent loop.

The user message is saved before the model is called, so a failed or interrupted call never
loses it; the answer is saved when it is complete.
"""

from __future__ import annotations

import asyncio
import platform
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMProvider, LLMResponse, StreamCallback
from desktop.core.resources import read_template
from desktop.core.session.manager import Session, SessionManager


def system_prompt(config: Config) -> str:
    """The identity prompt filled with time, platform and workspace."""
    tz = config.agents.defaults.effective_timezone
    now = datetime.now(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M (%A)")
    return read_template("agent", "identity.md").format(
        platform=f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
        now=now,
        timezone=tz,
        workspace=config.workspace_path,
    ).strip()


async def run_direct_turn(
    config: Config,
    provider: LLMProvider,
    sessions: SessionManager,
    session_key: str,
    text: str,
    *,
    on_delta: StreamCallback | None = None,
) -> tuple[Session, LLMResponse]:
    """Persist ``text``, stream the model's answer, persist the answer.

    Raises:
        LLMError: The call failed; the user message is already saved.
    """
    session = await asyncio.to_thread(sessions.get_or_create, session_key)
    session.add_message("user", text)
    await asyncio.to_thread(sessions.save, session)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt(config)}]
    messages.extend(session.get_history())
    response = await provider.chat_stream(messages, on_delta=on_delta)
    extra: dict[str, Any] = {}
    if response.reasoning_content:
        extra["reasoning_content"] = response.reasoning_content
    session.add_message("assistant", response.content or "", **extra)
    await asyncio.to_thread(sessions.save, session)
    return session, response
