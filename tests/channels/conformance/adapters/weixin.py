"""WeChat (Weixin): the channel's iLink long poll against the local iLink server, logged in as
nanobot 0.3.5 leaves ``account.json`` (a person's direct chat: the chat id is their user id)."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.weixin.channel import MAX_CHARS, split_markdown
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.weixin.server import BOT, TOKEN, IlinkServer

USERS = {"alice": "alice@im.wechat", "mallory": "mallory@im.wechat"}
MEDIA_FIELDS = {2: "image_item", 4: "file_item", 5: "video_item"}


class Weixin:
    """The WeChat channel under test."""

    name = "weixin"
    caps = Capabilities(limit=MAX_CHARS, flavour="markdown", approvals="words")
    person, stranger = "alice", "mallory"
    person_entry = USERS["alice"]
    account = BOT

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = IlinkServer()
        self.config_dir: Path = request.getfixturevalue("tmp_path") / "nanobot"

    async def start_server(self) -> None:
        await self.server.start()
        folder = self.config_dir / "weixin"  # logged in: account.json as 0.3.5 writes it
        folder.mkdir(parents=True, exist_ok=True)
        account = {"token": TOKEN, "get_updates_buf": "", "context_tokens": {},
                   "base_url": self.server.url, "ilink_bot_id": BOT}  # fmt: skip
        (folder / "account.json").write_text(json.dumps(account))

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "baseUrl": self.server.url,
            "cdnBaseUrl": f"{self.server.url}/c2c",
        }

    def chat(self) -> str:
        return USERS[self.person]

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        items: list[dict[str, Any]] = [{"type": 1, "text_item": {"text": text}}]
        for name, data in files:
            key = os.urandom(16)
            media = {
                "encrypt_query_param": self.server.put_file(data, key),
                "aes_key": base64.b64encode(key.hex().encode()).decode(),
            }
            items.append({"type": 4, "file_item": {"file_name": name, "media": media}})
        self.server.push(USERS[sender or self.person], items)

    def sent(self) -> list[Sent]:
        out = []
        for message in self.server.sent:
            if message["to_user_id"] != USERS[self.person]:
                continue
            for item in message.get("item_list", []):
                if item.get("type") == 1:
                    text = item["text_item"]["text"]
                    out.append(Sent(text, text, [], [], message))
                elif item.get("type") in MEDIA_FIELDS:
                    inner = item[MEDIA_FIELDS[item["type"]]]
                    data = self.server.received_file(inner)
                    out.append(Sent("", "", [(inner.get("file_name", ""), data)], [], message))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = split_markdown(markdown)
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        """The API answers the long poll with HTTP 502 twice (a gateway dropping it)."""
        before = len(self.server.calls_to("getupdates"))
        self.server.failing = 2
        await until(
            lambda: (
                self.server.failing == 0 and len(self.server.calls_to("getupdates")) > before + 2
            ),
            60,
            "polling again after the failures",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.server.calls_to("getupdates"), what="polling")
