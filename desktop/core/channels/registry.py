"""The chat channels this app knows: where each lives, its SDK extra, how to install it.

Channel packages import their SDK lazily (inside the package), so a missing optional
dependency never breaks start-up: the manager reports the channel as ``unavailable`` with the
install hint instead.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChannelInfo:
    """One known channel.

    Attributes:
        name: Its config section (``channels.<name>``) and channel name on the bus.
        display_name: For people.
        module: The package holding its :class:`~desktop.core.channels.base.BaseChannel`.
        class_name: The class in that package.
        extra: The pip extra that installs its SDK.
        requires: Modules that must import for it to run (its SDK).
    """

    name: str
    display_name: str
    module: str
    class_name: str
    extra: str
    requires: tuple[str, ...] = ()

    @property
    def install_hint(self) -> str:
        """How to install what it needs."""
        return f'pip install "nanobot-desktop[{self.extra}]"'


CHANNELS: dict[str, ChannelInfo] = {
    info.name: info
    for info in (
        ChannelInfo("telegram", "Telegram", "desktop.core.channels.telegram.channel", "TelegramChannel",
                    "telegram", ("telegram",)),
        ChannelInfo("email", "Email", "desktop.core.channels.email.channel", "EmailChannel", "email"),
        ChannelInfo("matrix", "Matrix", "desktop.core.channels.matrix.channel", "MatrixChannel",
                    "matrix", ("nio",)),
        ChannelInfo("slack", "Slack", "desktop.core.channels.slack.channel", "SlackChannel", "slack",
                    ("slack_sdk",)),
        ChannelInfo("discord", "Discord", "desktop.core.channels.discord.channel", "DiscordChannel",
                    "discord", ("discord",)),
        ChannelInfo("feishu", "Feishu / Lark", "desktop.core.channels.feishu.channel", "FeishuChannel",
                    "feishu", ("lark_oapi",)),
        ChannelInfo("dingtalk", "DingTalk", "desktop.core.channels.dingtalk.channel", "DingTalkChannel",
                    "dingtalk", ("dingtalk_stream",)),
        ChannelInfo("qq", "QQ", "desktop.core.channels.qq.channel", "QQChannel", "qq", ("botpy",)),
        ChannelInfo("whatsapp", "WhatsApp", "desktop.core.channels.whatsapp.select", "open_channel",
                    "whatsapp", ("neonize",)),
        ChannelInfo("mochat", "Mochat", "desktop.core.channels.mochat.channel", "MochatChannel",
                    "mochat", ("socketio",)),
        ChannelInfo("websocket", "WebSocket", "desktop.core.channels.websocket.channel",
                    "WebSocketChannel", "websocket", ("websockets",)),
        ChannelInfo("signal", "Signal", "desktop.core.channels.signal.channel", "SignalChannel",
                    "signal", ("httpx",)),
        ChannelInfo("napcat", "NapCat (QQ)", "desktop.core.channels.napcat.channel", "NapcatChannel",
                    "napcat", ("websockets", "aiohttp")),
        ChannelInfo("mattermost", "Mattermost", "desktop.core.channels.mattermost.channel",
                    "MattermostChannel", "mattermost", ("aiohttp",)),
        ChannelInfo("msteams", "Microsoft Teams", "desktop.core.channels.msteams.channel",
                    "MSTeamsChannel", "msteams", ("botbuilder.core", "botbuilder.integration.aiohttp")),
        ChannelInfo("wecom", "WeCom", "desktop.core.channels.wecom.channel", "WecomChannel", "wecom",
                    ("wecom_aibot_sdk",)),
        ChannelInfo("weixin", "WeChat", "desktop.core.channels.weixin.channel", "WeixinChannel",
                    "weixin", ("aiohttp",)),
    )
}  # fmt: skip
