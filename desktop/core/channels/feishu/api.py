"""The Open API calls the channel makes, through lark-oapi's ``Client``.

The SDK's calls block (``requests``; its async variants still fetch the tenant access token
synchronously), so each runs in a worker thread. A call the platform refuses raises
:class:`FeishuError` with its code; one that cannot reach it raises ``ConnectionError``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import lark_oapi as lark
import requests
from lark_oapi.api.im.v1 import (
    CreateFileRequest,
    CreateFileRequestBody,
    CreateImageRequest,
    CreateImageRequestBody,
    CreateMessageReactionRequest,
    CreateMessageReactionRequestBody,
    CreateMessageRequest,
    CreateMessageRequestBody,
    DeleteMessageReactionRequest,
    Emoji,
    GetMessageResourceRequest,
    PatchMessageRequest,
    PatchMessageRequestBody,
    ReplyMessageRequest,
    ReplyMessageRequestBody,
)
from lark_oapi.core.exception import ObtainAccessTokenException

log = logging.getLogger(__name__)

FILE_TYPES = {
    ".opus": "opus",
    ".mp4": "mp4",
    ".pdf": "pdf",
    ".doc": "doc",
    ".docx": "doc",
    ".xls": "xls",
    ".xlsx": "xls",
    ".ppt": "ppt",
    ".pptx": "ppt",
}
CREDENTIAL_CODES = {10003, 10014, 99991663, 99991664, 99991661}  # app id/secret/token refused


class FeishuError(Exception):
    """The platform refused a call.

    Attributes:
        code: The platform's error code.
    """

    def __init__(self, what: str, code: int | None, message: str | None) -> None:
        super().__init__(f"{what} failed: {message or 'error'} (code {code})")
        self.code = code

    @property
    def credentials(self) -> bool:
        """Whether the app's credentials were refused."""
        return self.code in CREDENTIAL_CODES


def receive_id_type(chat_id: str) -> str:
    """How the platform reads a chat id: ``oc_…`` is a chat, anything else a person's open id
    (nanobot's direct chats are keyed by the person)."""
    return "chat_id" if chat_id.startswith("oc_") else "open_id"


def _checked(what: str, response: Any) -> Any:
    if not response.success():
        raise FeishuError(what, response.code, response.msg)
    return response


