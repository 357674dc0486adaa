"""What each channel page leads with: the fields you need from the platform, a paragraph on
how to get them with a link to the platform's page, and who may talk to the agent.

The channel form (:mod:`desktop.ui.settings.channel_form`) puts ``enabled`` and the
:attr:`ChannelGuide.essentials` first, then the :attr:`ChannelGuide.access` fields under "Who
may talk to the agent", then every other field of the channel's schema in a collapsed
"Advanced" section. Field labels and help still come from the schema (``title`` and
``description``); this module only orders them and adds the how-to.

The how-to paragraphs, link texts and reaction names are marked for translation
(:func:`QT_TR_NOOP`; the module stays free of Qt) and shown through ``tr()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.core.utils.i18n import QT_TR_NOOP


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
    Reaction("👀", QT_TR_NOOP("Eyes")),
    Reaction("👍", QT_TR_NOOP("Thumbs up")),
    Reaction("🤔", QT_TR_NOOP("Thinking face")),
    Reaction("✍", QT_TR_NOOP("Writing hand")),
    Reaction("⏳", QT_TR_NOOP("Hourglass")),
    Reaction("🔧", QT_TR_NOOP("Wrench")),
    Reaction("⚡", QT_TR_NOOP("Lightning")),
    Reaction("🔥", QT_TR_NOOP("Fire")),
    Reaction("👌", QT_TR_NOOP("OK hand")),
    Reaction("🙏", QT_TR_NOOP("Folded hands")),
    Reaction("🫡", QT_TR_NOOP("Saluting face")),
    Reaction("👨‍💻", QT_TR_NOOP("Technologist")),
)
"""Reactions that mean "working on it", for platforms that take any emoji (Discord)."""

TELEGRAM_REACTIONS = (
    Reaction("👀", QT_TR_NOOP("Eyes")),
    Reaction("👍", QT_TR_NOOP("Thumbs up")),
    Reaction("🤔", QT_TR_NOOP("Thinking face")),
    Reaction("✍", QT_TR_NOOP("Writing hand")),
    Reaction("⚡", QT_TR_NOOP("Lightning")),
    Reaction("🔥", QT_TR_NOOP("Fire")),
    Reaction("👌", QT_TR_NOOP("OK hand")),
    Reaction("🙏", QT_TR_NOOP("Folded hands")),
    Reaction("🫡", QT_TR_NOOP("Saluting face")),
    Reaction("👨‍💻", QT_TR_NOOP("Technologist")),
    Reaction("🤓", QT_TR_NOOP("Nerd face")),
    Reaction("🎉", QT_TR_NOOP("Party popper")),
    Reaction("❤", QT_TR_NOOP("Red heart")),
    Reaction("🤝", QT_TR_NOOP("Handshake")),
    Reaction("🆒", QT_TR_NOOP("Cool")),
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
    Reaction("🔧", QT_TR_NOOP("Wrench")),
    Reaction("⚙", QT_TR_NOOP("Gear")),
    Reaction("🛠", QT_TR_NOOP("Hammer and wrench")),
    Reaction("⏳", QT_TR_NOOP("Hourglass")),
    Reaction("👀", QT_TR_NOOP("Eyes")),
)

GUIDES: dict[str, ChannelGuide] = {
    "telegram": ChannelGuide(
        essentials=("token",),
        access=("allow_from", "group_policy"),
        how_to=QT_TR_NOOP(
            "In Telegram, open a chat with @BotFather, send /newbot and choose a name and a "
            "user name for your bot. BotFather answers with a token like 123456789:AA…: paste "
            "it here. For Allowed senders you need your numeric user id: @userinfobot tells "
            "you yours."
        ),
        link="https://t.me/BotFather",
        link_text=QT_TR_NOOP("Open @BotFather"),
        emoji={"react_emoji": TELEGRAM_REACTIONS},
        emoji_accepted={"react_emoji": TELEGRAM_ACCEPTED},
    ),
    "discord": ChannelGuide(
        essentials=("token",),
        access=("allow_from", "allow_channels", "group_policy"),
        how_to=QT_TR_NOOP(
            "In the Developer Portal create an application, open Bot, press Reset Token and "
            "paste the token here; on the same page turn on Message Content Intent. Invite the "
            "bot with OAuth2 → URL Generator (scope bot; Send Messages, Read Message History, "
            "Add Reactions). For Allowed senders turn on Developer Mode in Discord and use "
            "Copy User ID on yourself."
        ),
        link="https://discord.com/developers/applications",
        link_text=QT_TR_NOOP("Discord Developer Portal"),
        emoji={"read_receipt_emoji": COMMON_REACTIONS},
    ),
    "slack": ChannelGuide(
        essentials=("bot_token", "app_token"),
        access=("allow_from", "group_policy", "group_allow_from", "group_require_mention"),
        how_to=QT_TR_NOOP(
            "Create an app at api.slack.com/apps and turn on Socket Mode: it makes the app "
            "token (xapp-…, scope connections:write). Under OAuth & Permissions add the bot "
            "scopes chat:write, reactions:write, app_mentions:read and im:history, subscribe "
            "to the message.im and app_mention events, then install the app to your "
            "workspace and copy the Bot User OAuth Token (xoxb-…). Your member id (for "
            "Allowed senders) is in your Slack profile → ⋮ → Copy member ID."
        ),
        link="https://api.slack.com/apps",
        link_text=QT_TR_NOOP("Your Slack apps"),
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
        how_to=QT_TR_NOOP(
            "Use a mailbox of its own for the agent. Your mail provider's help lists its IMAP "
            "(incoming) and SMTP (outgoing) servers; with two-step sign-in (Gmail, Outlook, "
            "iCloud) create an app password and use it instead of the account password. Put "
            "your own address under Allowed senders."
        ),
        link="https://support.google.com/accounts/answer/185833",
        link_text=QT_TR_NOOP("App passwords (Gmail)"),
    ),
    "matrix": ChannelGuide(
        essentials=("homeserver", "user_id", "access_token", "password"),
        access=("allow_from", "group_policy", "group_allow_from", "allow_room_mentions"),
        how_to=QT_TR_NOOP(
            "Create an account for the bot on your homeserver (any Matrix client can register "
            "one), sign in with it in Element and copy its access token from Settings → Help & "
            "About → Advanced; or give the account's password instead. Allowed senders are "
            "full Matrix ids like @you:matrix.org."
        ),
        link="https://matrix.org/ecosystem/clients/",
        link_text=QT_TR_NOOP("Matrix clients"),
    ),
    "whatsapp": ChannelGuide(
        essentials=(),
        access=("allow_from", "group_policy"),
        how_to=QT_TR_NOOP(
            "The app joins your WhatsApp account as a linked device, like WhatsApp Web. "
            "Enable the channel and press Connect: a QR code appears here; scan it from "
            "WhatsApp on your phone (Settings → Linked devices → Link a device). The session "
            "is kept where nanobot keeps it, so one linking serves both. Allowed senders are "
            "phone numbers in international form without +."
        ),
        link="https://faq.whatsapp.com/1317564962315842",
        link_text=QT_TR_NOOP("About linked devices"),
    ),
    "feishu": ChannelGuide(
        essentials=("app_id", "app_secret", "domain"),
        access=("allow_from", "group_policy"),
        how_to=QT_TR_NOOP(
            "In the Feishu (or Lark) developer console create a self-built app, add the Bot "
            "ability, grant it the im:message permissions, and under Events & Callbacks "
            "choose the long connection and add the im.message.receive_v1 event; publish a "
            "version. The App ID and App Secret are under Credentials & Basic Info. Allowed "
            "senders are open ids (ou_…)."
        ),
        link="https://open.feishu.cn/app",
        link_text=QT_TR_NOOP("Feishu developer console"),
        emoji={"tool_hint_prefix": TOOL_PREFIXES},
    ),
    "dingtalk": ChannelGuide(
        essentials=("client_id", "client_secret"),
        access=("allow_from", "disable_private_chat"),
        how_to=QT_TR_NOOP(
            "In the DingTalk developer console create an app, add the Robot ability with "
            "Stream mode as the way messages arrive, and publish it. Its Client ID and Client "
            "Secret are on the app's Credentials page. Allowed senders are staff ids."
        ),
        link="https://open-dev.dingtalk.com/",
        link_text=QT_TR_NOOP("DingTalk developer console"),
    ),
    "qq": ChannelGuide(
        essentials=("app_id", "secret"),
        access=("allow_from",),
        how_to=QT_TR_NOOP(
            "On the QQ Open Platform register as a developer and create a bot; its AppID and "
            "AppSecret are under Development → Settings. Until the bot is published, add "
            "yourself to its sandbox to talk to it. Allowed senders are your openid as the "
            "bot sees it."
        ),
        link="https://q.qq.com/",
        link_text=QT_TR_NOOP("QQ Open Platform"),
    ),
    "mochat": ChannelGuide(
        essentials=("base_url", "claw_token", "agent_user_id"),
        access=("allow_from", "sessions", "panels"),
        how_to=QT_TR_NOOP(
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
        how_to=QT_TR_NOOP(
            "The agent listens here and browsers, phones and scripts connect to it with "
            "nanobot's WebSocket protocol. To open nanobot's WebUI from a phone on your "
            "network, listen on 0.0.0.0, set a token issue secret (the WebUI asks for it at "
            "login) and open http://<this computer's address>:<port>/ on the phone. Without "
            "a token or secret it only listens on this computer."
        ),
        link="https://github.com/HKUDS/nanobot",
        link_text=QT_TR_NOOP("nanobot's WebUI"),
    ),
    "signal": ChannelGuide(
        essentials=("phone_number", "daemon_host", "daemon_port"),
        access=("allow_from",),
        how_to=QT_TR_NOOP(
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
        how_to=QT_TR_NOOP(
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
        how_to=QT_TR_NOOP(
            "In Mattermost open Integrations → Bot Accounts → Add Bot Account (a system admin "
            "may first have to turn bot accounts on), then Create New Token and copy it. Add "
            "the bot to the teams and channels it should answer in. The server address is the "
            "one you open Mattermost at. Your user id (for Allowed senders) is under your "
            "avatar → Profile → ⋮ → Copy user ID."
        ),
        link="https://developers.mattermost.com/integrate/reference/bot-accounts/",
        link_text=QT_TR_NOOP("Mattermost bot accounts"),
    ),
    "msteams": ChannelGuide(
        essentials=("app_id", "app_password", "tenant_id", "port", "path"),
        access=("allow_from",),
        how_to=QT_TR_NOOP(
            "Create an Azure Bot (Azure portal → Create a resource → Azure Bot) and copy its "
            "Microsoft App ID; under Configuration → Manage Password add a client secret. Set "
            "its messaging endpoint to https://<your public host><path>, forwarded (e.g. by a "
            "tunnel) to this port, and add the Microsoft Teams channel. Allowed senders are "
            "Entra object ids (Teams admin center or Entra ID → Users → Object ID)."
        ),
        link="https://dev.teams.microsoft.com/apps",
        link_text=QT_TR_NOOP("Teams Developer Portal"),
    ),
    "wecom": ChannelGuide(
        essentials=("bot_id", "secret"),
        access=("allow_from",),
        how_to=QT_TR_NOOP(
            "In the WeCom admin console create an AI bot (智能机器人) and choose the API mode "
            "with a long connection: no public address is needed. Its Bot ID and Secret are "
            "shown there. Allowed senders are WeCom user ids (userid)."
        ),
        link="https://developer.work.weixin.qq.com/",
        link_text=QT_TR_NOOP("WeCom developer center"),
    ),
    "weixin": ChannelGuide(
        essentials=(),
        access=("allow_from",),
        how_to=QT_TR_NOOP(
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


HEADINGS = (
    QT_TR_NOOP("Telegram bot"),
    QT_TR_NOOP("Discord bot"),
    QT_TR_NOOP("Slack app in Socket Mode"),
    QT_TR_NOOP("Feishu / Lark over a WebSocket long connection"),
    QT_TR_NOOP("DingTalk robot in stream mode"),
    QT_TR_NOOP("Email: IMAP in, SMTP out"),
    QT_TR_NOOP("Matrix (Element and any other Matrix client)"),
    QT_TR_NOOP("QQ bot (QQ Open Platform)"),
    QT_TR_NOOP("WhatsApp, linked to your account as a device (like WhatsApp Web)"),
    QT_TR_NOOP("Mochat (Socket.IO)"),
    QT_TR_NOOP("WebSocket server (browsers and phones connect to us)"),
    QT_TR_NOOP("Signal through a signal-cli daemon (its HTTP JSON-RPC interface)"),
    QT_TR_NOOP("QQ through NapCat's OneBot v11 WebSocket server"),
    QT_TR_NOOP("A Mattermost bot account, over the REST API v4 and its WebSocket"),
    QT_TR_NOOP("A Microsoft Teams bot (Azure Bot registration) receiving on a local HTTP endpoint"),
    QT_TR_NOOP("A WeCom (企业微信) AI bot on the WebSocket long connection"),
    QT_TR_NOOP("Personal WeChat through the iLink bot API"),
)
"""The channel forms' headings: the first line of each channel schema's docstring (without its
full stop), listed here for translation; the form shows ``tr()`` of the docstring's line."""


def heading_of(model: type, name: str) -> str:
    """The English heading of a channel's form: its schema's first docstring line."""
    return (model.__doc__ or name).strip().splitlines()[0].rstrip(".")
