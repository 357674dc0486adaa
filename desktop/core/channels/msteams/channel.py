"""The Microsoft Teams channel: a Bot Framework bot with the official SDK (botbuilder-core's
``CloudAdapter`` from botbuilder-integration-aiohttp).

Receiving. Teams posts each activity to the bot's messaging endpoint, served here on
``host:port`` + ``path`` (nanobot 0.3.5's settings; the endpoint must be reachable from the
internet, e.g. through a tunnel). The SDK checks the request's Bot Connector token (signed by a
key from Microsoft's OpenID metadata, issued for ``appId``, for the activity's ``serviceUrl``);
a request it refuses gets HTTP 401 and reaches nobody. As in nanobot, only personal (one to
one) chats are read (a stranger's message there gets a pairing code:
:mod:`~desktop.core.channels.pairing.gate`), and only from a ``serviceUrl`` on ``trustedServiceUrlHosts``; the sender is
the person's Entra object id (``aadObjectId``, else the channel account id), the chat is the
conversation id, so the session key is 0.3.5's ``msteams:<conversation id>``. ``<at>`` mention
markup is removed; a message that was only a mention becomes ``mentionOnlyResponse``. The
message is kept in the channel's journal before Teams gets its HTTP 200, and handed over
again after a restart until the agent has it safe; activities are known by id and handled
once. The conversation reference (service URL, ids) is kept in the channel state for answers.

Sending. An answer is sent through the SDK (``continue_conversation``), which gets the bot's
token from Microsoft's login service (``loginUrl``/``tenantId``, app id and password) and
posts to ``serviceUrl/v3/conversations/<id>/activities``. Teams shows Markdown
(``textFormat: markdown``); long answers go in pieces of at most :data:`MAX_CHARS` characters
(Teams refuses messages of about 28 KB), as replies to the message they answer when
``replyInThread`` is on. Attachments are not sent (Teams bots need a file-consent card for
that); their names are listed instead. Files a person shares and images they paste are saved
under ``<media>/msteams/``. Approval questions are Adaptive Cards with four
``Action.Submit`` buttons (:mod:`.cards`).
"""

from __future__ import annotations

import asyncio
import html
import logging
import platform
import re
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlparse

import aiohttp
from aiohttp import web
from botbuilder.core import TurnContext
from botbuilder.integration.aiohttp import CloudAdapter
from botbuilder.schema import Activity, ActivityTypes, ConversationReference
from botframework.connector.auth import (
    AuthenticationConfiguration,
    AuthenticationConstants,
    BotFrameworkAuthenticationFactory,
)

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.base import (
    BaseChannel,
    ChannelStatus,
    ChannelUnavailable,
    split_message,
)
from desktop.core.channels.msteams import files
from desktop.core.channels.msteams.auth import (
    BOT_SCOPE,
    CHANNEL_ISSUER,
    TokenCredentialFactory,
    prefetch_signing_keys,
)
from desktop.core.channels.msteams.cards import CardApprover, card_answer
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.config.channels.msteams import MSTeamsConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

