"""The approval keyboard's callback data: within Telegram's 64 bytes, whatever the call id."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram import CallbackQuery

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.channels.telegram.buttons import ButtonApprover


class _Channel:
    """Just enough of a channel for the approver (records what it would send)."""

    name = "telegram"

    def __init__(self) -> None:
        self.questions: list[Any] = []
        self.edits: list[str] = []
        self.tasks: list[asyncio.Task[None]] = []

    async def send(self, message: Any) -> None:
        raise AssertionError("questions go through send_question")

    async def send_question(self, chat_id: str, html: str, keyboard: Any) -> int:
        self.questions.append(keyboard)
        return 7

    async def edit_question(self, chat_id: str, message_id: int, html: str) -> None:
        self.edits.append(html)

    def spawn(self, coro: Any, name: str) -> None:
        self.tasks.append(asyncio.ensure_future(coro))


class _Bot:
    def __init__(self) -> None:
        self.answers: list[str | None] = []

    async def answer_callback_query(self, query_id: str, text: str | None = None) -> bool:
        self.answers.append(text)
        return True


async def test_a_long_call_id_still_fits_and_is_answered() -> None:
    channel = _Channel()
    approver = ButtonApprover(channel)
    call_id = "call_" + "x" * 80  # longer than a button may carry
    request = ApprovalRequest("telegram:42", call_id, "exec", {"command": "ls"}, "runs a shell "
                              "command", "telegram", "42")  # fmt: skip
    waiting = asyncio.ensure_future(approver.request_approval(request))
    while not channel.questions:
        await asyncio.sleep(0)
    rows = channel.questions[0].inline_keyboard
    data = [button.callback_data for row in rows for button in row]
    assert all(len(d.encode()) <= 64 for d in data) and len(set(data)) == 4
    query = CallbackQuery.de_json(
        {
            "id": "q1",
            "from": {"id": 42, "is_bot": False, "first_name": "Ada"},
            "chat_instance": "c",
            "data": data[3],  # Deny
            "message": {
                "message_id": 7,
                "date": 0,
                "chat": {"id": 42, "type": "private"},
                "text": "question",
            },
        },
        None,
    )
    bot = _Bot()
    await approver.on_button(bot, query, "Ada")  # type: ignore[arg-type]
    assert await asyncio.wait_for(waiting, 30) is Decision.DENY
    await asyncio.gather(*channel.tasks)
    assert bot.answers == ["Denied"] and channel.edits[0].endswith("<i>Denied by Ada</i>")
