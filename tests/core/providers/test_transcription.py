"""Voice transcription through each provider nanobot 0.3.5 lists, against local fakes of
their documented APIs, with a real WAV file."""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.transcription import (
    chosen_spec,
    find_transcription,
    transcribe,
    transcription_access,
)
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.transcription_server import TranscriptionServer

KEY = "tk-transcription-key-0123456789"


def _wav(path: Path, seconds: float = 0.5, rate: int = 16_000) -> Path:
    """A real WAV: a 440 Hz tone, 16-bit mono PCM."""
    frames = b"".join(
        struct.pack("<h", int(12_000 * math.sin(2 * math.pi * 440 * n / rate)))
        for n in range(int(seconds * rate))
    )
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return path


def _config(provider: str, base: str, **transcription: Any) -> Config:
    return Config.model_validate(
        {
            "transcription": {"provider": provider, **transcription},
            "providers": {provider: {"apiBase": base}},
        }
    )


@pytest.fixture
def server() -> Any:
    with TranscriptionServer(KEY) as fake:
        yield fake


@pytest.mark.parametrize(
    ("provider", "base", "path", "model"),
    [
        ("openai", "/v1", "/v1/audio/transcriptions", "whisper-1"),
        ("groq", "/openai/v1", "/openai/v1/audio/transcriptions", "whisper-large-v3"),
        ("siliconflow", "/v1", "/v1/audio/transcriptions", "FunAudioLLM/SenseVoiceSmall"),
    ],
)
async def test_openai_style_form_upload(
    provider: str,
    base: str,
    path: str,
    model: str,
    server: TranscriptionServer,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
) -> None:
    """The WAV goes up as OpenAI's multipart form with the provider's model and the language;
    the key from the keyring is the bearer; the text comes back trimmed."""
    await SecretStore().aset(provider, KEY)
    audio = _wav(tmp_path / "voice.wav")
    access = await transcription_access(_config(provider, server.url + base, language="de"))
    assert access is not None and access.spec.name == provider
    assert await transcribe(audio, access, delays=(0.01,)) == "water the plants"
    [heard] = server.heard
    assert (heard.path, heard.auth) == (path, f"Bearer {KEY}")
    assert heard.audio == audio.read_bytes() and heard.filename == "voice.wav"
    assert heard.content_type == "audio/wav"
    assert heard.fields["model"] == model and heard.fields["language"] == "de"


async def test_assemblyai_uploads_asks_and_polls(
    server: TranscriptionServer, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """AssemblyAI: the bytes are uploaded, a transcript of that upload is asked for with the
    speech models, and polled until it is completed; the key is the Authorization header."""
    await SecretStore().aset("assemblyai", KEY)
    audio = _wav(tmp_path / "voice.wav")
    access = await transcription_access(_config("assemblyai", f"{server.url}/v2"))
    assert access is not None
    text = await transcribe(audio, access, delays=(0.01,), poll_interval=0.01)
    assert text == "water the plants"
    upload, ask, *polls = server.heard
    assert (upload.method, upload.path, upload.auth) == ("POST", "/v2/upload", KEY)
    assert upload.audio == audio.read_bytes()
    assert ask.path == "/v2/transcript"
    assert ask.fields["speech_models"] == ["universal-3-pro", "universal-2"]
    assert [p.method for p in polls] == ["GET", "GET"]  # processing, then completed


@pytest.mark.parametrize(
    ("provider", "base", "path"),
    [
        ("openrouter", "/api/v1", "/api/v1/audio/transcriptions"),
        ("xiaomi_mimo", "/v1", "/v1/chat/completions"),
        ("stepfun", "/v1", "/v1/audio/asr/sse"),
    ],
)
async def test_the_json_chat_and_streamed_protocols(
    provider: str,
    base: str,
    path: str,
    server: TranscriptionServer,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
) -> None:
    """OpenRouter's base64 body, MiMo's chat completion and StepFun's event stream carry the
    same audio and come back with the text."""
    await SecretStore().aset(provider, KEY)
    audio = _wav(tmp_path / "voice.wav")
    access = await transcription_access(_config(provider, server.url + base))
    assert access is not None
    assert await transcribe(audio, access, delays=(0.01,)) == "water the plants"
    [heard] = server.heard
    assert heard.path == path and heard.auth == f"Bearer {KEY}"
    assert heard.audio == audio.read_bytes()


async def test_a_busy_server_is_asked_again(
    server: TranscriptionServer, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """Two 503s, then the answer: the same upload is sent three times."""
    server.fail_first = 2
    await SecretStore().aset("openai", KEY)
    audio = _wav(tmp_path / "voice.wav")
    access = await transcription_access(_config("openai", f"{server.url}/v1"))
    assert access is not None
    assert await transcribe(audio, access, delays=(0.01, 0.01)) == "water the plants"
    assert len(server.heard) == 3 and server.heard[-1].audio == audio.read_bytes()


async def test_no_key_means_no_access(memory_keyring: MemoryKeyring) -> None:
    """Without a key for the chosen provider nothing is sent (the channel says so)."""
    assert await transcription_access(_config("openai", "http://127.0.0.1:9/v1")) is None


def test_which_provider() -> None:
    """The top-level choice wins, then nanobot's older channels.transcriptionProvider, then
    Groq; aliases work; an unknown name means Groq; enabled: false means none."""
    assert chosen_spec(Config()) == find_transcription("groq")
    legacy = Config.model_validate({"channels": {"transcriptionProvider": "openai"}})
    assert chosen_spec(legacy) == find_transcription("openai")
    both = Config.model_validate(
        {"channels": {"transcriptionProvider": "openai"}, "transcription": {"provider": "mimo"}}
    )
    assert chosen_spec(both) == find_transcription("xiaomi_mimo")
    unknown = Config.model_validate({"transcription": {"provider": "whisperx"}})
    assert chosen_spec(unknown) == find_transcription("groq")
    off = Config.model_validate({"transcription": {"enabled": False}})
    assert chosen_spec(off) is None
