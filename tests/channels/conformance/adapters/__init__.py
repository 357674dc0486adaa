"""The adapters: one module per channel, each a class implementing
:class:`~tests.channels.harness.ChannelUnderTest`.

Adding a channel: write ``adapters/<name>.py`` with a class whose constructor takes the pytest
``request`` (to reach session fixtures such as a shared server), add it to :data:`ADAPTERS`,
and add its name to ``CHANNELS`` in ``test_conformance.py`` (or to a module in the xdist lane
its server needs: see ``LANES`` in ``tests/conftest.py``). What the platform cannot do is said
in its :class:`~tests.channels.harness.Capabilities` as a reason, which the case skips with.
"""

from __future__ import annotations

import importlib

import pytest

from tests.channels.harness import ChannelUnderTest

# adapter id (the channel's name, or a mode of it: "whatsapp-linked" is the channel
# "whatsapp" without a bridge) -> "module:Class" under this package
ADAPTERS = {
    "telegram": "telegram:Telegram",
    "slack": "slack:Slack",
    "discord": "discord:Discord",
    "feishu": "feishu:Feishu",
    "dingtalk": "dingtalk:DingTalk",
    "qq": "qq:QQ",
    "mochat": "mochat:Mochat",
    "whatsapp": "whatsapp:WhatsApp",
    "email": "email:Email",
    "matrix": "matrix:Matrix",
    "signal": "signal:Signal",
    "napcat": "napcat:Napcat",
    "websocket": "websocket:WebSocket",
    "mattermost": "mattermost:Mattermost",
    "msteams": "msteams:MSTeams",
    "wecom": "wecom:Wecom",
    "weixin": "weixin:Weixin",
    "whatsapp-linked": "whatsapp_linked:WhatsAppLinked",
}


async def adapter(name: str, request: pytest.FixtureRequest) -> ChannelUnderTest:
    """The adapter of channel ``name`` (its server not started yet)."""
    module, cls = ADAPTERS[name].split(":")
    factory = getattr(importlib.import_module(f"{__name__}.{module}"), cls)
    made: ChannelUnderTest = factory(request)
    return made
