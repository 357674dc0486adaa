"""Email: the channel against a real Dovecot (IMAPS) and a local SMTP server with STARTTLS
(the fixtures of ``tests/channels/email/conftest.py``)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from email.message import EmailMessage
from typing import Any

import pytest

from desktop.core.channels.render import plain_text
from desktop.core.runtime import Runtime
from tests.channels.email.conftest import email_section, fast_polls, mail
from tests.channels.email.servers import BOT, Dovecot, SmtpServer
from tests.channels.harness import Capabilities, Sent, until

USERS = {"alice": "alice@example.org", "mallory": "mallory@example.org"}


def _body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    return str(part.get_content()).strip() if part is not None else ""


class Email:
    """The email channel under test (Alice's mail to the bot's mailbox)."""

    name = "email"
    caps = Capabilities(
        limit=None,  # one mail carries the whole answer
        flavour="plain",
        approvals="words",
    )
    person, stranger = "alice", "mallory"
    person_entry = USERS["alice"]
    account = BOT

    def __init__(self, request: pytest.FixtureRequest) -> None:
        fast_polls(request.getfixturevalue("monkeypatch"))
        self.dovecot: Dovecot = request.getfixturevalue("dovecot")
        self.smtp: SmtpServer = request.getfixturevalue("smtp")
        self.runtime: Runtime | None = None
        self._ids = itertools.count(1)

    async def start_server(self) -> None:
        return None  # the fixtures started them

    async def stop_server(self) -> None:
        return None

    def section(self) -> dict[str, Any]:
        section = email_section(self.dovecot, self.smtp, allowedAttachmentTypes=["text/plain"])
        section.pop("allowFrom")
        return section

    def chat(self) -> str:
        return USERS[self.person]

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def _append(self, raw: bytes) -> None:
        await asyncio.to_thread(self.dovecot.append, raw)

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        attached = [(name, "text/plain", data) for name, data in files]
        raw = mail(USERS[who], text[:40], text, f"<m{next(self._ids)}@example.org>", files=attached)
        await self._append(raw)

    def sent(self) -> list[Sent]:
        out = []
        for message in self.smtp.messages(USERS[self.person]):
            files = [
                (str(part.get_filename() or ""), bytes(part.get_content().encode())
                 if isinstance(part.get_content(), str) else part.get_content())
                for part in message.iter_attachments()
            ]  # fmt: skip
            body = _body(message)
            out.append(Sent(body, body, files, [], message))
        return out

    def markup(self, markdown: str) -> str:
        return plain_text(markdown)  # a text/plain mail: rendered as plain text

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        quoted = "\n> ".join(question.text.splitlines())
        reply = f"{'Allow' if allow else 'Deny'}\n\nOn Mon, bot@example.org wrote:\n> {quoted}"
        message = question.raw
        raw = mail(
            USERS[self.person],
            f"Re: {message['Subject']}",
            reply,
            f"<m{next(self._ids)}@example.org>",
            in_reply_to=message["Message-ID"],
        )
        await self._append(raw)

    async def drop_connection(self) -> None:
        runtime = self.runtime
        assert runtime is not None
        await asyncio.to_thread(self.dovecot.stop, kill=True)
        await until(lambda: not runtime.channels.status("email").ok, what="the drop noticed")
        await asyncio.to_thread(self.dovecot.start)

    async def on_runtime(self, runtime: Runtime) -> None:
        self.runtime = runtime
