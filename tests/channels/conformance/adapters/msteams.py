"""Microsoft Teams: the Bot Framework SDK serving the bot's endpoint, against the local
Microsoft login, Bot Framework metadata and Connector services."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.base import split_message
from desktop.core.channels.msteams.channel import DOWNLOAD_INFO, MAX_CHARS
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent
from tests.channels.msteams.conftest import Microsoft, free_port, section
from tests.channels.msteams.server import (
    ALICE_AAD,
    APP_ID,
    CONVERSATION,
    MALLORY_AAD,
    BotFrameworkServer,
    LoginServer,
    self_signed,
)

USERS = {"alice": ALICE_AAD, "mallory": MALLORY_AAD}
STRANGER_CHAT = "a:1personal-chat-with-mallory"  # the stranger's own personal chat


class MSTeams:
    """The Teams channel under test (a personal chat with the bot)."""

    name = "msteams"
    caps = Capabilities(
        limit=MAX_CHARS,
        flavour="markdown",  # sent with textFormat markdown: Teams renders it
        approvals="buttons",  # an Adaptive Card with Action.Submit buttons
        # Teams posts every activity to the bot's endpoint over HTTP; the bot keeps no
        # connection open that a server could drop.
        reconnect="Teams posts each message to the bot's endpoint: no connection to drop",
        speaks_first=True,
        xfail={
            "test_media_out": "a Teams bot sends a file only through a file-consent card and "
            "an upload the person accepts, which the channel does not do yet: it names the "
            "file in the text instead",
        },
    )
    person, stranger = "alice", "mallory"
    person_entry = ALICE_AAD
    account = APP_ID

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.tmp_path: Path = request.getfixturevalue("tmp_path")
        self.monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        self.services: Microsoft | None = None
        self._files = 0

    async def start_server(self) -> None:
        cert, key = await asyncio.to_thread(self_signed, self.tmp_path)
        self.monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))  # MSAL trusts the login
        login = await LoginServer(cert, key).start()
        bot_framework = await BotFrameworkServer().start()
        self.services = Microsoft(login, bot_framework, free_port())

    async def stop_server(self) -> None:
        if self.services is not None:
            await self.services.bot_framework.stop()
            await self.services.login.stop()

    @property
    def _ms(self) -> Microsoft:
        assert self.services is not None
        return self.services

    def section(self) -> dict[str, Any]:
        return section(self._ms)

    def chat(self) -> str:
        return CONVERSATION

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        bf = self._ms.bot_framework
        chat = CONVERSATION if who == self.person else STRANGER_CHAT
        activity = bf.activity(text, sender=USERS[who], conversation=chat)
        attachments = []
        for name, data in files:  # shared in a personal chat: a pre-signed download address
            self._files += 1
            stored = f"{self._files}-{name}"
            bf.files[stored] = data
            content = {"downloadUrl": f"{bf.url}/download/{stored}", "fileType": "txt"}
            attachments.append({"contentType": DOWNLOAD_INFO, "name": name, "content": content})
        if attachments:
            activity["attachments"] = attachments
        status = await bf.say(self._ms.endpoint, activity)
        assert status in (200, 201), status

    def sent(self) -> list[Sent]:
        out = []
        for call in self._ms.bot_framework.sent:
            if call.method != "POST" or call.conversation != CONVERSATION:
                continue
            text = str(call.activity.get("text") or "")
            buttons = [
                str(action.get("title"))
                for attachment in call.activity.get("attachments") or []
                for action in (attachment.get("content") or {}).get("actions") or []
            ]
            out.append(Sent(text, text, [], buttons, call))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = split_message(markdown, MAX_CHARS)
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        label = "Allow once" if allow else "Deny"
        (attachment,) = question.raw.activity["attachments"]
        action = next(a for a in attachment["content"]["actions"] if a["title"] == label)
        bf = self._ms.bot_framework
        status = await bf.say(self._ms.endpoint, bf.activity("", value=action["data"]))
        assert status in (200, 201), status

    async def drop_connection(self) -> None:
        raise NotImplementedError("Teams keeps no connection (see caps.reconnect)")

    async def on_runtime(self, runtime: Runtime) -> None:
        return None
