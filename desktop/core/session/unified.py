"""``unifiedSession``: one session for every chat network (nanobot 0.3.5's key and metadata).

With ``agents.defaults.unifiedSession`` on, a message from any channel (Telegram, Slack,
e-mail …) lands in the one session ``unified:default``, so a person who talks to the agent
from several devices keeps one conversation; answers still go back where each message came
from. The session remembers the latest channel and chat under ``last_channel``
(``"<channel>:<chat_id>"``), where 0.3.5 sends what the session says on its own. The
window's chats stay apart (each is its own conversation by design).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

UNIFIED_SESSION_KEY = "unified:default"
LAST_CHANNEL_KEY = "last_channel"


def remember_last_channel(metadata: MutableMapping[str, Any], channel: str, chat_id: str) -> None:
    """Store where the unified session was last spoken to."""
    if channel and chat_id:
        metadata[LAST_CHANNEL_KEY] = f"{channel}:{chat_id}"
