"""``/image <prompt>``: an image straight from the configured image provider, no model turn.

The window's image mode sends its prompts as this command; any chat may type it. It runs the
``generate_image`` tool (:mod:`desktop.core.tools.images`: the image is saved in the workspace
and posted to the chat) and records the exchange in the session as a tool call and its result,
so the chat shows the image again when it is opened later and the model knows of it.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from desktop.core.config.loader import config_origin
from desktop.core.config.schema import Config
from desktop.core.security.paths import default_protected_paths
from desktop.core.session.manager import SessionManager
from desktop.core.tools.base import ToolContext
from desktop.core.tools.registry import ToolRegistry

TOOL = "generate_image"
USAGE = "Usage: /image <what the image shows>"
OFF = (
    "Image generation is off. Turn it on in the config (tools.imageGeneration: enabled, "
    "provider, model) and give that provider a key in Settings."
)


async def image_command(
    *,
    key: str,
    prompt: str,
    channel: str,
    chat_id: str,
    config: Config,
    tools: ToolRegistry,
    sessions: SessionManager,
    lock: Callable[[str], AbstractAsyncContextManager[Any]],
) -> str:
    """Generate the image ``prompt`` describes for session ``key``; the reply for the person.

    Args:
        key: The session the image belongs to.
        prompt: The description (the command's argument).
        channel: Where the chat is (the image is posted there).
        chat_id: The chat within ``channel``.
        config: The app config (workspace, file access).
        tools: The registry holding ``generate_image`` when image generation is on.
        sessions: Where the exchange is recorded.
        lock: The session's turn lock (held while the session is changed).
    """
    prompt = prompt.strip()
    if not prompt:
        return USAGE
    tool = tools.get(TOOL)
    if tool is None:
        return OFF
    ctx = ToolContext(
        workspace=config.workspace_path,
        session_key=key,
        channel=channel,
        chat_id=chat_id,
        restrict_to_workspace=config.tools.restrict_to_workspace,
        protected_paths=default_protected_paths(config.workspace_path, config_origin(config).path),
        turn_id=uuid.uuid4().hex[:12],
    )
    result = await tool.execute(ctx, prompt=prompt)
    call_id = f"call_{uuid.uuid4().hex[:12]}"
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": TOOL, "arguments": json.dumps({"prompt": prompt})},
    }
    if result.is_error:
        reply = f"No image: {result.text.removeprefix('Error: ')}"
    else:
        paths = [str(a.get("path")) for a in json.loads(result.text).get("artifacts", [])]
        reply = "Saved in the workspace: " + ", ".join(paths)
    async with lock(key):
        session = await asyncio.to_thread(sessions.get_or_create, key)
        session.add_message("user", f"/image {prompt}")
        session.add_message("assistant", "", tool_calls=[call])
        session.add_message("tool", result.text, tool_call_id=call_id, name=TOOL)
        session.add_message("assistant", reply)
        await asyncio.to_thread(sessions.save, session)
    return reply