class OpenApi:
    """The calls of one app.

    Args:
        app_id: The app's ID.
        app_secret: The app's secret.
        domain: The Open API address (``https://open.feishu.cn``).
        timeout: Seconds per call.
    """

    def __init__(self, app_id: str, app_secret: str, domain: str, timeout: float = 30.0) -> None:
        self.client = (
            lark.Client.builder()
            .app_id(app_id)
            .app_secret(app_secret)
            .domain(domain)
            .timeout(timeout)
            .log_level(lark.LogLevel.WARNING)
            .build()
        )

    @staticmethod
    async def _run(function: Any, *args: Any) -> Any:
        try:
            return await asyncio.to_thread(function, *args)
        except requests.RequestException as exc:
            raise ConnectionError(f"Feishu could not be reached ({type(exc).__name__})") from exc
        except ObtainAccessTokenException as exc:
            raise FeishuError("getting an access token", exc.code, exc.msg) from None

    # -- identity -------------------------------------------------------------------------
    def _bot_info(self) -> dict[str, Any]:
        request = (
            lark.BaseRequest.builder()
            .http_method(lark.HttpMethod.GET)
            .uri("/open-apis/bot/v3/info")
            .token_types({lark.AccessTokenType.TENANT})
            .build()
        )
        response = self.client.request(request)
        _checked("reading the bot's profile", response)
        data = json.loads(response.raw.content or b"{}")
        bot = data.get("bot") if isinstance(data, dict) else None
        return bot if isinstance(bot, dict) else {}

    async def bot_info(self) -> dict[str, Any]:
        """The bot's profile (``app_name``, ``open_id``…)."""
        result: dict[str, Any] = await self._run(self._bot_info)
        return result

    # -- messages -------------------------------------------------------------------------
    def _create(self, chat_id: str, kind: str, body: str, uuid: str) -> str:
        request = (
            CreateMessageRequest.builder()
            .receive_id_type(receive_id_type(chat_id))
            .request_body(
                CreateMessageRequestBody.builder()
                .receive_id(chat_id)
                .msg_type(kind)
                .content(body)
                .uuid(uuid)
                .build()
            )
            .build()
        )
        response = _checked("sending a message", self.client.im.v1.message.create(request))
        return str(response.data.message_id or "")

    def _reply(self, message_id: str, kind: str, body: str, uuid: str, in_thread: bool) -> str:
        request = (
            ReplyMessageRequest.builder()
            .message_id(message_id)
            .request_body(
                ReplyMessageRequestBody.builder()
                .msg_type(kind)
                .content(body)
                .reply_in_thread(in_thread)
                .uuid(uuid)
                .build()
            )
            .build()
        )
        response = _checked("replying", self.client.im.v1.message.reply(request))
        return str(response.data.message_id or "")

    async def send(
        self,
        chat_id: str,
        kind: str,
        body: str,
        *,
        uuid: str,
        reply_to: str | None = None,
        in_thread: bool = False,
    ) -> str:
        """Send a message (as a reply to ``reply_to`` when given); returns its id.

        ``uuid`` makes the call idempotent: the platform sends a message only once per uuid
        within an hour, so a retried call never delivers twice.
        """
        if reply_to:
            result: str = await self._run(self._reply, reply_to, kind, body, uuid, in_thread)
        else:
            result = await self._run(self._create, chat_id, kind, body, uuid)
        return result

    def _patch(self, message_id: str, body: str) -> None:
        request = (
            PatchMessageRequest.builder()
            .message_id(message_id)
            .request_body(PatchMessageRequestBody.builder().content(body).build())
            .build()
        )
        _checked("updating a card", self.client.im.v1.message.patch(request))

    async def patch_card(self, message_id: str, body: str) -> None:
        """Replace the card of a message the bot sent."""
        await self._run(self._patch, message_id, body)

    # -- files ----------------------------------------------------------------------------
    def _upload_image(self, path: Path) -> str:
        with path.open("rb") as data:
            request = (
                CreateImageRequest.builder()
                .request_body(
                    CreateImageRequestBody.builder().image_type("message").image(data).build()
                )
                .build()
            )
            response = _checked("uploading an image", self.client.im.v1.image.create(request))
        return str(response.data.image_key)

    async def upload_image(self, path: Path) -> str:
        """Upload an image for a message; returns its ``image_key``."""
        result: str = await self._run(self._upload_image, path)
        return result

    def _upload_file(self, path: Path) -> str:
        kind = FILE_TYPES.get(path.suffix.lower(), "stream")
        with path.open("rb") as data:
            request = (
                CreateFileRequest.builder()
                .request_body(
                    CreateFileRequestBody.builder()
                    .file_type(kind)
                    .file_name(path.name)
                    .file(data)
                    .build()
                )
                .build()
            )
            response = _checked("uploading a file", self.client.im.v1.file.create(request))
        return str(response.data.file_key)

    async def upload_file(self, path: Path) -> str:
        """Upload a file for a message; returns its ``file_key``."""
        result: str = await self._run(self._upload_file, path)
        return result

    def _download(self, message_id: str, key: str, kind: str) -> bytes:
        request = (
            GetMessageResourceRequest.builder()
            .message_id(message_id)
            .file_key(key)
            .type(kind)
            .build()
        )
        response = _checked(
            "downloading an attachment", self.client.im.v1.message_resource.get(request)
        )
        return bytes(response.file.read())

    async def download(self, message_id: str, key: str, kind: str) -> bytes:
        """An image (``kind="image"``) or file (``"file"``) of a received message."""
        result: bytes = await self._run(self._download, message_id, key, kind)
        return result

    # -- reactions ------------------------------------------------------------------------
    def _react(self, message_id: str, emoji: str) -> str:
        request = (
            CreateMessageReactionRequest.builder()
            .message_id(message_id)
            .request_body(
                CreateMessageReactionRequestBody.builder()
                .reaction_type(Emoji.builder().emoji_type(emoji).build())
                .build()
            )
            .build()
        )
        response = _checked("reacting", self.client.im.v1.message_reaction.create(request))
        return str(response.data.reaction_id or "")

    async def react(self, message_id: str, emoji: str) -> str:
        """Put ``emoji`` on a message; returns the reaction's id."""
        result: str = await self._run(self._react, message_id, emoji)
        return result

    def _unreact(self, message_id: str, reaction_id: str) -> None:
        request = (
            DeleteMessageReactionRequest.builder()
            .message_id(message_id)
            .reaction_id(reaction_id)
            .build()
        )
        _checked("removing a reaction", self.client.im.v1.message_reaction.delete(request))

    async def unreact(self, message_id: str, reaction_id: str) -> None:
        """Remove the bot's reaction ``reaction_id``."""
        await self._run(self._unreact, message_id, reaction_id)
