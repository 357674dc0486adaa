"""The config schema's field texts, marked for translation (generated: do not edit).

Written by ``scripts/translations.py update`` from the pydantic models of
``desktop.core.config`` (titles, descriptions, units), so ``pyside6-lupdate`` lists them;
Settings shows them through ``tr()`` (:func:`desktop.ui.settings.schema_form.title_of`).
"""

from __future__ import annotations

from desktop.core.utils.i18n import QT_TR_NOOP

TEXTS: tuple[str, ...] = (
    QT_TR_NOOP("Enabled"),
    QT_TR_NOOP("Run this channel."),
    QT_TR_NOOP("Allowed senders"),
    QT_TR_NOOP(
        'Who may talk to the agent: ids (or "id|username"; a username alone never matches: it can change hands); "*" for everyone. Empty: nobody.'
    ),
    QT_TR_NOOP("Client ID"),
    QT_TR_NOOP(
        "The Client ID (AppKey) of your DingTalk app, from the developer console (open-dev.dingtalk.com → your app → Credentials). It is also the robot code."
    ),
    QT_TR_NOOP("Client secret"),
    QT_TR_NOOP("The Client Secret (AppSecret) of the same app. Kept in the keyring."),
    QT_TR_NOOP("One conversation per person in groups"),
    QT_TR_NOOP(
        "In a group, keep a separate conversation with the agent for every member (otherwise the whole group shares one)."
    ),
    QT_TR_NOOP("Groups only"),
    QT_TR_NOOP("Ignore one-to-one messages to the robot; answer only in groups."),
    QT_TR_NOOP("Follow redirects of remote media"),
    QT_TR_NOOP("nanobot's setting for sending media from web addresses; not used here."),
    QT_TR_NOOP("Redirect hosts for remote media"),
    QT_TR_NOOP("OpenAPI server"),
    QT_TR_NOOP(
        "Where DingTalk's OpenAPI is (the stream gateway, access tokens, robot messages). Change it only for a proxy or a test server."
    ),
    QT_TR_NOOP("Media upload server"),
    QT_TR_NOOP(
        "Where DingTalk's older API is (file uploads for images and files the agent sends). Change it only for a proxy or a test server."
    ),
    QT_TR_NOOP("Bot token"),
    QT_TR_NOOP(
        "The bot's token (Developer Portal → your application → Bot → Reset Token). Kept in the keyring."
    ),
    QT_TR_NOOP("Server channel policy"),
    QT_TR_NOOP(
        'In server channels, answer every message ("open") or only messages that mention the bot or reply to it ("mention"). Direct messages are always answered.'
    ),
    QT_TR_NOOP("Allowed channels"),
    QT_TR_NOOP("Channel ids the bot listens in (empty: every channel it can read)."),
    QT_TR_NOOP("Gateway intents"),
    QT_TR_NOOP(
        "The gateway intents bit field. The default (37377) is servers, server messages, direct messages and message content."
    ),
    QT_TR_NOOP("Reaction"),
    QT_TR_NOOP("Emoji the bot reacts with while it works on a message (empty: none)."),
    QT_TR_NOOP("Working emoji"),
    QT_TR_NOOP("nanobot's second reaction for long tasks; not used by the desktop app."),
    QT_TR_NOOP("Working emoji delay"),
    QT_TR_NOOP("nanobot's seconds before the working emoji; not used by the desktop app."),
    QT_TR_NOOP("Streaming"),
    QT_TR_NOOP("nanobot's streamed answers (message edits); not used by the desktop app."),
    QT_TR_NOOP("Proxy"),
    QT_TR_NOOP('HTTP proxy for Discord, e.g. "http://127.0.0.1:8080".'),
    QT_TR_NOOP("Proxy user name"),
    QT_TR_NOOP("For a proxy that needs a login."),
    QT_TR_NOOP("Proxy password"),
    QT_TR_NOOP("Gateway"),
    QT_TR_NOOP(
        "The gateway WebSocket address. Left at Discord's, the address the API names (GET /gateway/bot) is used."
    ),
    QT_TR_NOOP("API address"),
    QT_TR_NOOP("Where Discord's REST API is. Change it only for a Discord-compatible proxy."),
    QT_TR_NOOP("Consent granted"),
    QT_TR_NOOP(
        "The mailbox owner agreed that the agent reads this mailbox and answers from it. Nothing is read or sent until this is on."
    ),
    QT_TR_NOOP("IMAP host"),
    QT_TR_NOOP("Incoming mail server."),
    QT_TR_NOOP("IMAP port"),
    QT_TR_NOOP("993 for SSL, 143 without."),
    QT_TR_NOOP("IMAP username"),
    QT_TR_NOOP("Mailbox login."),
    QT_TR_NOOP("IMAP password"),
    QT_TR_NOOP("Mailbox password or app password (keyring)."),
    QT_TR_NOOP("IMAP mailbox"),
    QT_TR_NOOP("Folder to watch."),
    QT_TR_NOOP("IMAP over SSL"),
    QT_TR_NOOP("Connect with TLS."),
    QT_TR_NOOP("SMTP host"),
    QT_TR_NOOP("Outgoing mail server."),
    QT_TR_NOOP("SMTP port"),
    QT_TR_NOOP("587 with STARTTLS, 465 with SSL, 25 plain."),
    QT_TR_NOOP("SMTP username"),
    QT_TR_NOOP("Login for sending."),
    QT_TR_NOOP("SMTP password"),
    QT_TR_NOOP("Password or app password (keyring)."),
    QT_TR_NOOP("SMTP STARTTLS"),
    QT_TR_NOOP("Upgrade with STARTTLS."),
    QT_TR_NOOP("SMTP over SSL"),
    QT_TR_NOOP("Connect with TLS from the start (port 465)."),
    QT_TR_NOOP("From address"),
    QT_TR_NOOP("Sender of the answers (default: the SMTP, then the IMAP username)."),
    QT_TR_NOOP("Answer mail"),
    QT_TR_NOOP(
        "Send the agent's answers to people who wrote. Off: only reminders and messages the agent sends on its own go out."
    ),
    QT_TR_NOOP("Poll interval (s)"),
    QT_TR_NOOP("How often the mailbox is checked."),
    QT_TR_NOOP("Mark as read"),
    QT_TR_NOOP("Mark a mail as read once the agent has it."),
    QT_TR_NOOP("After handling"),
    QT_TR_NOOP('What to do with a handled mail: nothing (empty), "delete" or "move".'),
    QT_TR_NOOP("Move to folder"),
    QT_TR_NOOP('The folder for "move".'),
    QT_TR_NOOP("Expunge"),
    QT_TR_NOOP("Expunge the whole folder when the server cannot expunge single mails."),
    QT_TR_NOOP("Leave skipped mail alone"),
    QT_TR_NOOP("Apply the action only to mail the agent handled (not to ignored mail)."),
    QT_TR_NOOP("Longest body"),
    QT_TR_NOOP("Characters of a mail body given to the agent."),
    QT_TR_NOOP("Subject prefix"),
    QT_TR_NOOP("For answers."),
    QT_TR_NOOP("Require DKIM"),
    QT_TR_NOOP("Only accept mail whose trusted Authentication-Results say dkim=pass."),
    QT_TR_NOOP("Require SPF"),
    QT_TR_NOOP("Only accept mail whose trusted Authentication-Results say spf=pass."),
    QT_TR_NOOP("Trusted authentication servers"),
    QT_TR_NOOP(
        "authserv-id of your provider's Authentication-Results header (e.g. mx.google.com); needed when DKIM or SPF is required."
    ),
    QT_TR_NOOP("Attachment types kept"),
    QT_TR_NOOP(
        'MIME types saved for the agent (e.g. "image/*", "application/pdf"; "*" for all). Empty: none are saved.'
    ),
    QT_TR_NOOP("Largest attachment (bytes)"),
    QT_TR_NOOP("Larger ones are not saved."),
    QT_TR_NOOP("Attachments per mail"),
    QT_TR_NOOP("At most this many are saved or sent."),
    QT_TR_NOOP("App ID"),
    QT_TR_NOOP(
        "The App ID of your self-built app (Developer Console → Credentials & Basic Info), cli_…"
    ),
    QT_TR_NOOP("App secret"),
    QT_TR_NOOP("The app's App Secret (same page as the App ID)."),
    QT_TR_NOOP("Encrypt key"),
    QT_TR_NOOP("Only for webhook delivery; the long connection does not need it."),
    QT_TR_NOOP("Verification token"),
    QT_TR_NOOP("Platform"),
    QT_TR_NOOP('"feishu" (open.feishu.cn, China) or "lark" (open.larksuite.com).'),
    QT_TR_NOOP("Group chats"),
    QT_TR_NOOP('"mention": answer only when the bot is @mentioned; "open": every message.'),
    QT_TR_NOOP("Working reaction"),
    QT_TR_NOOP(
        "Emoji type put on a message while the agent works on it (THUMBSUP, OK, EYES, OnIt…); empty: none."
    ),
    QT_TR_NOOP("Done reaction"),
    QT_TR_NOOP("Emoji type put on the message once answered (DONE, OK…); empty: none."),
    QT_TR_NOOP("Tool hint prefix"),
    QT_TR_NOOP("Put before tool hints (when Settings → Channels sends tool hints)."),
    QT_TR_NOOP("Quote the message"),
    QT_TR_NOOP("Answer as a reply to the person's message instead of a new message."),
    QT_TR_NOOP("nanobot's streaming cards; the desktop app sends each answer whole."),
    QT_TR_NOOP("Topic isolation"),
    QT_TR_NOOP(
        "In groups, each message and the replies in its thread are a conversation of their own (answers to a topic stay in the topic); off: one conversation per group."
    ),
    QT_TR_NOOP(
        "Advanced: the Open API address to use instead of the platform's (a proxy or a private deployment); empty: from Platform."
    ),
    QT_TR_NOOP("Homeserver"),
    QT_TR_NOOP("The address of the bot account's homeserver (https://matrix.example.org)."),
    QT_TR_NOOP("User ID"),
    QT_TR_NOOP("The bot account's full Matrix ID, e.g. @nanobot:matrix.org."),
    QT_TR_NOOP("Password"),
    QT_TR_NOOP(
        "Log in with the account's password (a new session each start, logged out on stop). Leave empty when you give an access token."
    ),
    QT_TR_NOOP("Access token"),
    QT_TR_NOOP(
        "An access token of the bot account (Element: Settings → Help & About → Access token, or the login API). Preferred over a password."
    ),
    QT_TR_NOOP("Device ID"),
    QT_TR_NOOP("The session (device) the access token belongs to; optional."),
    QT_TR_NOOP("End-to-end encryption"),
    QT_TR_NOOP(
        "Read and answer in encrypted rooms. Needs an access token (its device keeps its keys in a local store, encrypted with a key derived from the token); with a password login, or turned off, encrypted rooms get a short notice instead."
    ),
    QT_TR_NOOP("Emoji verification"),
    QT_TR_NOOP(
        "Kept for nanobot compatibility; has no effect (the bot does not verify devices: it sends to unverified ones)."
    ),
    QT_TR_NOOP("Stop grace (s)"),
    QT_TR_NOOP("How long stopping the channel waits for a clean log-out."),
    QT_TR_NOOP("Received files larger than this are not downloaded (0: none are)."),
    QT_TR_NOOP("Parallel downloads"),
    QT_TR_NOOP("How many received files are downloaded at the same time."),
    QT_TR_NOOP("Group rooms"),
    QT_TR_NOOP(
        "Rooms with more than two members: open (answer every allowed sender), mention (only when the bot is mentioned or replied to) or allowlist (only the rooms in Group rooms allowed). Direct chats are always answered."
    ),
    QT_TR_NOOP("Group rooms allowed"),
    QT_TR_NOOP("Room IDs (!abc:server) answered under the allowlist group policy."),
    QT_TR_NOOP("Answer @room"),
    QT_TR_NOOP("Under the mention policy, an @room mention also counts as a mention."),
    QT_TR_NOOP("Kept for nanobot compatibility; answers are sent whole."),
    QT_TR_NOOP("An HTTP or SOCKS proxy for the homeserver connection (http://host:port)."),
    QT_TR_NOOP("Server address"),
    QT_TR_NOOP('Your Mattermost server, e.g. "https://chat.example.org".'),
    QT_TR_NOOP(
        "The bot account's access token (Integrations → Bot Accounts), or a personal access token. Kept in the keyring."
    ),
    QT_TR_NOOP("Team ID"),
    QT_TR_NOOP("Answer only in this team's channels (direct messages always). Empty: all."),
    QT_TR_NOOP("Match allowed senders by"),
    QT_TR_NOOP(
        "What the Allowed senders entries are: user ids (safest: they never change), usernames or e-mail addresses."
    ),
    QT_TR_NOOP("Channel policy"),
    QT_TR_NOOP(
        'In channels, answer only messages that @mention the bot ("mention"), every message ("open"), or messages in the channels listed below ("allowlist").'
    ),
    QT_TR_NOOP("Policy inside threads"),
    QT_TR_NOOP("The same choice for replies inside a thread (by default: as channels)."),
    QT_TR_NOOP('Channel IDs the bot answers in with the "allowlist" policy.'),
    QT_TR_NOOP("Reply in thread"),
    QT_TR_NOOP(
        "Answer a channel message in a thread under it (each thread is its own conversation). Messages written inside a thread are always answered there."
    ),
    QT_TR_NOOP("Thread context"),
    QT_TR_NOOP("nanobot's earlier-thread-messages context; not used by the desktop app."),
    QT_TR_NOOP("Thread context limit"),
    QT_TR_NOOP("nanobot's number of earlier thread messages; not used by the desktop app."),
    QT_TR_NOOP("nanobot's streamed answers; the desktop app sends each answer whole."),
    QT_TR_NOOP(
        'Reaction (a Mattermost emoji name, e.g. "eyes") on a message while the agent works on it (empty: none).'
    ),
    QT_TR_NOOP("Reaction put on the message once it is answered (empty: none)."),
    QT_TR_NOOP("Server"),
    QT_TR_NOOP("The Mochat server; answers are posted to <server>/api/claw/…."),
    QT_TR_NOOP("Claw token"),
    QT_TR_NOOP("The agent's token from Mochat's registration (claw_…). Kept in the keyring."),
    QT_TR_NOOP("Agent user ID"),
    QT_TR_NOOP(
        "The agent's own Mochat user id (botUserId): its own messages are not answered and mentions of it are recognised."
    ),
    QT_TR_NOOP("Sessions"),
    QT_TR_NOOP('Session ids to answer in (direct chats), one per line; "*": every session.'),
    QT_TR_NOOP("Panels"),
    QT_TR_NOOP('Panel ids to answer in (group channels), one per line; "*": every panel.'),
    QT_TR_NOOP("Socket.IO server"),
    QT_TR_NOOP("Where the real-time connection goes (empty: the server above)."),
    QT_TR_NOOP("Socket.IO path"),
    QT_TR_NOOP("The Socket.IO endpoint's path."),
    QT_TR_NOOP("No msgpack"),
    QT_TR_NOOP(
        "Send Socket.IO packets as JSON. Otherwise msgpack is used when the msgpack package is installed (JSON without it)."
    ),
    QT_TR_NOOP("Reconnect delay (ms)"),
    QT_TR_NOOP("nanobot's first reconnect delay; the desktop app reconnects with its own backoff."),
    QT_TR_NOOP("Longest reconnect delay (ms)"),
    QT_TR_NOOP("nanobot's; the desktop app reconnects with its own backoff."),
    QT_TR_NOOP("Connect timeout (ms)"),
    QT_TR_NOOP("How long connecting may take before it counts as failed."),
    QT_TR_NOOP("Refresh interval (ms)"),
    QT_TR_NOOP('How often the session and panel lists are fetched again (for "*").'),
    QT_TR_NOOP("Watch timeout (ms)"),
    QT_TR_NOOP("nanobot's HTTP long-poll fallback; not used by the desktop app."),
    QT_TR_NOOP("Watch limit"),
    QT_TR_NOOP("How many missed events a session subscription catches up at most."),
    QT_TR_NOOP("Retry delay (ms)"),
    QT_TR_NOOP("nanobot's HTTP fallback retry delay; not used by the desktop app."),
    QT_TR_NOOP("Reconnect attempts"),
    QT_TR_NOOP("nanobot's (0: unlimited); the desktop app always reconnects."),
    QT_TR_NOOP("Reply delay"),
    QT_TR_NOOP(
        'In panels, "non-mention" collects messages that do not mention the agent and hands them over together after the reply delay (a mention hands them over at once); "off" answers every message as it comes.'
    ),
    QT_TR_NOOP("Reply delay (ms)"),
    QT_TR_NOOP("How long panel messages without a mention are collected."),
    QT_TR_NOOP("The bot's Microsoft App ID (Azure Bot → Configuration)."),
    QT_TR_NOOP("App password"),
    QT_TR_NOOP("A client secret of that app (Certificates & secrets). Kept in the keyring."),
    QT_TR_NOOP("Tenant ID"),
    QT_TR_NOOP("For a single-tenant bot, its Microsoft Entra tenant ID; empty otherwise."),
    QT_TR_NOOP("Listen address"),
    QT_TR_NOOP("Where the messaging endpoint listens (0.0.0.0: every interface)."),
    QT_TR_NOOP("Port"),
    QT_TR_NOOP("Its port."),
    QT_TR_NOOP("Path"),
    QT_TR_NOOP("Its path; the bot's messaging endpoint is https://<public host><path>."),
    QT_TR_NOOP("Reply to the message"),
    QT_TR_NOOP("Send each answer as a reply to the message it answers."),
    QT_TR_NOOP("Text of an empty mention"),
    QT_TR_NOOP("What the agent reads when a message is only an @mention of the bot."),
    QT_TR_NOOP("Check Microsoft's signature"),
    QT_TR_NOOP("nanobot's switch to accept unsigned requests; the desktop app always checks them."),
    QT_TR_NOOP("Conversation memory (days)"),
    QT_TR_NOOP("nanobot's."),
    QT_TR_NOOP("Prune Web Chat"),
    QT_TR_NOOP("Prune group chats"),
    QT_TR_NOOP("Touch interval"),
    QT_TR_NOOP("Trusted service hosts"),
    QT_TR_NOOP('Hosts the bot may answer to (Microsoft\'s by default; "*." matches subdomains).'),
    QT_TR_NOOP("Sign-in keys address"),
    QT_TR_NOOP("Where Microsoft publishes the keys requests are signed with. Tests only."),
    QT_TR_NOOP("Token service address"),
    QT_TR_NOOP("Where the bot gets its tokens (the tenant is appended). Tests only."),
    QT_TR_NOOP("NapCat address"),
    QT_TR_NOOP("The WebSocket server NapCat runs (its OneBot v11 WebSocket server)."),
    QT_TR_NOOP("The token set on NapCat's WebSocket server (empty: none). Kept in the keyring."),
    QT_TR_NOOP("Group policy"),
    QT_TR_NOOP(
        'In groups, answer only mentions of the account and replies to it ("mention"), every message ("open"), or other messages too with a probability from 0 to 1.'
    ),
    QT_TR_NOOP("Group policy per group"),
    QT_TR_NOOP("A group id → its own policy."),
    QT_TR_NOOP("Welcome new members"),
    QT_TR_NOOP("Tell the agent when someone joins a group, so it can greet them."),
    QT_TR_NOOP("Largest image"),
    QT_TR_NOOP("Received images larger than this (bytes) are not downloaded."),
    QT_TR_NOOP("AppID"),
    QT_TR_NOOP("The bot's AppID (q.qq.com → your bot → Development → Settings)."),
    QT_TR_NOOP("AppSecret"),
    QT_TR_NOOP("The bot's AppSecret from the same page. Kept in the keyring."),
    QT_TR_NOOP("Message format"),
    QT_TR_NOOP(
        'Send answers as plain text or as QQ markdown ("markdown" needs the markdown permission on the QQ Open Platform).'
    ),
    QT_TR_NOOP("Acknowledgement"),
    QT_TR_NOOP("Sent as soon as a message arrives, before the answer (empty: none)."),
    QT_TR_NOOP("Media folder"),
    QT_TR_NOOP("Where received files are saved (empty: the workspace's media folder)."),
    QT_TR_NOOP("Download chunk size"),
    QT_TR_NOOP("Bytes read at a time when a received file is downloaded."),
    QT_TR_NOOP("Largest download"),
    QT_TR_NOOP("Received files larger than this many bytes are not downloaded."),
    QT_TR_NOOP("Phone number"),
    QT_TR_NOOP("The Signal account signal-cli is registered with, e.g. +4915112345678."),
    QT_TR_NOOP("Daemon host"),
    QT_TR_NOOP("Where `signal-cli -a <number> daemon --http <host>:<port>` listens."),
    QT_TR_NOOP("Daemon port"),
    QT_TR_NOOP("The daemon's HTTP port."),
    QT_TR_NOOP("Group context"),
    QT_TR_NOOP("How many recent group messages are passed along with a mention."),
    QT_TR_NOOP("Attachments folder"),
    QT_TR_NOOP(
        "Where signal-cli saves received attachments (empty: ~/.local/share/signal-cli/attachments)."
    ),
    QT_TR_NOOP(
        "The app's Bot User OAuth Token (xoxb-…, OAuth & Permissions). Kept in the keyring."
    ),
    QT_TR_NOOP("App token"),
    QT_TR_NOOP(
        "An app-level token with the connections:write scope (xapp-…, Basic Information → App-Level Tokens); Socket Mode connects with it. Kept in the keyring."
    ),
    QT_TR_NOOP("Mode"),
    QT_TR_NOOP(
        "How events arrive. The desktop app uses Socket Mode; nanobot's webhook mode (a public HTTPS server) is not available here."
    ),
    QT_TR_NOOP("Webhook path"),
    QT_TR_NOOP("nanobot's webhook mode only."),
    QT_TR_NOOP(
        'Reaction (a Slack emoji name, e.g. "eyes") on a message while the agent works on it (empty: none).'
    ),
    QT_TR_NOOP('Channel IDs (C…) the bot answers in with the "allowlist" policy.'),
    QT_TR_NOOP("Require a mention in allowed channels"),
    QT_TR_NOOP('With the "allowlist" policy, answer only messages that @mention the bot.'),
    QT_TR_NOOP('HTTP proxy for the Web API and Socket Mode, e.g. "http://127.0.0.1:8080".'),
    QT_TR_NOOP("Web API address"),
    QT_TR_NOOP("Where Slack's Web API is. Change it only for testing."),
    QT_TR_NOOP("The token @BotFather gave you for your bot (/newbot). Kept in the keyring."),
    QT_TR_NOOP(
        "How updates arrive. The desktop app long-polls; webhook mode is nanobot's (a public HTTPS server) and is not available here."
    ),
    QT_TR_NOOP('HTTP or SOCKS proxy for the Bot API, e.g. "http://127.0.0.1:8080".'),
    QT_TR_NOOP("Send answers as replies to the message they answer."),
    QT_TR_NOOP(
        'In groups, answer every message ("open") or only messages that mention the bot or reply to it ("mention").'
    ),
    QT_TR_NOOP("Connection pool size"),
    QT_TR_NOOP("Parallel connections for sending."),
    QT_TR_NOOP("Pool timeout"),
    QT_TR_NOOP("Seconds to wait for a free connection before a send fails."),
    QT_TR_NOOP("Inline keyboards"),
    QT_TR_NOOP(
        "nanobot's buttons in answers; not used by the desktop app (approval questions always come with buttons)."
    ),
    QT_TR_NOOP("Rich messages"),
    QT_TR_NOOP("nanobot's Bot API 10.1 rich messages; not used by the desktop app."),
    QT_TR_NOOP("Stream edit interval"),
    QT_TR_NOOP("nanobot's seconds between streamed edits; not used by the desktop app."),
    QT_TR_NOOP("Webhook URL"),
    QT_TR_NOOP("nanobot's webhook mode only (public HTTPS URL)."),
    QT_TR_NOOP("Webhook listen host"),
    QT_TR_NOOP("Webhook listen port"),
    QT_TR_NOOP("Webhook secret token"),
    QT_TR_NOOP("Webhook max connections"),
    QT_TR_NOOP("Bot API server"),
    QT_TR_NOOP(
        "Where the Bot API is (calls go to <server>/bot<token>/<method>). Change it only for a self-hosted Bot API server."
    ),
    QT_TR_NOOP("Allowed clients"),
    QT_TR_NOOP(
        'Client ids (?client_id=…) that may talk to the agent; "*" for every client that has a valid token. Client ids are chosen by the client: the token is the lock.'
    ),
    QT_TR_NOOP("Listen on"),
    QT_TR_NOOP(
        "The address to listen on: 127.0.0.1 for this computer only; 0.0.0.0 for every device on your network (needs a token or token issue secret)."
    ),
    QT_TR_NOOP("The port to listen on."),
    QT_TR_NOOP("WebSocket path"),
    QT_TR_NOOP("The WebSocket upgrade path."),
    QT_TR_NOOP("Token"),
    QT_TR_NOOP(
        "A fixed secret clients may send as ?token=… (and the WebUI's login secret when no token issue secret is set). Kept in the keyring."
    ),
    QT_TR_NOOP("Token issue path"),
    QT_TR_NOOP(
        "An HTTP path that hands out short-lived connection tokens (GET, with the token issue secret as a bearer token); empty: none."
    ),
    QT_TR_NOOP("Token issue secret"),
    QT_TR_NOOP(
        "What a client must show to get a short-lived token (the WebUI asks for it at login). Kept in the keyring."
    ),
    QT_TR_NOOP("Token lifetime (s)"),
    QT_TR_NOOP("How long an issued token may be used to connect."),
    QT_TR_NOOP("Require a token to connect"),
    QT_TR_NOOP("Refuse connections without a valid token (fixed or issued)."),
    QT_TR_NOOP("Stream answers"),
    QT_TR_NOOP("Send the answer as it is written."),
    QT_TR_NOOP("Largest frame (bytes)"),
    QT_TR_NOOP("Frames larger than this close the connection."),
    QT_TR_NOOP("Ping interval (s)"),
    QT_TR_NOOP("Keep-alive pings."),
    QT_TR_NOOP("Ping timeout (s)"),
    QT_TR_NOOP("A client that does not answer a ping in this time is dropped."),
    QT_TR_NOOP("TLS certificate"),
    QT_TR_NOOP("A PEM certificate file: serve wss:// and https:// (with the key below)."),
    QT_TR_NOOP("TLS key"),
    QT_TR_NOOP("The PEM private key of the certificate."),
    QT_TR_NOOP("WebUI folder"),
    QT_TR_NOOP(
        "nanobot's built WebUI (the folder holding index.html, nanobot/web/dist in the nanobot-ai package), or a Python environment where nanobot-ai is installed. Empty: found when nanobot-ai is importable here; otherwise no WebUI is served."
    ),
    QT_TR_NOOP("Bot ID"),
    QT_TR_NOOP("The AI bot's Bot ID (WeCom admin console → AI bot → API mode: long connection)."),
    QT_TR_NOOP("Secret"),
    QT_TR_NOOP("The AI bot's Secret, shown beside the Bot ID. Kept in the keyring."),
    QT_TR_NOOP("Welcome message"),
    QT_TR_NOOP("Sent when someone allowed opens a chat with the bot (empty: no greeting)."),
    QT_TR_NOOP("Where the long connection goes (WeCom's own endpoint unless told otherwise)."),
    QT_TR_NOOP(
        "Empty: the QR login's token (saved with the account). A token typed here is kept in the keyring and used instead."
    ),
    QT_TR_NOOP("The iLink bot API's address."),
    QT_TR_NOOP("CDN server"),
    QT_TR_NOOP("Where the pictures and files people send are downloaded from."),
    QT_TR_NOOP("Route tag"),
    QT_TR_NOOP("Account folder"),
    QT_TR_NOOP("Where the login is kept (empty: the weixin folder beside config.json)."),
    QT_TR_NOOP("Long-poll timeout (s)"),
    QT_TR_NOOP("How long one wait for new messages may last."),
    QT_TR_NOOP(
        'In groups, answer every message ("open") or only messages that mention the linked account or reply to it ("mention").'
    ),
    QT_TR_NOOP("Session database"),
    QT_TR_NOOP(
        "The linked-device session (neonize's SQLite file). Empty: whatsapp-auth/neonize.db beside the config file, where nanobot keeps it, so one linking serves both."
    ),
    QT_TR_NOOP("An HTTP or SOCKS proxy for the WhatsApp connection (host:port or a URL)."),
    QT_TR_NOOP("LID mappings"),
    QT_TR_NOOP("WhatsApp's hidden ids (LID) → phone numbers, for Allowed senders."),
    QT_TR_NOOP("Bridge address (legacy)"),
    QT_TR_NOOP(
        "Only for the old nanobot WhatsApp bridge: its WebSocket address (e.g. ws://localhost:3001). Empty: WhatsApp is linked directly (recommended)."
    ),
    QT_TR_NOOP("Bridge token (legacy)"),
    QT_TR_NOOP(
        "Only with a bridge address: the BRIDGE_TOKEN the bridge was started with. Empty: the token nanobot saved in whatsapp-auth/bridge-token. Kept in the keyring."
    ),
    QT_TR_NOOP("Region"),
    QT_TR_NOOP("The AWS region, e.g. us-east-1 (else AWS_REGION or the profile's)."),
    QT_TR_NOOP("e.g. us-east-1"),
    QT_TR_NOOP("Profile"),
    QT_TR_NOOP("A profile of ~/.aws/config whose credentials sign the requests."),
    QT_TR_NOOP("a profile of ~/.aws/config"),
    QT_TR_NOOP("Run Dream periodically"),
    QT_TR_NOOP("Run every"),
    QT_TR_NOOP("Hours between two Dream runs."),
    QT_TR_NOOP("h"),
    QT_TR_NOOP("History entries per run"),
    QT_TR_NOOP("How many history entries one Dream run distils."),
    QT_TR_NOOP("entries"),
    QT_TR_NOOP("Edit iterations per run"),
    QT_TR_NOOP("Model calls Dream may make to edit the memory files in one run."),
    QT_TR_NOOP("Token budget per run"),
    QT_TR_NOOP("Tokens (prompt and answer) one run may spend editing; it stops cleanly there."),
    QT_TR_NOOP("tokens"),
    QT_TR_NOOP("Workspace"),
    QT_TR_NOOP("Where sessions, memory, skills and reminders live."),
    QT_TR_NOOP("Max tokens per answer"),
    QT_TR_NOOP("The longest answer the model may write in one call."),
    QT_TR_NOOP("Context window"),
    QT_TR_NOOP(
        "How much of the conversation the model sees; older turns are archived into memory when it fills."
    ),
    QT_TR_NOOP("Temperature"),
    QT_TR_NOOP("Higher is more varied, lower more predictable."),
    QT_TR_NOOP("Max tool iterations"),
    QT_TR_NOOP("Tool calls one turn may make before it stops."),
    QT_TR_NOOP("Timezone"),
    QT_TR_NOOP("An IANA name such as Europe/Berlin; empty means the system's."),
    QT_TR_NOOP("One conversation for every chat network"),
    QT_TR_NOOP("Messages from Telegram, Slack, e-mail … all continue one session."),
    QT_TR_NOOP("Compact idle chats after"),
    QT_TR_NOOP("A chat idle this long is summarised, so its next turn costs less (0: never)."),
    QT_TR_NOOP("min"),
    QT_TR_NOOP("Longest message read"),
    QT_TR_NOOP(
        "A message longer than this (in UTF-8) is answered with a note to send it as a file, and never reaches the model or the chat's history."
    ),
    QT_TR_NOOP("KB"),
    QT_TR_NOOP("Check HEARTBEAT.md periodically"),
    QT_TR_NOOP("Check every"),
    QT_TR_NOOP("Seconds between two looks at HEARTBEAT.md."),
    QT_TR_NOOP("s"),
    QT_TR_NOOP("Provider"),
    QT_TR_NOOP("Results per search"),
    QT_TR_NOOP("Exec timeout"),
    QT_TR_NOOP("Seconds a command may run before it is stopped."),
    QT_TR_NOOP("Let sandboxed commands use the network"),
    QT_TR_NOOP("Allow patterns"),
    QT_TR_NOOP("Regular expressions (one per line); a command must match one when set."),
    QT_TR_NOOP("Deny patterns"),
    QT_TR_NOOP("Regular expressions (one per line); a matching command is refused."),
    QT_TR_NOOP("Let the agent check its own settings"),
    QT_TR_NOOP("Let the agent change its own settings"),
    QT_TR_NOOP("Each change still asks for approval (unless the approval mode is autonomous)."),
    QT_TR_NOOP("Restrict file and command tools to the workspace"),
)
