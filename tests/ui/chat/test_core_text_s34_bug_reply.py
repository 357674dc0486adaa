"""A crashed turn's sentence in the window's language (issue #25 §6 leftovers).

A real chat whose turn hits a bug (an exception nobody expected, inside the agent loop) shows
the loop's one sentence in the error banner: English as it was for logs and channels,
bracketed under the pseudo locale, Chinese with ``zh_CN``. The "no answer" sentence (an empty
reply after the retries) is the same family.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.agent.loop import BUG_REPLY, EMPTY_REPLY, AgentLoop
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language, localized
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated

ENGLISH = "Something went wrong on our side; the details are in the log."


def test_a_crashed_turn_says_so_in_the_window_language(
    make_chat: MakeChat, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: AgentLoop, *args: Any, **kwargs: Any) -> str:
        raise RuntimeError("a bug in the turn")

    chat: ChatHarness = make_chat()
    monkeypatch.setattr(AgentLoop, "_turn", broken)
    banner = chat.tab.pane.banner
    with pseudo_locale():
        chat.send("hello")
        chat.idle()
        chat.wait(banner.isVisible)
        text = banner.label.text()
        assert "⟦" + ENGLISH + "⟧" in text, text
        assert untranslated(banner.label) == []
    error = chat.tab.state.errors[chat.tab.current]
    assert error.message == ENGLISH  # the English, as logs and channels see it
    try:
        install_language("zh_CN")
        banner.show_error(error.kind, error.message, error.details)
        assert "我们这边出了问题；详细信息在日志中。" in banner.label.text()
    finally:
        install_language("en")
    banner.show_error(error.kind, error.message, error.details)
    assert banner.label.text().startswith(ENGLISH)


def test_the_failed_turn_sentences_are_marked_phrases() -> None:
    for said in (BUG_REPLY, EMPTY_REPLY):
        assert isinstance(said, Phrase) and said.template == str(said)
    assert EMPTY_REPLY == "The model returned no answer, even when asked again without tools."
    try:
        install_language("zh_CN")
        assert localized(EMPTY_REPLY) == "即使不带工具再问一次，模型也没有给出回答。"
    finally:
        install_language("en")
    with pseudo_locale():
        assert not _english(localized(EMPTY_REPLY), frozenset())
