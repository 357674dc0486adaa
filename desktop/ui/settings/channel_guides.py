"""What each channel page leads with: the fields you need from the platform, a paragraph on
how to get them with a link to the platform's page, and who may talk to the agent.

The channel form (:mod:`desktop.ui.settings.channel_form`) puts ``enabled`` and the
:attr:`ChannelGuide.essentials` first, then the :attr:`ChannelGuide.access` fields under "Who
may talk to the agent", then every other field of the channel's schema in a collapsed
"Advanced" section. Field labels and help still come from the schema (``title`` and
``description``); this module only orders them and adds the how-to.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reaction:
    """An emoji the platform accepts as a reaction, with a name to show beside it (a system
    without an emoji font still shows the name)."""

    emoji: str
    name: str


@dataclass(frozen=True)
class ChannelGuide:
    """How a channel's Settings page is laid out and explained.

    Attributes:
        essentials: Field names to fill in before anything works, in order.
        access: Field names that decide who may talk to the agent (``allow_from`` first).
        how_to: One paragraph: how to get the essentials from the platform.
        link: The platform's page for it.
        link_text: The link's words.
        emoji: Emoji fields and the reactions their picker offers.
        emoji_accepted: Emoji fields whose platform accepts only a fixed set, and that set.
    """

    essentials: tuple[str, ...]
    access: tuple[str, ...]
    how_to: str
    link: str
    link_text: str
    emoji: dict[str, tuple[Reaction, ...]] = field(default_factory=dict)
    emoji_accepted: dict[str, frozenset[str]] = field(default_factory=dict)


COMMON_REACTIONS = (
    Reaction("👀", "Eyes"),
    Reaction("👍", "Thumbs up"),
    Reaction("🤔", "Thinking face"),
    Reaction("✍", "Writing hand"),
    Reaction("⏳", "Hourglass"),
    Reaction("🔧", "Wrench"),
    Reaction("⚡", "Lightning"),
    Reaction("🔥", "Fire"),
    Reaction("👌", "OK hand"),
    Reaction("🙏", "Folded hands"),
    Reaction("🫡", "Saluting face"),
    Reaction("👨‍💻", "Technologist"),
)
"""Reactions that mean "working on it", for platforms that take any emoji (Discord)."""

TELEGRAM_REACTIONS = (
    Reaction("👀", "Eyes"),
    Reaction("👍", "Thumbs up"),
    Reaction("🤔", "Thinking face"),
    Reaction("✍", "Writing hand"),
    Reaction("⚡", "Lightning"),
    Reaction("🔥", "Fire"),
    Reaction("👌", "OK hand"),
    Reaction("🙏", "Folded hands"),
    Reaction("🫡", "Saluting face"),
    Reaction("👨‍💻", "Technologist"),
    Reaction("🤓", "Nerd face"),
    Reaction("🎉", "Party popper"),
    Reaction("❤", "Red heart"),
    Reaction("🤝", "Handshake"),
    Reaction("🆒", "Cool"),
)
"""Reactions that mean "working on it" among those Telegram allows."""

_TELEGRAM_ACCEPTED = (
    "👍 👎 ❤ 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤\u200d🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 "
    "💔 🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨\u200d💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 "
    "😘 💊 🙊 😎 👾 🤷\u200d♂ 🤷 🤷\u200d♀ 😡"
)
TELEGRAM_ACCEPTED = frozenset(_TELEGRAM_ACCEPTED.split())
"""The emoji a bot may react with on Telegram (the Bot API refuses any other)."""

TOOL_PREFIXES = (
    Reaction("🔧", "Wrench"),
    Reaction("⚙", "Gear"),
    Reaction("🛠", "Hammer and wrench"),
    Reaction("⏳", "Hourglass"),
    Reaction("👀", "Eyes"),
)

GUIDES: dict[str, ChannelGuide] = {
    "telegram": ChannelGuide(
        essentials=("token",),
        access=("allow_from", "group_policy"),
        how_to=(
            "In Telegram, open a chat with @BotFather, send /newbot and choose a name and a "
            "user name for your bot. BotFather answers with a token like 123456789:AA…: paste "
            "it here. For Allowed senders you need your numeric user id: @userinfobot tells "
            "you yours."
        ),
        link="https://t.me/BotFather",
        link_text="Open @BotFather",
        emoji={"react_emoji": TELEGRAM_REACTIONS},
        emoji_accepted={"react_emoji": TELEGRAM_ACCEPTED},
    ),
    "discord": ChannelGuide(
        essentials=("token",),
        access=("allow_from", "allow_channels", "group_policy"),
        how_to=(
            "In the Developer Portal create an application, open Bot, press Reset Token and "
            "paste the token here; on the same page turn on Message Content Intent. Invite the "
            "bot with OAuth2 → URL Generator (scope bot; Send Messages, Read Message History, "
            "Add Reactions). For Allowed senders turn on Developer Mode in Discord and use "
            "Copy User ID on yourself."
        ),
        link="https://discord.com/developers/applications",
        link_text="Discord Developer Portal",
        emoji={"read_receipt_emoji": COMMON_REACTIONS},
    ),
    "slack": ChannelGuide(
        essentials=("bot_token", "app_token"),
        access=("allow_from", "group_policy", "group_allow_from", "group_require_mention"),
        how_to=(
            "Create an app at api.slack.com/apps and turn on Socket Mode: it makes the app "
            "token (xapp-…, scope connections:write). Under OAuth & Permissions add the bot "
            "scopes chat:write, reactions:write, app_mentions:read and im:history, subscribe "
            "to the message.im and app_mention events, then install the app to your "
            "workspace and copy the Bot User OAuth Token (xoxb-…). Your member id (for "
            "Allowed senders) is in your Slack profile → ⋮ → Copy member ID."
        ),
        link="https://api.slack.com/apps",
        link_text="Your Slack apps",
    ),
    "email": ChannelGuide(
        essentials=(
            "consent_granted",
            "imap_host",
            "imap_port",
            "imap_username",
            "imap_password",
            "smtp_host",
            "smtp_port",
            "smtp_username",
            "smtp_password",
        ),
        access=("allow_from", "verify_dkim", "verify_spf", "trusted_authserv_ids"),
        how_to=(
            "Use a mailbox of its own for the agent. Your mail provider's help lists its IMAP "
            "(incoming) and SMTP (outgoing) servers; with two-step sign-in (Gmail, Outlook, "
            "iCloud) create an app password and use it instead of the account password. Put "
            "your own address under Allowed senders."
        ),
        link="https://support.google.com/accounts/answer/185833",
        link_text="App passwords (Gmail)",
    ),
    "matrix": ChannelGuide(
        essentials=("homeserver", "user_id", "access_token", "password"),
        access=("allow_from", "group_policy", "group_allow_from", "allow_room_mentions"),
        how_to=(
            "Create an account for the bot on your homeserver (any Matrix client can register "
            "one), sign in with it in Element and copy its access token from Settings → Help & "
            "About → Advanced; or give the account's password instead. Allowed senders are "
            "full Matrix ids like @you:matrix.org."
        ),
        link="https://matrix.org/ecosystem/clients/",
        link_text="Matrix clients",
    ),
    "whatsapp": ChannelGuide(
        essentials=(),
        access=("allow_from", "group_policy"),
        how_to=(
            "The app joins your WhatsApp account as a linked device, like WhatsApp Web. "
            "Enable the channel and press Connect: a QR code appears here; scan it from "
            "WhatsApp on your phone (Settings → Linked devices → Link a device). The session "
            "is kept where nanobot keeps it, so one linking serves both. Allowed senders are "
            "phone numbers in international form without +."
        ),
        link="https://faq.whatsapp.com/1317564962315842",
        link_text="About linked devices",
    ),
    "feishu": ChannelGuide(
        essentials=("app_id", "app_secret", "domain"),
        access=("allow_from", "group_policy"),
        how_to=(
            "In the Feishu (or Lark) developer console create a self-built app, add the Bot "
            "ability, grant it the im:message permissions, and under Events & Callbacks "
            "choose the long connection and add the im.message.receive_v1 event; publish a "
            "version. The App ID and App Secret are under Credentials & Basic Info. Allowed "
            "senders are open ids (ou_…)."
        ),
        link="https://open.feishu.cn/app",
        link_text="Feishu developer console",
        emoji={"tool_hint_prefix": TOOL_PREFIXES},
    ),
    "dingtalk": ChannelGuide(
        essentials=("client_id", "client_secret"),
        access=("allow_from", "disable_private_chat"),
        how_to=(
            "In the DingTalk developer console create an app, add the Robot ability with "
            "Stream mode as the way messages arrive, and publish it. Its Client ID and Client "
            "Secret are on the app's Credentials page. Allowed senders are staff ids."
        ),
        link="https://open-dev.dingtalk.com/",
        link_text="DingTalk developer console",
    ),
    "qq": ChannelGuide(
        essentials=("app_id", "secret"),
        access=("allow_from",),
        how_to=(
            "On the QQ Open Platform register as a developer and create a bot; its AppID and "
            "AppSecret are under Development → Settings. Until the bot is published, add "
            "yourself to its sandbox to talk to it. Allowed senders are your openid as the "
            "bot sees it."
        ),
        link="https://q.qq.com/",
        link_text="QQ Open Platform",
    ),
    "mochat": ChannelGuide(
        essentials=("base_url", "claw_token", "agent_user_id"),
        access=("allow_from", "sessions", "panels"),
        how_to=(
            "Register the agent with your Mochat server: registration gives a claw token "
            "(claw_…) and the agent's own user id. Then list the sessions (direct chats) and "
            'panels (group channels) it answers in, or "*" for all of them.'
        ),
        link="https://mochat.io/",
        link_text="Mochat",
    ),
    "websocket": ChannelGuide(
        essentials=("host", "port", "token_issue_secret"),
        access=("allow_from", "token", "websocket_requires_token"),
        how_to=(
            "The agent listens here and browsers, phones and scripts connect to it with "
            "nanobot's WebSocket protocol. To open nanobot's WebUI from a phone on your "
            "network, listen on 0.0.0.0, set a token issue secret (the WebUI asks for it at "
            "login) and open http://<this computer's address>:<port>/ on the phone. Without "
            "a token or secret it only listens on this computer."
        ),
        link="https://github.com/HKUDS/nanobot",
        link_text="nanobot's WebUI",
    ),
    "signal": ChannelGuide(
        essentials=("phone_number", "daemon_host", "daemon_port"),
        access=("allow_from",),
        how_to=(
            "Register a phone number for the agent with signal-cli (or link it to your Signal "
            "app as a device) and keep its daemon running: signal-cli -a +NUMBER daemon --http "
            "localhost:8080. Allowed senders are phone numbers or Signal UUIDs; group rules "
            "(dm, group) are nanobot's and kept in config.json."
        ),
        link="https://github.com/AsamK/signal-cli",
        link_text="signal-cli",
    ),
    "napcat": ChannelGuide(
        essentials=("ws_url", "access_token"),
        access=("allow_from", "group_policy"),
        how_to=(
            "Run NapCat with the QQ account logged in (scan its QR code in NapCat's web UI), "
            "then add a WebSocket server under Network configuration (message format: array) "
            "with an access token. Allowed senders are QQ numbers."
        ),
        link="https://napneko.github.io/",
        link_text="NapCat",
    ),
    "mattermost": ChannelGuide(
        essentials=("server_url", "token"),
        access=(
            "allow_from",
            "allow_from_match_mode",
            "group_policy",
            "group_policy_in_thread",
            "group_allow_from",
        ),
        how_to=(
            "In Mattermost open Integrations → Bot Accounts → Add Bot Account (a system admin "
            "may first have to turn bot accounts on), then Create New Token and copy it. Add "
            "the bot to the teams and channels it should answer in. The server address is the "
            "one you open Mattermost at. Your user id (for Allowed senders) is under your "
            "avatar → Profile → ⋮ → Copy user ID."
        ),
        link="https://developers.mattermost.com/integrate/reference/bot-accounts/",
        link_text="Mattermost bot accounts",
    ),
    "msteams": ChannelGuide(
        essentials=("app_id", "app_password", "tenant_id", "port", "path"),
        access=("allow_from",),
        how_to=(
            "Create an Azure Bot (Azure portal → Create a resource → Azure Bot) and copy its "
            "Microsoft App ID; under Configuration → Manage Password add a client secret. Set "
            "its messaging endpoint to https://<your public host><path>, forwarded (e.g. by a "
            "tunnel) to this port, and add the Microsoft Teams channel. Allowed senders are "
            "Entra object ids (Teams admin center or Entra ID → Users → Object ID)."
        ),
        link="https://dev.teams.microsoft.com/apps",
        link_text="Teams Developer Portal",
    ),
    "wecom": ChannelGuide(
        essentials=("bot_id", "secret"),
        access=("allow_from",),
        how_to=(
            "In the WeCom admin console create an AI bot (智能机器人) and choose the API mode "
            "with a long connection: no public address is needed. Its Bot ID and Secret are "
            "shown there. Allowed senders are WeCom user ids (userid)."
        ),
        link="https://developer.work.weixin.qq.com/",
        link_text="WeCom developer center",
    ),
    "weixin": ChannelGuide(
        essentials=(),
        access=("allow_from",),
        how_to=(
            "Enable the channel and save: a QR code appears here; scan it with WeChat on your "
            "phone and confirm (or run 'nanobot-desktop channels login weixin' in a terminal). "
            "The login is kept in the weixin folder beside config.json, shared with nanobot. "
            "Allowed senders are WeChat ids (…@im.wechat)."
        ),
        link="https://weixin.qq.com/",
        link_text="WeChat",
    ),
}


def guide_for(name: str) -> ChannelGuide:
    """The guide of channel ``name`` (a channel without one: only "Who may talk" is split
    out; everything else is under Advanced, nothing vanishes)."""
    return GUIDES.get(
        name,
        ChannelGuide(
            essentials=(),
            access=("allow_from",),
            how_to="",
            link="",
            link_text="",
        ),
    )


def section_of(guide: ChannelGuide, field_name: str) -> str:
    """``essentials``, ``access`` or ``advanced``: where a field of the channel goes."""
    if field_name == "enabled" or field_name in guide.essentials:
        return "essentials"
    if field_name in guide.access:
        return "access"
    return "advanced"
