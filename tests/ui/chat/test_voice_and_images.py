"""Voice input and image mode in the chat window.

Voice: the microphone is real as far as it goes here — espeak-ng speaks a phrase into a private
PulseAudio server's pipe microphone, the window records it through PortAudio (the ``voice``
extra), and the OpenAI transcription API (a local fake) hears the WAV; the transcript lands in
the composer and nothing is sent. Image mode: the prompt goes to the OpenAI images API (the
scripted server, through LiteLLM) and the image is shown in the chat and kept in the workspace.
"""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.utils.audio import peak
from tests.core.tools.test_spawn_images import png
from tests.fakes.pulse_mic import PulseMic, pcm_of, skip_without_audio, speak_wav
from tests.fakes.transcription_server import TranscriptionServer
from tests.ui.chat.conftest import ChatHarness, MakeChat

PHRASE = "water the plants on Friday"
needs_audio = pytest.mark.skipif(skip_without_audio() is not None, reason=str(skip_without_audio()))


def _transcription(chat: ChatHarness, server: TranscriptionServer, key: str | None) -> None:
    config = chat.services.config
    config.transcription.provider = "openai"
    config.providers.openai.api_base = f"{server.url}/v1"
    config.providers.openai.api_key = key


def _record(chat: ChatHarness, mic: PulseMic, qtbot: QtBot, spoken: bytes) -> None:
    voice = chat.tab.pane.composer.voice
    qtbot.mouseClick(voice.button, Qt.MouseButton.LeftButton)
    chat.wait(lambda: voice.state == "recording" and voice.bar.meter.isVisible())
    mic.speak(spoken)
    chat.wait(lambda: voice.bar.meter.level > 0.05)  # the meter moves with the voice
    chat.wait(mic.spoken.is_set)
    assert voice.recorder is not None
    then = voice.recorder.seconds
    # The recording goes on past the speech (a quarter second more is plenty to show it).
    chat.wait(lambda: voice.recorder is not None and voice.recorder.seconds >= then + 0.25)
    assert "Recording" in voice.bar.label.text()
    qtbot.keyClick(chat.tab.pane.composer.edit, Qt.Key.Key_Space, _CTRL_SHIFT)  # stop
    chat.wait(lambda: voice.state != "recording")


_CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@needs_audio
def test_speaking_puts_the_transcript_in_the_composer(
    make_chat: MakeChat, tmp_path: Path, qtbot: QtBot
) -> None:
    spoken = pcm_of(speak_wav(PHRASE, tmp_path / "spoken.wav"))
    chat: ChatHarness = make_chat()
    composer = chat.tab.pane.composer
    composer.edit.setPlainText("Reminder:")
    composer.edit.moveCursor(composer.edit.textCursor().MoveOperation.End)
    with TranscriptionServer("tk-voice", text=PHRASE) as server, PulseMic(tmp_path / "pa") as mic:
        _transcription(chat, server, "tk-voice")
        _record(chat, mic, qtbot, spoken)
        chat.wait(lambda: composer.edit.toPlainText() == f"Reminder: {PHRASE}")
        (heard,) = server.heard
    assert heard.path == "/v1/audio/transcriptions" and heard.fields["model"] == "whisper-1"
    with wave.open(io.BytesIO(heard.audio), "rb") as wav:
        assert wav.getframerate() == 16_000
        assert peak(wav.readframes(wav.getnframes())) > 0.1  # the spoken phrase, not silence
    assert not composer.voice.bar.isVisible() and composer.voice.state == "idle"
    assert chat.kinds() == [] and chat.server.chat_requests() == []  # for review, not sent
    assert composer.edit.hasFocus()


@needs_audio
def test_a_missing_key_keeps_the_recording_and_try_again_uses_it(
    make_chat: MakeChat, tmp_path: Path, qtbot: QtBot, workspace: Path
) -> None:
    spoken = pcm_of(speak_wav(PHRASE, tmp_path / "spoken.wav"))
    chat: ChatHarness = make_chat()
    voice = chat.tab.pane.composer.voice
    with TranscriptionServer("tk-voice", text=PHRASE) as server, PulseMic(tmp_path / "pa") as mic:
        _transcription(chat, server, None)
        _record(chat, mic, qtbot, spoken)
        chat.wait(lambda: "No transcript" in voice.bar.label.text())
        assert "No OpenAI key for transcription" in voice.bar.label.text()
        assert voice.bar.retry.isVisible() and voice.kept is not None
        kept = voice.kept
        assert kept.parent == workspace / "media" / "voice" and kept.stat().st_size > 16_000
        assert server.heard == []
        chat.services.config.providers.openai.api_key = "tk-voice"
        qtbot.mouseClick(voice.bar.retry, Qt.MouseButton.LeftButton)
        chat.wait(lambda: chat.tab.pane.composer.edit.toPlainText() == PHRASE)
        assert server.heard[0].audio == kept.read_bytes()


def test_no_microphone_is_said_plainly(make_chat: MakeChat, qtbot: QtBot) -> None:
    from desktop.core.utils.audio import Recorder

    chat: ChatHarness = make_chat()
    voice = chat.tab.pane.composer.voice
    voice.recorder_factory = lambda: Recorder(device="no such microphone")
    qtbot.mouseClick(voice.button, Qt.MouseButton.LeftButton)
    chat.wait(lambda: "No microphone" in voice.bar.label.text())
    assert voice.state == "idle" and not voice.button.isChecked()


