"""Nothing lost across a crash: a mail is marked seen only once its user message is in the
session file (the message's ack), against the real Dovecot and SMTP servers."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from desktop.core.runtime import Runtime
from tests.channels.email.conftest import (
    Polls,
    echo_marks,
    last_user_text,
    mail,
    session_lines,
    start_agent,
    until,
    until_async,
)
from tests.channels.email.servers import Dovecot, SmtpServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

ALICE = "alice@example.org"
KEY = f"email:{ALICE}"


def _held_route(gate: threading.Event) -> Any:
    """Answers ``[q:NAME]`` mails; the one marked ``[q:busy]`` waits for ``gate`` first."""

    def route(body: dict[str, Any]) -> Reply | None:
        if "[q:busy]" in last_user_text(body):
            gate.wait(30)
        return echo_marks(body)

    return route


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


def _user_contents(runtime: Runtime, mark: str) -> list[str]:
    path = runtime.sessions.path_for(KEY)
    if not path.exists():
        return []
    return [
        m["content"]
        for m in session_lines(runtime, KEY)
        if m["role"] == "user" and mark in str(m["content"])
    ]


async def _busy_then_queued(
    runtime: Runtime, model: ScriptedOpenAIServer, dovecot: Dovecot, polls: Polls
) -> None:
    """Alice's first mail keeps her session busy; her second waits behind it, unseen."""
    await asyncio.to_thread(dovecot.append, mail(ALICE, "1", "[q:busy]", "<busy@example.org>"))
    await until(lambda: model.chat_requests(), what="the first turn at the model")
    await until_async(lambda: "\\Seen" in dovecot.flags()["<busy@example.org>"], what="seen 1")
    await asyncio.to_thread(dovecot.append, mail(ALICE, "2", "[q:queued]", "<q@example.org>"))
    await until(lambda: _dispatches(runtime) == 2, what="the second mail queued")
    await polls.more()  # three more polls and flaggings: the channel had every chance
    assert _user_contents(runtime, "[q:queued]") == []
    flags = await asyncio.to_thread(dovecot.flags)
    assert "\\Seen" not in flags["<q@example.org>"], "seen before it was in the session"


async def test_a_queued_mail_is_seen_only_once_its_message_is_in_the_session(
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    dovecot: Dovecot,
    smtp: SmtpServer,
    polls: Polls,
) -> None:
    gate = threading.Event()
    scripted_server.route = _held_route(gate)
    runtime = await start_agent(tmp_path, scripted_server, dovecot, smtp)
    try:
        await until(lambda: runtime.channels.status("email").ok, what="connected")
        await _busy_then_queued(runtime, scripted_server, dovecot, polls)
        gate.set()
        await until_async(lambda: "\\Seen" in dovecot.flags()["<q@example.org>"], what="seen 2")
        assert len(_user_contents(runtime, "[q:queued]")) == 1
        await until(lambda: len(smtp.messages(ALICE)) == 2, what="both answers")
    finally:
        gate.set()
        await runtime.stop()


async def test_a_mail_queued_when_the_app_ends_is_answered_once_after_a_restart(
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    dovecot: Dovecot,
    smtp: SmtpServer,
    polls: Polls,
) -> None:
    gate = threading.Event()
    scripted_server.route = _held_route(gate)
    first = await start_agent(tmp_path, scripted_server, dovecot, smtp)
    try:
        await until(lambda: first.channels.status("email").ok, what="connected")
        await _busy_then_queued(first, scripted_server, dovecot, polls)
    finally:
        await first.stop()  # the app ends (or dies) before the queued mail's turn
        gate.set()
    assert "\\Seen" not in (await asyncio.to_thread(dovecot.flags))["<q@example.org>"]
    second = await start_agent(tmp_path, scripted_server, dovecot, smtp)
    try:
        await until(lambda: smtp.messages(ALICE), what="the queued mail's answer")
        await until_async(lambda: "\\Seen" in dovecot.flags()["<q@example.org>"], what="seen")
        await polls.more()  # a few more polls: nothing is read twice
    finally:
        await second.stop()
    texts = [last_user_text(r.body) for r in scripted_server.chat_requests()]
    assert sum("[q:queued]" in t for t in texts) == 1, "the queued mail reached the model once"
    assert sum("[q:busy]" in t for t in texts) == 1, "the stopped turn's mail is not read again"
    assert [m.get_content().strip() for m in smtp.messages(ALICE)] == ["Answer to queued"]
    assert len(_user_contents(second, "[q:queued]")) == 1
    assert len(_user_contents(second, "[q:busy]")) == 1
