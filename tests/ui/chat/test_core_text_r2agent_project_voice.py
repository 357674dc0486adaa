"""The project bar's refusals and the voice bar's errors in the window's language (issue #25 §6).

Real causes: a project folder deleted meanwhile and a relative one (the project bar); a
microphone PortAudio cannot open, and the voice extra missing (its import fails) for the voice
bar; the transcription errors the providers' answers can cause. Each keeps its English, is
bracketed under the pseudo-locale but for data (paths, PortAudio's own words, the command to
type), and reads Chinese with ``zh_CN``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.providers import transcription
from desktop.core.session.project import ProjectError, validate_folder
from desktop.core.utils.audio import Recorder, VoiceUnavailable, load_sounddevice
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language, localized
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.i18n.pseudo import _english, pseudo_locale


def _choose(chat: ChatHarness, folder: str) -> str:
    """Pick ``folder`` as the chat's project; what the bar says about it."""
    tab, bar = chat.tab, chat.tab.projects.bar
    bar.problem.clear()
    bar.problem.hide()
    tab.projects.choose = lambda *_: folder
    bar.choose_action.trigger()
    chat.wait(lambda: bar.problem.isVisible() and bool(bar.problem.text()))
    return bar.problem.text()


def test_the_project_bar_refuses_in_the_window_language(
    make_chat: MakeChat, tmp_path: Path
) -> None:
    gone = str(tmp_path / "deleted meanwhile")
    chat: ChatHarness = make_chat()
    chat.wait(lambda: chat.tab.projects.scope_of(chat.tab.current) is not None)
    english = _choose(chat, gone)
    assert f"The project folder does not exist or is not a folder: {gone}" in english
    with pseudo_locale():
        shown = [_choose(chat, gone), _choose(chat, "relative/folder")]
    assert [_english(t, frozenset({gone, "relative/folder"})) for t in shown] == ["", ""]
    try:
        install_language("zh_CN")
        assert f"项目文件夹不存在或不是文件夹：{gone}" in _choose(chat, gone)
        assert "项目文件夹必须是绝对路径：relative/folder" in _choose(chat, "relative/folder")
    finally:
        install_language("en")


def test_every_project_folder_error_is_a_phrase() -> None:
    for folder in ("", "a\0b", "relative", "/no/such/folder/here"):
        with pytest.raises(ProjectError) as caught:
            validate_folder(folder)
        assert len(caught.value.args) == 1 and isinstance(caught.value.args[0], Phrase)


def _microphone_error() -> str:
    """What PortAudio says about a microphone that does not exist (data, shown as it is)."""
    with pytest.raises(VoiceUnavailable) as caught:
        Recorder(device="no such microphone").start()
    message = caught.value.args[0]
    assert isinstance(message, Phrase)
    return str(message.fields["error"])


def test_no_microphone_is_said_in_the_window_language(make_chat: MakeChat, qtbot: QtBot) -> None:
    try:
        load_sounddevice()
    except VoiceUnavailable as exc:
        pytest.skip(str(exc))
    error = _microphone_error()
    chat: ChatHarness = make_chat()
    voice = chat.tab.pane.composer.voice
    voice.recorder_factory = lambda: Recorder(device="no such microphone")

    def record() -> str:
        voice.bar.label.clear()
        voice.button.click()
        chat.wait(lambda: bool(voice.bar.label.text()) and voice.state == "idle")
        return voice.bar.label.text()

    assert record() == f"No microphone could be opened ({error})."
    with pseudo_locale():
        assert _english(record(), frozenset({error})) == ""
    try:
        install_language("zh_CN")
        assert record() == f"无法打开麦克风（{error}）。"
    finally:
        install_language("en")


def test_a_missing_voice_extra_is_said_in_the_window_language(
    make_chat: MakeChat, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # its import now fails
    chat: ChatHarness = make_chat()
    voice = chat.tab.pane.composer.voice

    def record() -> str:
        voice.bar.label.clear()
        voice.button.click()
        chat.wait(lambda: "sounddevice" in voice.bar.label.text())
        return voice.bar.label.text()

    assert record().startswith("Voice input needs the voice extra (sounddevice). ")
    with pseudo_locale():
        shown = record()
    command = voice.plan.command if voice.plan is not None else ""
    data = frozenset({command, "pip install 'nanobot-desktop[voice]'", "sounddevice", "voice"})
    assert shown.startswith("⟦") and _english(shown, data) == ""
    try:
        install_language("zh_CN")
        assert record().startswith("语音输入需要 voice 扩展（sounddevice）。")
    finally:
        install_language("en")


def test_the_transcription_errors_are_phrases_shown_translated(qtbot: QtBot) -> None:
    """The errors a provider's answer can cause (no text) are marked; a provider's own
    message inside one is data."""
    with pytest.raises(TypeError) as caught:
        transcription._text({"not": "text"})
    assert str(caught.value) == "the transcription answer had no text"
    with pseudo_locale():
        assert _english(localized(caught.value), frozenset()) == ""
    try:
        install_language("zh_CN")
        assert localized(caught.value) == "转写结果中没有文本"
    finally:
        install_language("en")
