"""The chat tells the person when a fallback model answers instead of the one that failed."""

from __future__ import annotations

from typing import Any

from desktop.ui.chat.accessible import row_text
from tests.fakes.openai_server import Fail, Reply
from tests.ui.chat.conftest import ChatHarness


def test_a_fallback_model_is_announced_in_a_line_before_its_answer(make_chat: Any) -> None:
    """The default model fails (server error, after its retry); the fallback answers. A
    notice row, drawn and read aloud, names both before the answer; nothing else is left."""
    chat: ChatHarness = make_chat(
        ready=False, fallbackModels=[{"model": "backup-model", "provider": "custom"}]
    )
    chat.services.config.providers.custom.api_base = chat.server.url
    chat.server.route = lambda body: (
        Reply("The backup answers.") if body["model"] == "backup-model" else Fail(500, "boom")
    )
    chat.make_ready()
    chat.send("hello?")
    chat.idle()
    rows = [i for i in chat.items() if i.kind in ("notice", "assistant")]
    assert [r.kind for r in rows] == ["notice", "assistant"]
    notice, answer = rows
    assert "openai/scripted did not answer" in notice.text
    assert "backup-model answers instead" in notice.text
    assert answer.text == "The backup answers." and not answer.streaming
    index = chat.items().index(notice)
    drawn = " ".join(p.doc.toPlainText() for p in chat.tab.pane.view.layout_of(index).parts)
    assert "backup-model answers instead" in drawn
    assert "backup-model answers instead" in row_text(notice)
    assert [r.body["model"] for r in chat.server.chat_requests()] == [
        "scripted",
        "scripted",
        "backup-model",
    ]
