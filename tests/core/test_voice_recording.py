"""Voice input's recorder on a real audio path: espeak-ng speaks into a PulseAudio pipe
microphone, PortAudio (sounddevice) records it through ALSA's pulse plugin, and the WAV it
makes is transcribed through the OpenAI transcription API (a local fake)."""

from __future__ import annotations

import asyncio
import io
import wave
from pathlib import Path

import pytest

from desktop.core.providers.transcription import TranscriptionAccess, find_transcription, transcribe
from desktop.core.utils.audio import SAMPLE_RATE, Recorder, VoiceUnavailable, peak
from tests.fakes.pulse_mic import RATE, PulseMic, pcm_of, skip_without_audio, speak_wav
from tests.fakes.transcription_server import TranscriptionServer
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(skip_without_audio() is not None, reason=str(skip_without_audio()))


def test_the_recorder_hears_what_is_spoken_into_the_microphone(tmp_path: Path) -> None:
    spoken = pcm_of(speak_wav("water the plants on Friday", tmp_path / "spoken.wav"))
    seconds = len(spoken) / (2 * RATE)
    with PulseMic(tmp_path / "pulse") as mic:
        recorder = Recorder()
        recorder.start()
        try:
            mic.speak(spoken)
            wait_for(mic.spoken.is_set, what="the phrase read from the microphone's pipe")
            then = recorder.seconds
            wait_for(lambda: recorder.seconds >= then + 1, what="the phrase recorded")
            level = recorder.take_level()
        finally:
            wav = recorder.stop()
    with wave.open(io.BytesIO(wav), "rb") as heard:
        assert (heard.getnchannels(), heard.getsampwidth()) == (1, 2)
        assert heard.getframerate() == SAMPLE_RATE
        samples = heard.readframes(heard.getnframes())
    assert len(samples) / (2 * SAMPLE_RATE) >= seconds
    assert level > 0.05 and peak(samples) > 0.1  # speech, not the silence of an idle pipe
    with TranscriptionServer("tk-voice", text="water the plants on Friday") as server:
        spec = find_transcription("openai")
        assert spec is not None
        access = TranscriptionAccess(spec, "tk-voice", f"{server.url}/v1", "whisper-1")
        path = tmp_path / "voice.wav"
        path.write_bytes(wav)
        text = asyncio.run(transcribe(path, access, delays=()))
        (heard_request,) = server.heard
    assert text == "water the plants on Friday"
    assert heard_request.path == "/v1/audio/transcriptions" and heard_request.audio == wav


def test_no_microphone_is_a_plain_error(tmp_path: Path) -> None:
    recorder = Recorder(device="no such microphone")
    with pytest.raises(VoiceUnavailable, match="No microphone") as caught:
        recorder.start()
    assert not caught.value.missing_extra


def test_a_microphone_that_appears_later_is_found_without_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PortAudio lists the devices when it starts: with no sound server then, the default
    input is unusable; once a microphone (here: the sound server) is there, the next
    recording rescans and records."""
    import sounddevice as sd

    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'nothing-here'}")
    sd._terminate()
    sd._initialize()  # as an app started while there was no microphone
    with pytest.raises(VoiceUnavailable, match="No microphone"):
        Recorder().start()
    with PulseMic(tmp_path / "pulse"):
        recorder = Recorder()
        recorder.start()
        try:
            wait_for(lambda: recorder.seconds > 0.2, what="samples from the new microphone")
        finally:
            recorder.stop()