MAX_CHARS = 8000  # characters per message: under Teams' ~28 KB even at 3 bytes a character
REFS_KEY = "conversations"
_MENTION = re.compile(r"<at\b[^>]*>.*?</at>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
DOWNLOAD_INFO = "application/vnd.microsoft.teams.file.download.info"


def trusted(service_url: str, hosts: list[str]) -> bool:
    """Whether ``service_url``'s host is one of ``hosts`` (``*.example.org``: a subdomain)."""
    host = (urlparse(service_url).hostname or "").lower()
    for entry in (h.strip().lower() for h in hosts if h.strip()):
        if entry.startswith("*."):
            if host.endswith(entry[1:]):
                return True
        elif host == entry:
            return True
    return False


def readable(text: str) -> str:
    """A Teams message's text without mention markup and HTML."""
    text = _MENTION.sub(" ", text or "")
    text = html.unescape(_TAGS.sub("", text)).replace("\xa0", " ")
    text = re.sub(r"[^\S\r\n]+", " ", text)
    return re.sub(r"(?:\r?\n){3,}", "\n\n", text).strip()


class _Bot:
    """What the adapter calls for each authenticated activity."""

    def __init__(self, channel: MSTeamsChannel) -> None:
        self._channel = channel
        self.reached: ContextVar[bool] = ContextVar("teams_turn_reached", default=False)
        """Whether the request being served got past the SDK's authentication."""

    async def on_turn(self, context: TurnContext) -> None:
        self.reached.set(True)
        await self._channel.on_activity(context.activity)


class MSTeamsChannel(BaseChannel[MSTeamsConfig]):
    """A Microsoft Teams bot (see the module docstring)."""

    name: ClassVar[str] = "msteams"
    display_name: ClassVar[str] = "Microsoft Teams"

    secret_fields: ClassVar[tuple[str, ...]] = ("app_password",)

    def setup(self) -> None:
        """The adapter and the endpoint's server, while it runs."""
        self._adapter: CloudAdapter | None = None
        self._runner: web.AppRunner | None = None
        self._credentials: TokenCredentialFactory | None = None

    def make_approver(self) -> CardApprover:
        """Approval questions as Adaptive Cards with buttons."""
        return CardApprover(self)

    # -- connection -----------------------------------------------------------------------
    def _make_adapter(self) -> tuple[CloudAdapter, TokenCredentialFactory]:
        app_id = (self.config.app_id or "").strip()
        password = (self.config.app_password or "").strip()
        if not app_id or not password:
            missing = (
                QT_TR_NOOP("No app ID and app password is set.")
                if not app_id and not password
                else QT_TR_NOOP("No app ID is set.")
                if not app_id
                else QT_TR_NOOP("No app password is set.")
            )
            raise ChannelUnavailable(
                missing,
                QT_TR_NOOP(
                    "Register an Azure Bot (docs/channels/msteams.md) and enter its app ID and a "
                    "client secret in Settings → Channels → Microsoft Teams."
                ),
            )
        tenant = (self.config.tenant_id or "").strip() or None
        credentials = TokenCredentialFactory(app_id, password, tenant, self.config.login_url)
        auth = BotFrameworkAuthenticationFactory.create(
            channel_service="",
            validate_authority=True,
            to_channel_from_bot_login_url=credentials.authority,
            to_channel_from_bot_oauth_scope=BOT_SCOPE,
            to_bot_from_channel_token_issuer=CHANNEL_ISSUER,
            oauth_url=AuthenticationConstants.OAUTH_URL,
            to_bot_from_channel_open_id_metadata_url=self.config.open_id_metadata_url,
            to_bot_from_emulator_open_id_metadata_url=self._emulator_metadata_url(),
            caller_id="",
            credential_factory=credentials,
            auth_configuration=AuthenticationConfiguration(),
        )
        return CloudAdapter(auth), credentials

    def _emulator_metadata_url(self) -> str:
        return str(AuthenticationConstants.TO_BOT_FROM_EMULATOR_OPENID_METADATA_URL)

    async def run(self) -> None:
        """Serve the messaging endpoint until stopped."""
        adapter, credentials = self._make_adapter()
        # The SDK's HTTP client puts platform.platform() in its User-Agent, which reads /proc
        # and may run uname the first time; its answer is cached, so ask once off the loop.
        await asyncio.to_thread(platform.platform)
        if not self.config.validate_inbound_auth:
            log.warning("Teams: validateInboundAuth is off; requests are checked all the same")
        bot = _Bot(self)

        async def messages(request: web.Request) -> web.StreamResponse:
            await prefetch_signing_keys(
                request.headers.get("Authorization", ""),
                self.config.open_id_metadata_url,
                self._emulator_metadata_url(),
            )
            reached = bot.reached.set(False)
            try:
                response = await adapter.process(request, bot)
            except Exception as exc:
                if bot.reached.get():
                    raise  # our handling failed: HTTP 500, Teams may send it again
                # The SDK refuses a bad token with whatever its check raised (a JWT error, an
                # AttributeError for a token of another app); only PermissionError becomes 401.
                log.warning("Teams: refused a request that did not authenticate (%r)", exc)
                return web.Response(status=401)
            finally:
                bot.reached.reset(reached)
            return response if response is not None else web.Response(status=201)

        app = web.Application()
        path = "/" + (self.config.path or "/api/messages").lstrip("/")
        app.router.add_post(path, messages)
        runner = self._runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.config.host, self.config.port)
            try:
                await site.start()
            except OSError as exc:
                raise ChannelUnavailable(
                    Phrase(
                        QT_TR_NOOP("Cannot listen on {host}:{port} ({error})."),
                        host=self.config.host,
                        port=self.config.port,
                        error=exc.strerror,
                    ),
                    QT_TR_NOOP("Choose another port in Settings → Channels → Microsoft Teams."),
                ) from None
            self._adapter, self._credentials = adapter, credentials
            self.set_status(
                ChannelStatus("connected", account=f"{self.config.app_id} on :{self.config.port}")
            )
            # A replayed message is known as handled from now on (the journal keeps it until
            # safe), so the network delivering it again later is not answered twice.
            replayed = [m.id for m in self.journal.pending()]
            await asyncio.to_thread(self.state.update, seen=replayed)
            await self.replay_journal()
            await self.wait_stopped()
        finally:
            self._adapter = None
            if self._runner is runner:
                self._runner = None
                await runner.cleanup()

    async def stop(self) -> None:
        """Stop serving and cancel the channel's background work."""
        await super().stop()
        runner, self._runner = self._runner, None
        if runner is not None:  # here, where no cancellation cuts the close short
            await runner.cleanup()

    async def check(self) -> str:
        """Settings → "Test": get a token for the app from Microsoft's login service."""
        try:
            _, credentials = self._make_adapter()
        except ChannelUnavailable as exc:
            raise ValueError(exc.reason) from None
        try:
            await credentials.token()
        except PermissionError as exc:
            raise ValueError(
                Phrase(
                    QT_TR_NOOP("Microsoft did not accept the app ID and password: {error}"),
                    error=redact(exc),
                )
            ) from None
        return Phrase(QT_TR_NOOP("Signed in as app {app}"), app=self.config.app_id)

    # -- receiving ------------------------------------------------------------------------
    def _addressed(self, activity: Activity) -> tuple[str, str] | None:
        """The sender and chat of a message the agent may read (``None``: ignore it)."""
        account, conversation = activity.from_property, activity.conversation
        if account is None or conversation is None or not activity.service_url:
            return None
        sender = str(getattr(account, "aad_object_id", "") or account.id or "")
        chat_id = str(conversation.id or "")
        if not sender or not chat_id:
            return None
        if not trusted(activity.service_url, list(self.config.trusted_service_url_hosts)):
            log.warning("Teams: ignoring an activity from the untrusted %s", activity.service_url)
            return None
        if activity.recipient is not None and account.id == activity.recipient.id:
            return None
        kind = str(conversation.conversation_type or "")
        if kind not in ("", "personal"):
            log.debug("Teams: ignoring a %s conversation (personal chats only)", kind)
            return None
        return sender, chat_id

    async def on_activity(self, activity: Activity) -> None:
        """An authenticated activity from Teams (see the module docstring)."""
        if activity.type != ActivityTypes.message:
            return
        found = self._addressed(activity)
        if found is None:
            return
        sender, chat_id = found
        if not self.is_allowed(sender):
            # Only personal chats are read: a stranger there is given a pairing code, answered
            # in that chat (whose reference is kept for it).
            await self._remember(chat_id, TurnContext.get_conversation_reference(activity))
            if not await admit(self, sender, chat_id, direct=True):
                log.info("Teams: message from %s ignored (not in allowFrom)", sender)
                return
        if isinstance(activity.value, dict) and card_answer(activity.value) is not None:
            assert isinstance(self.approvals, CardApprover)
            await self.approvals.on_submit(activity.value, sender, chat_id)
            return
        key = f"{chat_id}:{activity.id}"
        if self.state.seen(key) or key in self.journal:
            return
        await self._remember(chat_id, TurnContext.get_conversation_reference(activity))
        lines, images = await self._files(activity)
        text = readable(str(activity.text or ""))
        if not text and not lines:
            text = self.config.mention_only_response.strip()
        content = "\n".join(p for p in (text, *lines) if p)
        if not content:
            return
        await self.publish(
            sender,
            chat_id,
            content,
            media=images,
            metadata={
                "message_id": activity.id,
                "user_id": sender,
                "from_name": getattr(activity.from_property, "name", None),
                "is_group": False,  # personal chats only
            },
            message_id=key,
            journal=True,  # saved before Teams hears back; handed over again after a restart
            seen=[key],
        )
        if key not in self.journal:  # consumed (an approval answer) or already safe
            await asyncio.to_thread(self.state.update, seen=[key])

    async def _files(self, activity: Activity) -> tuple[list[str], list[str]]:
        """Download a message's files into ``<media>/msteams/``: a line each, and the images.

        A file shared in a personal chat comes as ``file.download.info`` with a pre-signed
        ``downloadUrl``; a pasted image as an ``image/*`` attachment whose ``contentUrl`` on
        the Connector service needs the bot's token (sent to a trusted host only).
        """
        lines: list[str] = []
        images: list[str] = []
        for index, attachment in enumerate(activity.attachments or []):
            kind = str(attachment.content_type or "")
            content = attachment.content if isinstance(attachment.content, dict) else {}
            name = str(attachment.name or f"attachment-{index}")
            if kind == DOWNLOAD_INFO:
                url, token = str(content.get("downloadUrl") or ""), None
            elif kind.startswith("image/") and attachment.content_url:
                url = str(attachment.content_url)
                hosts = list(self.config.trusted_service_url_hosts)
                token = await self._token() if trusted(url, hosts) else None
            else:
                continue  # Teams' HTML copy of the message, cards …
            label = "image" if kind.startswith("image/") else "file"
            safe = _SAFE.sub("_", Path(name).name)[-80:].strip("._") or "file"
            path = self.media_dir / "msteams" / f"{_SAFE.sub('_', str(activity.id))[:40]}_{safe}"
            try:
                await files.download(url, token, path)
            except (aiohttp.ClientError, ValueError, OSError, TimeoutError) as exc:
                log.warning("Teams: downloading %s failed: %s", name, redact(exc))
                lines.append(f"[{label}: {name} — download failed]")
                continue
            lines.append(f"[{label}: {path}]")
            if label == "image":
                images.append(str(path))
        return lines, images

    async def _token(self) -> str | None:
        credentials = self._credentials
        return await credentials.token() if credentials is not None else None

    async def _remember(self, chat_id: str, reference: ConversationReference) -> None:
        refs = dict(self.state.get(REFS_KEY) or {})
        refs[chat_id] = reference.serialize()
        await asyncio.to_thread(self._store_refs, refs)

    def _store_refs(self, refs: dict[str, Any]) -> None:
        self.state.update(conversations=refs)  # REFS_KEY

    def reference(self, chat_id: str) -> ConversationReference:
        """The stored conversation reference of ``chat_id`` (where answers go)."""
        raw = (self.state.get(REFS_KEY) or {}).get(chat_id)
        if not isinstance(raw, dict):
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP(
                        "Teams conversation {chat} is unknown here (nobody wrote from it yet)."
                    ),
                    chat=chat_id,
                )
            )
        reference = ConversationReference().deserialize(raw)
        if not trusted(reference.service_url or "", list(self.config.trusted_service_url_hosts)):
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("Teams conversation {chat} has an untrusted service URL."),
                    chat=chat_id,
                )
            )
        return reference

    # -- sending --------------------------------------------------------------------------
    async def in_conversation(self, chat_id: str, act: Any) -> Any:
        """Run ``act(turn_context)`` in ``chat_id``'s conversation (the SDK's proactive turn);
        returns what it returned."""
        adapter = self._adapter
        if adapter is None:
            raise ConnectionError(Phrase(QT_TR_NOOP("Teams is not running")))
        reference = self.reference(chat_id)
        reply_to = reference.activity_id if self.config.reply_in_thread else None
        result: list[Any] = []

        async def callback(context: TurnContext) -> None:
            # What is sent replies to the turn's activity: here a made-up continuation event;
            # make it the person's message (or nothing: then it is posted into the chat).
            context.activity.id = reply_to
            result.append(await act(context))

        await adapter.continue_conversation(reference, callback, bot_app_id=self.config.app_id)
        return result[0] if result else None

    async def pieces(self, message: OutboundMessage) -> list[str]:
        """The Markdown in pieces under :data:`MAX_CHARS`; attachments named, not sent."""
        text = message.content
        if message.media:
            names = ", ".join(Path(m).name for m in message.media)
            text = f"{text}\n\n(Files not sent to Teams: {names})".strip()
        return split_message(text, MAX_CHARS) if text.strip() else []

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One message into the conversation (as a reply when ``replyInThread``)."""
        chat_id = delivery.message.chat_id
        activity = Activity(type=ActivityTypes.message, text=str(piece), text_format="markdown")

        async def send(context: TurnContext) -> None:
            await context.send_activity(activity)

        await self.in_conversation(chat_id, send)
