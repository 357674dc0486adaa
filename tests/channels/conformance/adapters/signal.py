"""Signal: the channel against the local signal-cli daemon (HTTP JSON-RPC + Server-Sent
Events)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.signal.markup import LIMIT, pieces
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.signal.daemon import ACCOUNT, ALICE, ALICE_UUID, STRANGER, SignalDaemon

USERS = {
    "alice": (ALICE, ALICE_UUID),
    "mallory": (STRANGER, "5e5e5e5e-0000-4000-8000-000000005e5e"),
}


class Signal:
    """The Signal channel under test (a person's direct chat with the account)."""

    name = "signal"
    # Signal shows plain text with style ranges (``textStyle``): the link is its address.
    caps = Capabilities(limit=LIMIT, flavour="plain", approvals="words")
    person, stranger = "alice", "mallory"
    person_entry = ALICE
    account = ACCOUNT

    def __init__(self, request: pytest.FixtureRequest) -> None:
        tmp_path: Path = request.getfixturevalue("tmp_path")
        self.daemon = SignalDaemon(tmp_path / "signal-cli" / "attachments")

    async def start_server(self) -> None:
        await self.daemon.start()

    async def stop_server(self) -> None:
        await self.daemon.stop()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "phoneNumber": ACCOUNT,
            "daemonHost": "127.0.0.1",
            "daemonPort": self.daemon.port,
            "attachmentsDir": str(self.daemon.attachments),
            # direct messages on the allowlist: the top-level allowFrom the rig writes
            "dm": {"enabled": True, "policy": "allowlist", "allowFrom": []},
        }

    def chat(self) -> str:
        return ALICE

    def sender_id(self, who: str) -> str:
        number, uuid = USERS[who]
        return f"{number}|{uuid}"

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        number, uuid = USERS[sender or self.person]
        await until(lambda: self.daemon.listening, what="the event stream open")
        self.daemon.say(text, sender=number, uuid=uuid, attachments=dict(files) or None)

    def sent(self) -> list[Sent]:
        out = []
        for params in self.daemon.sent():
            if params.get("recipient") != [ALICE]:
                continue
            text = str(params.get("message") or "")
            files = [(Path(p).name, self.daemon.files[p]) for p in params.get("attachments", [])]
            out.append(Sent(text, text, files, [], params))
        return out

    def markup(self, markdown: str) -> str:
        ((text, _styles),) = pieces(markdown)
        return text

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = self.daemon.subscriptions
        self.daemon.drop()  # signal-cli restarts: the event stream ends
        await until(
            lambda: self.daemon.subscriptions > before and self.daemon.listening,
            what="the event stream open again",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.daemon.listening, what="the event stream open")
