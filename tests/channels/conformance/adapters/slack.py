"""Slack: slack-sdk (Web API + Socket Mode) against the local Slack."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.slack.mrkdwn import LIMIT, pieces, to_mrkdwn
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.slack.slack_server import APP_TOKEN, BOT_TOKEN, SlackServer

DM = "D0000DM1"
USERS = {"alice": "UALICE01", "mallory": "UMALLORY"}


class Slack:
    """The Slack channel under test (a direct message with the bot)."""

    name = "slack"
    # Slack takes 40,000 characters but shows at most 4,000 before it truncates (its advice):
    # the channel splits there.
    caps = Capabilities(limit=LIMIT, flavour="mrkdwn", approvals="buttons")
    person, stranger = "alice", "mallory"
    person_entry = USERS["alice"]
    account = "@nanobot"

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = SlackServer()
        self._files = 0

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "botToken": BOT_TOKEN,
            "appToken": APP_TOKEN,
            "baseUrl": self.server.api_url,
        }

    def chat(self) -> str:
        return DM

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        shared = []
        for name, data in files:
            self._files += 1
            file_id = f"F0IN{self._files:04d}"
            shared.append(self.server.put_file(file_id, data, name=name, mimetype="text/plain"))
        extra: dict[str, Any] = {"subtype": "file_share", "files": shared} if shared else {}
        self.server.put_message(DM, text, user=USERS[sender or self.person], **extra)

    def sent(self) -> list[Sent]:
        out = []
        for call in self.server.calls:
            params = call.params
            if call.method == "chat.postMessage" and params.get("channel") == DM:
                blocks = params.get("blocks") or []
                buttons = [
                    e["text"]["text"]
                    for b in blocks
                    if b.get("type") == "actions"
                    for e in b["elements"]
                ]
                text = str(params.get("text") or "")
                shown = " ".join([text, *(str(b.get("text", {}).get("text", "")) for b in blocks)])
                out.append(Sent(text, shown, [], buttons, params))
            elif call.method == "files.completeUploadExternal" and params.get("channel_id") == DM:
                files = [
                    (str(f.get("title")), self.server.uploads[f["id"]])
                    for f in params.get("files") or []
                ]
                out.append(Sent("", "", files, [], params))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = pieces(to_mrkdwn(markdown))
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        label = "Allow once" if allow else "Deny"
        (actions,) = [b for b in question.raw["blocks"] if b.get("type") == "actions"]
        button = next(e for e in actions["elements"] if e["text"]["text"] == label)
        self.server.put_click(DM, USERS[self.person], "1", button)

    async def drop_connection(self) -> None:
        before = self.server.connections
        await self.server.drop()
        await until(lambda: self.server.connections > before, what="a new Socket Mode link")

    async def on_runtime(self, runtime: Runtime) -> None:
        return None