def test_image_mode_draws_the_prompt_and_shows_it(
    make_chat: MakeChat, workspace: Path, qtbot: QtBot
) -> None:
    chat: ChatHarness = make_chat(ready=False)
    config = chat.services.config
    config.providers.custom.api_base = chat.server.url
    config.providers.custom.api_key = "sk-img"
    config.tools.image_generation.enabled = True
    config.tools.image_generation.provider = "custom"
    config.tools.image_generation.model = "img-model"
    chat.server.images = png(64, 40)
    chat.make_ready()
    composer = chat.tab.pane.composer
    chat.wait(lambda: composer.image_mode.button.isEnabled())
    qtbot.keyClick(composer.edit, Qt.Key.Key_I, _CTRL_SHIFT)
    assert composer.image_mode.on and composer.edit.placeholderText().startswith("Describe")
    chat.send("a lighthouse at dusk")
    chat.wait(lambda: "outbound" in chat.kinds())
    row = chat.kinds().index("outbound")
    (path,) = chat.items()[row].media
    assert Path(path).read_bytes() == png(64, 40)
    assert Path(path).is_relative_to(workspace / "media" / "generated")
    (call,) = [r for r in chat.server.requests if r.path.endswith("/images/generations")]
    assert call.body["prompt"] == "a lighthouse at dusk"
    assert chat.server.chat_requests() == []  # no model turn
    chat.wait(lambda: composer.edit.toPlainText() == "")
    assert composer.image_mode.on  # stays on for the next image
    chat.wait(lambda: any("Saved in the workspace" in i.plain_text() for i in chat.items()))
    saved = json.dumps(chat.agent.sessions.get_or_create(chat.tab.current).messages)
    assert "generate_image" in saved and path in saved


def test_attached_office_documents_reach_the_model_as_text(
    make_chat: MakeChat, tmp_path: Path
) -> None:
    """Word, Excel and PowerPoint files attached in the window: the model's request holds
    their text, read with read_file's readers (a real turn on the scripted server)."""
    import docx
    import openpyxl
    import pptx

    from tests.fakes.openai_server import Reply

    document = docx.Document()
    document.add_paragraph("Hire two engineers in March.")
    document.save(str(tmp_path / "plan.docx"))
    book = openpyxl.Workbook()
    book.active.append(["laptop", 1200])
    book.save(str(tmp_path / "costs.xlsx"))
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[1]).shapes.title.text = "Ship the beta"
    deck.save(str(tmp_path / "road.pptx"))
    chat: ChatHarness = make_chat()
    files = [str(tmp_path / name) for name in ("plan.docx", "costs.xlsx", "road.pptx")]
    chat.tab.pane.composer.add_files(files)
    assert chat.tab.pane.composer.attachments == files
    chat.server.push(Reply("Noted."))
    chat.send("summarise these")
    chat.idle()
    sent = json.dumps(chat.requests()[0]["messages"][-1]["content"])
    for text in ("Hire two engineers in March.", "laptop | 1200", "Ship the beta"):
        assert text in sent
    assert chat.items()[0].media == files


@needs_audio
def test_read_aloud_speaks_an_answer_until_esc(
    make_chat: MakeChat, tmp_path: Path, qtbot: QtBot
) -> None:
    """The answer's "Read aloud" runs espeak-ng (playing into the private PulseAudio server);
    its action turns into "Stop reading aloud"; Esc in the conversation stops it."""
    from tests.fakes.openai_server import Reply

    chat: ChatHarness = make_chat()
    answer = "Here is a long answer. " * 20
    chat.server.push(Reply(answer))
    chat.send("tell me something long")
    chat.idle()
    view = chat.tab.pane.view
    row = chat.kinds().index("assistant")
    with PulseMic(tmp_path / "pa"):
        labels = dict(view.row_actions(row))
        labels["Read aloud"]()
        chat.wait(lambda: view.reader.process is not None)
        process = view.reader.process
        assert process is not None and process.returncode is None
        assert "Stop reading aloud" in dict(view.row_actions(row))
        view.setFocus()
        qtbot.keyClick(view, Qt.Key.Key_Escape)
        chat.wait(lambda: process.returncode is not None)
        assert not view.reader.speaking and "Read aloud" in dict(view.row_actions(row))


def test_a_missing_voice_extra_offers_its_install(make_chat: MakeChat, qtbot: QtBot) -> None:
    """Without the voice extra (its import fails: a recorder that says so stands in), the bar
    says what is missing and, in this source install, shows the pip command it would run."""
    from desktop.core.utils.audio import Recorder, VoiceUnavailable

    class Missing(Recorder):
        def start(self) -> None:
            raise VoiceUnavailable("Voice input needs the voice extra.", missing_extra=True)

    chat: ChatHarness = make_chat()
    voice = chat.tab.pane.composer.voice
    voice.recorder_factory = Missing
    qtbot.mouseClick(voice.button, Qt.MouseButton.LeftButton)
    chat.wait(lambda: "voice extra" in voice.bar.label.text())
    text = voice.bar.label.text()
    if voice.plan is not None:  # this source install declares the extra: it offers to run pip
        assert voice.bar.install.isVisible() and voice.plan.command in text
        assert voice.plan.argv[-1].endswith("[voice]")
    else:  # installed without the extra's declaration (e.g. an older editable install)
        assert not voice.bar.install.isVisible()
        assert "pip install 'nanobot-desktop[voice]'" in text
    assert voice.state == "idle"
