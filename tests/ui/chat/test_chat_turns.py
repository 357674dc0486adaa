"""Turns in the chat tab against the real agent on the scripted server (LiteLLM path)."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import ApprovalPolicy
from desktop.ui.chat.error_banner import ErrorBanner
from tests.fakes.openai_server import Fail, Reply
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat


def test_composer_waits_for_the_agent(make_chat: MakeChat) -> None:
    """Before agentReady the composer is disabled and says "connecting…"."""
    chat: ChatHarness = make_chat(ready=False)
    composer = chat.tab.pane.composer
    assert not composer.edit.isEnabled() and not composer.send.isEnabled()
    assert composer.edit.placeholderText() == "connecting…"
    chat.make_ready()
    assert composer.edit.isEnabled()
    assert "Enter sends" in composer.edit.placeholderText()


def test_streamed_answer_appears_while_it_streams(make_chat: MakeChat) -> None:
    """Deltas show up in one growing row before the turn ends; the final row has usage."""
    chat: ChatHarness = make_chat()
    text = "Hello! " + " ".join(f"word{i}" for i in range(60))
    chat.server.push(Reply(text, chunk=6, delay=0.02, usage=(123, 45)))
    chat.send("hi there")
    assert chat.tab.pane.composer.busy
    chat.wait(
        lambda: any(
            i.kind == "assistant" and i.streaming and "word1" in i.text for i in chat.items()
        )
    )
    partial = next(i for i in chat.items() if i.kind == "assistant")
    assert len(partial.text) < len(text)  # seen mid-stream
    chat.idle()
    answers = [i for i in chat.items() if i.kind == "assistant"]
    assert [a.text for a in answers] == [text]
    assert not answers[0].streaming and answers[0].footer == "123 in · 45 out"
    assert chat.kinds() == ["user", "assistant"]
    assert not chat.tab.pane.composer.busy
    assert "123 in" in chat.tab.pane.usage.turn.text()
    assert chat.tab.sessions.entry(chat.tab.current).title == "hi there"


def test_tool_card_runs_then_completes(make_chat: MakeChat) -> None:
    """A running card (spinner) appears, then shows ok, duration and the result."""
    chat: ChatHarness = make_chat(policy=ApprovalPolicy(mode="autonomous"))
    chat.server.push(
        Reply(tool_calls=[("exec", '{"command": "sleep 0.8; echo card-done"}')]),
        Reply("The command ran."),
    )
    chat.send("run it")
    chat.wait(lambda: any(i.kind == "tool" and i.running for i in chat.items()))
    card = next(i for i in chat.items() if i.kind == "tool")
    assert card.tool == "exec" and card.arguments["command"].startswith("sleep")
    view = chat.tab.pane.view
    row = chat.items().index(card)
    assert row in view.visible_rows()
    assert view.layout_of(row).spinner is not None
    chat.idle()
    assert card.ok is True and "card-done" in card.result and card.duration_s >= 0.7
    assert view.layout_of(row).spinner is None
    assert chat.kinds()[-1] == "assistant"
    view.toggle(row)
    assert card.expanded and view.layout_of(row).height > 60


def test_stop_cancels_the_turn(make_chat: MakeChat, qtbot: QtBot) -> None:
    """Stop while streaming: the streamed text stays as the answer, marked "Stopped"; the
    session keeps it (a restart shows the same) and is consistent."""
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("slow " * 200, chunk=5, stall_after=8, stall_for=60))
    chat.send("talk slowly")
    chat.wait(lambda: any(i.kind == "assistant" and i.text for i in chat.items()))
    composer = chat.tab.pane.composer
    assert composer.send.text() == "Stop"
    composer.send.click()
    chat.idle()
    last = chat.items()[-1]
    assert last.kind == "assistant" and last.text.startswith("slow") and last.footer == "Stopped"
    assert not last.streaming
    assert composer.send.text() == "Send"
    session = chat.agent.sessions.get_or_create(chat.tab.current)
    assert not session.has_pending_turn
    assert session.messages[0]["content"] == "talk slowly"
    assert session.messages[-1]["content"] == last.text and session.messages[-1]["stopped"]


def test_escape_stops_too(make_chat: MakeChat, qtbot: QtBot) -> None:
    """Esc in the composer stops the running turn."""
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("slow " * 200, chunk=5, stall_after=8, stall_for=60))
    chat.send("talk slowly")
    chat.wait(lambda: any(i.kind == "assistant" and i.text for i in chat.items()))
    from PySide6.QtCore import Qt

    qtbot.keyClick(chat.tab.pane.composer.edit, Qt.Key.Key_Escape)
    chat.idle()
    assert chat.items()[-1].footer == "Stopped"


def test_error_banner_retry_and_settings_link(make_chat: MakeChat, qtbot: QtBot) -> None:
    """A rejected key shows the banner; its button asks for the provider settings; Retry
    re-runs the pending turn without duplicating the user message."""
    chat: ChatHarness = make_chat()
    chat.server.push(Fail(401, "invalid api key", error_type="authentication_error"))
    chat.send("are you there?")
    chat.idle()
    banner = chat.tab.pane.banner
    chat.wait(banner.isVisible)
    assert banner.kind == "auth" and "API key" in banner.label.text()
    # One sentence (no exception chain, no repeated headline); the chain is behind Details.
    text = banner.label.text()
    assert "litellm" not in text.lower() and text.count("rejected the API key") == 1
    assert not banner.details.isVisible() and banner.details_button.isVisible()
    banner.details_button.click()
    assert banner.details.isVisible() and "AuthenticationError" in banner.details.text()
    with qtbot.waitSignal(chat.tab.openSettingsRequested) as signal:
        banner.settings.click()
    assert signal.args == ["providers"]
    session = chat.agent.sessions.get_or_create(chat.tab.current)
    assert session.has_pending_turn
    chat.server.push(Reply("Yes, I am here."))
    banner.retry.click()
    chat.wait(lambda: chat.items()[-1].text == "Yes, I am here.")
    chat.idle()
    assert not banner.isVisible()
    assert chat.kinds() == ["user", "assistant"] and chat.items()[-1].text == "Yes, I am here."
    users = [m for m in session.messages if m["role"] == "user"]
    assert [u["content"] for u in users] == ["are you there?"]
    assert not session.has_pending_turn


def test_slash_commands_complete_and_answer_inline(make_chat: MakeChat, qtbot: QtBot) -> None:
    """Typing "/dr" offers the dream commands; /help is answered without a model call."""
    chat: ChatHarness = make_chat()
    edit = chat.tab.pane.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "/dr")
    completer = edit.completer
    chat.wait(present(completer.popup()).isVisible)
    offered = [
        completer.completionModel().index(r, 0).data() for r in range(completer.completionCount())
    ]
    assert offered == ["/dream", "/dream-log", "/dream-restore", "/dream-prompt"]
    present(completer.popup()).hide()
    chat.send("/help")
    chat.wait(
        lambda: (
            chat.items()
            and chat.items()[-1].kind == "command"
            and "/dream-restore" in chat.items()[-1].text
        )
    )
    assert chat.server.chat_requests() == []


def test_image_attachment_is_sent_as_image_content(make_chat: MakeChat, tmp_path: Path) -> None:
    """An attached image reaches the model as an image_url part."""
    from PySide6.QtGui import QColor, QImage

    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    path = tmp_path / "red.png"
    assert image.save(str(path))
    chat: ChatHarness = make_chat()
    composer = chat.tab.pane.composer
    composer.add_files([str(path), str(tmp_path / "missing.png")])
    assert composer.attachments == [str(path)]
    chat.server.push(Reply("A red square."))
    chat.send("what is this?")
    chat.idle()
    user = chat.requests()[0]["messages"][-1]
    assert isinstance(user["content"], list)
    assert any(
        p.get("type") == "image_url" and p["image_url"]["url"].startswith("data:image/png")
        for p in user["content"]
    )
    assert chat.items()[0].media == [str(path)] and composer.attachments == []


def test_pasted_image_becomes_an_attachment(make_chat: MakeChat, workspace: Path) -> None:
    """Pasting image data saves a PNG under the workspace media folder and attaches it."""
    from PySide6.QtCore import QMimeData
    from PySide6.QtGui import QColor, QImage

    chat: ChatHarness = make_chat()
    image = QImage(4, 4, QImage.Format.Format_RGB32)
    image.fill(QColor("blue"))
    mime = QMimeData()
    mime.setImageData(image)
    chat.tab.pane.composer.edit.insertFromMimeData(mime)
    chat.wait(lambda: chat.tab.pane.composer.attachments)
    [path] = chat.tab.pane.composer.attachments
    assert path.startswith(str(workspace / "media")) and path.endswith(".png")
    assert chat.tab.pane.composer.edit.toPlainText() == ""


def test_outbound_messages_appear_in_their_chat(make_chat: MakeChat) -> None:
    """A message-tool/reminder message for the open desktop chat is shown (a turn's answer is
    never delivered as an outbound message to the window: it arrives once, as events)."""
    from desktop.core.bus.events import OutboundMessage

    chat: ChatHarness = make_chat()
    chat.server.push(Reply("Final answer."))
    chat.send("hello")
    chat.idle()
    chat_id = chat.tab.current.partition(":")[2]
    bridge = chat.services.bridge
    bridge.deliver_outbound(
        OutboundMessage("desktop", chat_id, "Time to stretch!", metadata={"reminder": True})
    )
    bridge.deliver_outbound(
        OutboundMessage("desktop", chat_id, "interim", metadata={"progress": True})
    )
    assert chat.kinds() == ["user", "assistant", "outbound"]
    assert chat.items()[-1].text == "Time to stretch!" and chat.items()[-1].tool == "Reminder"


def test_stopping_a_turn_the_tab_did_not_start_ends_it_in_the_tab(make_chat: MakeChat) -> None:
    """A reminder turn (started by the scheduler, not the tab) streams into the open chat;
    Stop in the tab stops it, and the tab is not left "running" (regression)."""
    import asyncio

    from desktop.core.cron.types import CronPayload, CronSchedule
    from tests.ui.conftest import run_async

    chat: ChatHarness = make_chat()
    key = chat.tab.current
    runtime = chat.services.runtime
    assert runtime is not None
    payload = CronPayload(message="Stretch", session_key=key, origin_channel="desktop",
                          origin_chat_id=key.partition(":")[2])  # fmt: skip
    job = run_async(
        chat.qtbot, chat.loop,
        asyncio.to_thread(runtime.cron.add_job, "stretch",
                          CronSchedule("every", every_ms=3_600_000), payload),
    )  # fmt: skip
    chat.server.push(Reply("Time to stretch " * 200, chunk=5, stall_after=8, stall_for=60))
    fired = asyncio.ensure_future(runtime.cron.run_now(job.id))
    chat.wait(lambda: any(i.kind == "assistant" and i.text for i in chat.items()))
    reminder = next(i for i in chat.items() if i.kind == "outbound")
    assert reminder.text == "Stretch" and reminder.tool == "Reminder · stretch"
    composer = chat.tab.pane.composer
    assert composer.busy and composer.send.text() == "Stop"
    composer.send.click()
    chat.wait(lambda: not chat.tab.state.live)
    chat.wait(lambda: not composer.busy)
    assert composer.send.text() == "Send"
    answer = chat.items()[-1]
    assert answer.footer == "Stopped" and not answer.streaming
    chat.wait(fired.done)
    assert not runtime.agent.is_busy(key)


def test_retried_model_call_is_announced_then_answered(make_chat: MakeChat) -> None:
    """The server answers 503, then takes a while: the waiting row says why and that the call
    is retried (as drawn and as a screen reader hears it); the answer replaces it."""
    from desktop.ui.chat.accessible import row_text
    from tests.fakes.openai_server import Stall

    chat: ChatHarness = make_chat()
    chat.server.push(
        # The retry's answer is held back long enough to see the row say so meanwhile.
        Fail(503, "upstream overloaded"),
        Stall(0.8, Reply("Back again: here is the answer.")),
    )
    chat.send("are you up?")
    notice = "Waiting for the model… (retrying 2/2)"

    def waiting_row() -> object:
        rows = [i for i in chat.items() if i.kind == "assistant" and notice in i.status]
        return rows[0] if rows else None

    chat.wait(waiting_row)
    row = waiting_row()
    assert row is not None and row.streaming and not row.text  # type: ignore[attr-defined]
    assert row.status.startswith("The provider had a server error")  # type: ignore[attr-defined]
    index = chat.items().index(row)
    drawn = " ".join(p.doc.toPlainText() for p in chat.tab.pane.view.layout_of(index).parts)
    assert notice in drawn
    assert notice in row_text(row)  # type: ignore[arg-type]
    chat.wait(lambda: len(chat.server.chat_requests()) == 2)  # the retry is under way…
    assert waiting_row() is row and notice in row_text(row)  # type: ignore[arg-type]  # …and said
    chat.idle()
    answers = [i for i in chat.items() if i.kind == "assistant"]
    assert [a.text for a in answers] == ["Back again: here is the answer."]
    assert not answers[0].streaming and answers[0].status == ""
    assert not chat.tab.pane.banner.isVisible()


def test_a_message_over_the_limit_stays_in_the_composer(make_chat: MakeChat) -> None:
    """A pasted text over ``channels.maxInboundKb``: not sent (no row, no request, no
    session), the banner says why (no Retry: nothing failed), the text stays to be cut down;
    once short enough it goes."""
    chat: ChatHarness = make_chat()
    chat.services.config.channels.max_inbound_kb = 1
    chat.server.push(Reply("Got the short one."))
    long_text = "Ünïcode " * 200  # 1,600 characters, 2,000 bytes: over 1 KB
    chat.send(long_text)
    banner = chat.tab.pane.banner
    chat.wait(banner.isVisible)
    assert banner.label.text().startswith(
        "Your message is too long (2 KB); I read messages up to 1 KB."
    )
    assert not banner.retry.isVisible() and not banner.settings.isVisible()
    assert chat.tab.pane.composer.text() == long_text
    assert chat.kinds() == [] and chat.requests() == [] and not chat.tab.state.sent
    assert not chat.agent.sessions.path_for(chat.tab.current).exists()
    chat.send("short")
    chat.idle()
    assert chat.kinds() == ["user", "assistant"] and not banner.isVisible()


def test_a_save_failure_banner_offers_retry_and_no_provider_settings(qtbot: QtBot) -> None:
    """``storage`` (the turn could not be saved): the core's sentence, Retry, and no
    "Provider settings" button (no provider setting fixes a full disk)."""
    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.show_error("storage", "The chat could not be saved (No space left on device).")
    assert banner.label.text() == "The chat could not be saved (No space left on device)."
    assert banner.retry.isVisibleTo(banner) and not banner.settings.isVisibleTo(banner)
