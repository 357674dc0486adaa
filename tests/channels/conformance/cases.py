"""The conformance cases: what every chat channel does, the platform's way.

Each case takes ``rig`` (the channel under test with its local server, see
``conftest.py``) and is collected once per channel by the ``test_*.py`` modules, whose
``pytest_generate_tests`` gives ``channel``; the collected ids read as the table
(``test_split[telegram]``). A case a platform cannot do skips with the reason its adapter's
:class:`~tests.channels.harness.Capabilities` gives.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from tests.channels.harness import Rig, until, user_text
from tests.fakes.openai_server import Reply
from tests.typed import running_channel

PNG = bytes.fromhex(  # a 1×1 picture
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f0a7d20000000049454e44ae426082"
)


def said(body: dict[str, Any]) -> str:
    """The last line the person wrote (a mail's text comes after its headers)."""
    lines = [line for line in user_text(body).splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def echo(body: dict[str, Any]) -> Reply:
    """The scripted model answers ``echo: <what the person said>``."""
    return Reply(f"echo: {said(body)}")


def _applies(value: object) -> None:
    """Skip the case with the adapter's reason when the capability is one."""
    if isinstance(value, str) and value not in ("buttons", "words", "file", "image"):
        pytest.skip(value)


async def test_connect(rig: Rig) -> None:
    """The channel connects, says as whom, and its connection test names that account."""
    runtime = await rig.start()
    status = runtime.channels.status(rig.cut.name)
    assert status.ok, status
    channel = runtime.channels.channel(rig.cut.name)
    assert channel is not None
    found = await running_channel(runtime, rig.cut.name).check()
    if rig.cut.account:
        assert rig.cut.account in status.account, status
        assert rig.cut.account in found, found
    else:  # a protocol that never says who is connected (the adapter says why)
        assert found.startswith("Connected"), found


async def test_receive(rig: Rig) -> None:
    """A person's message reaches the bus with the chat's session key and its sender."""
    rig.model.route = echo
    await rig.start()
    cut = rig.cut
    await cut.person_says("hello there")
    await until(lambda: rig.received("hello there"), what="the message on the bus")
    (message,) = rig.received("hello there")
    key = message.session_key_override or f"{message.channel}:{message.chat_id}"
    assert key == f"{cut.name}:{cut.chat()}"
    assert message.sender_id == cut.sender_id(cut.person)
    await until(lambda: rig.answers("echo: hello there"), what="the answer")


async def test_allow_from(rig: Rig) -> None:
    """Someone not in ``allowFrom`` is refused (nothing on the bus); ``*`` lets everyone in."""
    rig.model.route = echo
    cut = rig.cut
    await rig.start(allow_from=[cut.person_entry])
    await cut.person_says("from the stranger", sender=cut.stranger)
    await cut.person_says("from the person")
    await until(lambda: rig.answers("echo: from the person"), what="the person's answer")
    assert not rig.received("from the stranger")
    assert "from the stranger" not in [said(r.body) for r in rig.model.chat_requests()]
    await rig.stop()
    await rig.start(allow_from=["*"])
    await cut.person_says("stranger again", sender=cut.stranger)
    await until(lambda: rig.received("stranger again"), what="the stranger let in")
    assert rig.received("stranger again")[0].sender_id == cut.sender_id(cut.stranger)


MARKDOWN = "Some **bold**, some `code` and [a link](https://example.com/doc)."
FLAVOURS = {  # how each markup shows bold / code / a link (the platforms' documented syntax)
    "matrix": (
        "<strong>bold</strong>",
        "<code>code</code>",
        '<a href="https://example.com/doc">a link</a>',
    ),
    "html": ("<b>bold</b>", "<code>code</code>", '<a href="https://example.com/doc">a link</a>'),
    "mrkdwn": ("*bold*", "`code`", "<https://example.com/doc|a link>"),
    "markdown": ("**bold**", "`code`", "[a link](https://example.com/doc)"),
    "card": ("**bold**", "`code`", "[a link](https://example.com/doc)"),
    "whatsapp": ("*bold*", "`code`", "a link (https://example.com/doc)"),
    "plain": ("bold", "code", "https://example.com/doc"),
}


async def test_reply_format(rig: Rig) -> None:
    """Bold, code and a link arrive as the platform renders them: the channel's own markup."""
    rig.model.route = lambda body: Reply(MARKDOWN)
    cut = rig.cut
    await rig.start()
    await cut.person_says("format please")
    await until(lambda: cut.sent(), what="the answer")
    (answer,) = cut.sent()
    assert answer.text == cut.markup(MARKDOWN)
    for shape in FLAVOURS[cut.caps.flavour]:
        assert shape in answer.text, (shape, answer.text)
    if cut.caps.flavour == "plain":
        assert "**" not in answer.text


async def test_split(rig: Rig) -> None:
    """An answer longer than the platform's limit arrives in order, in pieces under the
    limit, nothing lost."""
    limit = rig.cut.caps.limit
    if limit is None:
        pytest.skip("the platform has no message limit to split for")
    words = [f"w{i:06d}" for i in range(limit * 5 // 14)]  # about 2.5 limits
    lines = [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    long = "\n".join(lines)
    rig.model.route = lambda body: Reply(long, chunk=2000)
    cut = rig.cut
    await rig.start()
    await cut.person_says("write a lot")

    def arrived() -> list[str]:
        return re.findall(r"w\d{6}", " ".join(s.shown or s.text for s in cut.sent()))

    await until(lambda: len(arrived()) >= len(words), 90, "every piece")
    assert arrived() == words
    pieces = cut.sent()
    assert len(pieces) >= 2
    sizes = [cut.caps.measure(p.shown or p.text) for p in pieces]
    assert all(size <= limit for size in sizes), sizes


async def test_media_out(rig: Rig) -> None:
    """A file the agent sends arrives as a file."""
    _applies(rig.cut.caps.media_out)
    cut = rig.cut
    runtime = await rig.start()
    if cut.caps.speaks_first:  # the bot needs the conversation the person opened
        rig.model.route = echo
        await cut.person_says("hello")
        await until(lambda: rig.answers("echo: hello"), what="the answer to the first message")
    image = cut.caps.media_out == "image"
    report = rig.workspace / "out" / ("chart.png" if image else "report.txt")
    data = PNG if image else b"the quarterly numbers\n"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_bytes(data)
    await runtime.bus.publish_outbound(
        OutboundMessage(cut.name, cut.chat(), "Here is the report.", media=[str(report)])
    )

    # A second answer to the same chat: the manager delivers a channel's answers one after the
    # other, each whole (its text and its files, in whatever order the platform takes them),
    # so once this one is there, the report's file is there too, or never comes (a channel
    # that sends no files fails at once instead of at the end of a long wait).
    await runtime.bus.publish_outbound(OutboundMessage(cut.name, cut.chat(), "That is all."))

    def files() -> list[tuple[str, bytes]]:
        return [f for s in cut.sent() for f in s.files]

    await until(lambda: any("That is all" in s.shown or "That is all" in s.text
                            for s in cut.sent()), what="the answer after the report")  # fmt: skip
    assert any("report" in s.shown or "report" in s.text for s in cut.sent()), "the text"
    assert any(content == data for _, content in files()), "the file did not arrive"
    assert all(name in ("", report.name) for name, content in files() if content == data)


async def test_media_in(rig: Rig) -> None:
    """A person's attachment is saved under the workspace's media folder and named in the
    message the agent gets."""
    _applies(rig.cut.caps.media_in)
    rig.model.route = echo
    cut = rig.cut
    await rig.start()
    await cut.person_says("see attached", files=[("notes.txt", b"meeting at noon\n")])
    where = getattr(cut, "media_root", None)  # a bridge that downloads files itself
    media = str(where(rig.workspace) if where else rig.workspace / "media")

    def saved() -> list[tuple[str, str]]:  # (path, the message's text) of files saved
        return [
            (path, message.content)
            for message in rig.inbound
            for path in [*message.media, *re.findall(r"(/[^\s\]]+)", message.content)]
            if path.startswith(media) and Path(path).is_file()
        ]

    await until(saved, what="the attachment saved and named in a message")
    assert any(Path(p).read_bytes() == b"meeting at noon\n" for p, _ in saved())
    assert any(p in text for p, text in saved()), "the agent is told where the file is"


def _approval_route(body: dict[str, Any]) -> Reply:
    last = body["messages"][-1]
    if last["role"] == "tool":
        content = json.dumps(last["content"])
        return Reply("Done: denied." if "Denied by the user" in content else "Done: it ran.")
    text = said(body)
    if text.startswith("run "):
        command = json.dumps({"command": f"echo {text.split()[1]}-output"})
        return Reply(tool_calls=[("exec", command)])
    return echo(body)


async def test_approvals(rig: Rig) -> None:
    """A tool that needs approval asks in the chat; the answer allows it, or denies it."""
    cut = rig.cut
    _applies(cut.caps.approvals)
    rig.model.route = _approval_route
    await rig.start(approval=ApprovalPolicy())

    def questions() -> list[Any]:
        return [s for s in cut.sent() if "exec" in (s.shown or s.text)]

    await cut.person_says("run first")
    await until(lambda: questions(), what="the question")
    if cut.caps.approvals == "buttons":
        assert questions()[0].buttons, "the question has buttons"
    await cut.answer_approval(questions()[0], allow=True)
    await until(lambda: rig.answers("Done: it ran."), what="the allowed run")
    outputs = [json.dumps(r.body["messages"][-1]) for r in rig.model.chat_requests()]
    assert any("first-output" in o and '"tool"' in o for o in outputs)

    await cut.person_says("run second")
    await until(lambda: len(questions()) == 2, what="the second question")
    await cut.answer_approval(questions()[1], allow=False)
    await until(lambda: rig.answers("Done: denied."), what="the denied run")


async def test_reconnect(rig: Rig) -> None:
    """The server drops the connection: the channel connects again and the next message
    arrives."""
    _applies(rig.cut.caps.reconnect)
    rig.model.route = echo
    cut = rig.cut
    await rig.start()
    await cut.person_says("before")
    await until(lambda: rig.answers("echo: before"), what="the first answer")
    await cut.drop_connection()
    await rig.connected()
    await cut.person_says("after the drop")
    await until(lambda: rig.answers("echo: after the drop"), 60, "the answer after the drop")


async def test_restart_without_duplicates(rig: Rig) -> None:
    """A message received but not yet answered when the app stops is answered exactly once
    after the restart."""
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Any:
        if said(body) == "busy":
            gate.wait(30)
        return echo(body)

    rig.model.route = route
    cut = rig.cut
    await rig.start()
    try:
        await cut.person_says("busy")
        await until(lambda: rig.model.chat_requests(), what="the first turn at the model")
        await cut.person_says("queued")
        await until(lambda: rig.received("queued"), what="the queued message taken")
        await rig.stop()  # the app ends before the queued message's turn
    finally:
        gate.set()
    await rig.start()
    await until(lambda: rig.answers("echo: queued"), 60, "the queued message answered")
    await cut.person_says("afterwards")  # answered after anything the restart would repeat
    await until(lambda: rig.answers("echo: afterwards"), 60, "the next message answered")
    assert len(rig.answers("echo: queued")) == 1, [s.shown for s in cut.sent()]
    asked = [said(r.body) for r in rig.model.chat_requests()]
    assert asked.count("queued") == 1, asked
