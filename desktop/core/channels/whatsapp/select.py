"""Which WhatsApp channel a config asks for: the linked device (neonize, nanobot 0.3.5's way)
unless ``bridgeUrl`` names the older nanobot's bridge (the legacy way)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop.core.bus.queue import MessageBus
from desktop.core.channels.base import BaseChannel
from desktop.core.channels.state import ChannelStateStore
from desktop.core.channels.whatsapp.linked import preload
from desktop.core.config.channels.whatsapp import WhatsAppConfig, uses_bridge

preload()  # here, in the manager's import thread, rather than on the event loop later


def open_channel(
    config: Any,
    bus: MessageBus,
    state: ChannelStateStore,
    media_dir: Path,
    *,
    app_config: Any = None,
) -> BaseChannel[WhatsAppConfig]:
    """The WhatsApp channel for ``config`` (the manager calls this as the channel's class)."""
    if uses_bridge(config):
        from desktop.core.channels.whatsapp.channel import WhatsAppChannel

        return WhatsAppChannel(config, bus, state, media_dir, app_config=app_config)
    from desktop.core.channels.whatsapp.linked import LinkedChannel

    return LinkedChannel(config, bus, state, media_dir, app_config=app_config)
