"""The chat shows the providers' core messages in the window's language: a failed turn's
banner (our framing of a real refusal), the fallback notice, the retry status, and every
failure kind's label (issue #25 §6). The provider's own error text stays as it said it."""

from __future__ import annotations

from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.bus.events import ModelRetrying, TurnStarted
from desktop.core.providers.base import LLMError
from desktop.core.providers.retry import _LABELS, classify, clause, headline
from desktop.core.utils.i18n import Phrase
from desktop.ui.chat.state import ChatState
from desktop.ui.i18n import install_language, localized
from tests.fakes.openai_server import Fail, Reply
from tests.ui.chat.conftest import ChatHarness
from tests.ui.i18n.pseudo import _english, pseudo_locale


def _refused_key(chat: ChatHarness) -> str:
    """Send a message the scripted server refuses (401): the banner's sentence."""
    chat.server.push(Fail(401, "invalid api key", error_type="authentication_error"))
    chat.send("are you there?")
    chat.idle()
    banner = chat.tab.pane.banner
    chat.wait(banner.isVisible)
    return banner.label.text()


def test_a_refused_key_banner_is_translated_around_the_providers_words(
    make_chat: Any, qtbot: QtBot
) -> None:
    """A real 401 through LiteLLM: the banner's framing goes through the translation (no
    English outside the brackets but the provider's own "invalid api key"); in Chinese it
    says the provider rejected the key."""
    chat: ChatHarness = make_chat()
    with pseudo_locale():
        shown = _refused_key(chat)
    assert "⟦The provider rejected the API key⟧" in shown
    assert _english(shown, frozenset({"invalid api key"})) == ""
    chat.tab.pane.banner.hide()
    try:
        install_language("zh_CN")
        shown = _refused_key(chat)
    finally:
        install_language("en")
    assert shown.startswith("服务商拒绝了 API 密钥：invalid api key。"), shown


def test_the_fallback_notice_is_translated_around_the_model_names(make_chat: Any) -> None:
    """The default model fails for real (500 after its retry); the notice row that names the
    fallback is wording around the two model names in the pseudo locale, Chinese in zh_CN."""
    chat: ChatHarness = make_chat(
        ready=False, fallbackModels=[{"model": "backup-model", "provider": "custom"}]
    )
    chat.services.config.providers.custom.api_base = chat.server.url
    chat.server.route = lambda body: (
        Reply("The backup answers.") if body["model"] == "backup-model" else Fail(500, "boom")
    )
    chat.make_ready()

    def notice_drawn() -> str:
        chat.idle()
        notices = [i for i in chat.items() if i.kind == "notice"]
        assert notices, [i.kind for i in chat.items()]
        index = chat.items().index(notices[-1])
        parts = chat.tab.pane.view.layout_of(index).parts
        return " ".join(p.doc.toPlainText() for p in parts)

    chat.send("hello?")
    chat.idle()
    notice = next(i for i in chat.items() if i.kind == "notice")
    assert str(notice.text).startswith("↪ openai/scripted did not answer (")  # English kept
    with pseudo_locale():
        chat.tab.pane.view._cache.clear()  # lay the rows out again in this language
        drawn = notice_drawn()
    assert "⟦answers instead" not in drawn and "answers instead.⟧" in drawn
    assert _english(drawn, frozenset({"openai/scripted", "backup-model", "boom"})) == ""
    try:
        install_language("zh_CN")
        chat.tab.pane.view._cache.clear()  # lay the rows out again in this language
        drawn = notice_drawn()
    finally:
        install_language("en")
    assert "改由 backup-model 回答" in drawn and "服务商服务器出错" in drawn, drawn


def test_the_retry_status_frames_the_reason_in_the_window_language(qtbot: QtBot) -> None:
    """The waiting row's reason is a real classification of a refused connection: the row's
    status shows it translated inside the translated retry line."""
    error = classify(ConnectionRefusedError(111, "Connection refused"))
    assert error.kind == "connection" and isinstance(error.message, Phrase)
    assert str(error.message) == "Could not reach the provider: [Errno 111] Connection refused."
    state = ChatState()
    state.current = "desktop:s"
    state.apply(TurnStarted("t1", "desktop:s", "message", "desktop", "s", "hi"))
    state.apply(ModelRetrying("t1", "desktop:s", error.message, 1, 3, 1.0))
    answer = state.live["t1"].answer
    assert answer is not None
    status = answer.status
    with pseudo_locale():
        shown = localized(status)
    assert _english(shown, frozenset({"Errno", "Connection refused"})) == "", shown
    try:
        install_language("zh_CN")
        shown = localized(status)
    finally:
        install_language("en")
    assert "无法连接服务商" in shown, shown


@pytest.mark.parametrize("kind", sorted(_LABELS))
def test_every_failure_kind_is_framed_for_translation(kind: str, qtbot: QtBot) -> None:
    """Every kind of model failure the core names (the whole family of headlines, with and
    without the provider's reason, and the clause inside the fallback notice) shows no English
    outside the pseudo brackets: a new label written without ``QT_TR_NOOP`` fails here."""
    with pseudo_locale():
        for message in (headline(kind, ""), headline(kind, "boom from the server")):
            for said in (message, clause(message)):
                assert isinstance(said, Phrase), said
                shown = localized(LLMError(said, kind="unknown").message)
                assert _english(shown, frozenset({"boom from the server"})) == "", shown
