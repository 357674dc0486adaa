"""Recording the microphone to WAV for voice input (the ``voice`` extra: ``sounddevice``).

``sounddevice`` (PortAudio through CFFI, a 33 kB wheel plus the system's ``libportaudio2``) is
imported only when a recording starts, so the window's start-up never pays for it. The stream's
callback runs in PortAudio's own thread: it keeps the raw 16-bit samples and the loudest recent
sample (the level meter's value); :meth:`Recorder.stop` returns them as a WAV file's bytes.
Opening and closing the stream may block (PortAudio talks to the sound server), so callers on an
event loop run :meth:`Recorder.start` and :meth:`Recorder.stop` in a worker thread.
"""

from __future__ import annotations

import io
import sys
import threading
from typing import Any

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

SAMPLE_RATE = 16_000
"""Samples per second: what speech recognisers want (Whisper resamples to 16 kHz anyway)."""
MAX_SECONDS = 600
"""A recording stops taking samples after this long (10 minutes: ~19 MB of WAV)."""
EXTRA = "voice"
"""The package extra that brings the recorder's library."""


class VoiceUnavailable(RuntimeError):
    """Recording cannot start: ``missing_extra`` when the ``voice`` extra is not installed,
    else no sound system or no microphone (the message says which)."""

    def __init__(self, message: str, *, missing_extra: bool = False) -> None:
        super().__init__(message)
        self.missing_extra = missing_extra


def load_sounddevice() -> Any:
    """The ``sounddevice`` module.

    Raises:
        VoiceUnavailable: It is not installed (``missing_extra``), or PortAudio is missing.
    """
    try:
        import sounddevice
    except ImportError as exc:
        raise VoiceUnavailable(
            Phrase(QT_TR_NOOP("Voice input needs the voice extra (sounddevice).")),
            missing_extra=True,
        ) from exc
    except OSError as exc:  # the package is there, the PortAudio library is not
        raise VoiceUnavailable(
            Phrase(
                QT_TR_NOOP(
                    "Voice input needs PortAudio (the libportaudio2 package on Debian and Ubuntu)."
                )
            )
        ) from exc
    return sounddevice


def wav_bytes(samples: bytes, rate: int = SAMPLE_RATE) -> bytes:
    """Mono 16-bit PCM ``samples`` as a WAV file."""
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(samples)
    return out.getvalue()


def peak(samples: bytes) -> float:
    """The loudest sample of 16-bit little-endian PCM, from 0.0 (silence) to 1.0."""
    from array import array  # here: nothing of voice input loads before it is used

    values = array("h")
    values.frombytes(samples[: len(samples) - len(samples) % 2])
    if sys.byteorder == "big":
        values.byteswap()
    return max((abs(v) for v in values), default=0) / 32768.0


class Recorder:
    """One recording from the default (or a named) input device.

    Attributes:
        level: The loudest sample since the meter last read it (0.0-1.0); see
            :meth:`take_level`.
    """

    def __init__(
        self,
        *,
        device: str | int | None = None,
        rate: int = SAMPLE_RATE,
        max_seconds: int = MAX_SECONDS,
    ) -> None:
        self.device = device
        self.rate = rate
        self.limit = rate * 2 * max_seconds
        self.level = 0.0
        self._chunks: list[bytes] = []
        self._size = 0
        self._lock = threading.Lock()
        self._stream: Any = None

    @property
    def seconds(self) -> float:
        """How long the recording is so far."""
        return self._size / (2 * self.rate)

    def take_level(self) -> float:
        """The level since the last call (then starts a new measure)."""
        with self._lock:
            level, self.level = self.level, 0.0
        return level

    def _callback(self, data: Any, frames: int, time: Any, status: Any) -> None:
        chunk = bytes(data)
        loud = peak(chunk)
        with self._lock:
            self.level = max(self.level, loud)
            if self._size < self.limit:
                self._chunks.append(chunk)
                self._size += len(chunk)

    def start(self) -> None:
        """Open the input stream and start taking samples (blocking).

        Raises:
            VoiceUnavailable: No library, no sound system or no microphone.
        """
        sd = load_sounddevice()
        try:
            stream = self._open(sd)
        except (sd.PortAudioError, ValueError):
            # PortAudio lists the devices once, when it starts: a microphone plugged in (or a
            # sound server started) since then is found only after a fresh scan.
            sd._terminate()  # a rescan (private functions; sounddevice has no public one)
            sd._initialize()
            try:
                stream = self._open(sd)
            except (sd.PortAudioError, ValueError) as exc:
                raise VoiceUnavailable(
                    Phrase(QT_TR_NOOP("No microphone could be opened ({error})."), error=str(exc))
                ) from exc
        self._stream = stream

    def _open(self, sd: Any) -> Any:
        """The started input stream (raises what PortAudio raises)."""
        stream = sd.RawInputStream(
            samplerate=self.rate,
            channels=1,
            dtype="int16",
            device=self.device,
            callback=self._callback,
        )
        try:
            stream.start()
        except BaseException:
            stream.close()
            raise
        return stream

    def stop(self) -> bytes:
        """Stop and close the stream (blocking); the recording as WAV bytes."""
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.stop()
            finally:
                stream.close()
        with self._lock:
            samples = b"".join(self._chunks)
        return wav_bytes(samples, self.rate)

    def cancel(self) -> None:
        """Stop and drop what was recorded (blocking)."""
        self.stop()
        with self._lock:
            self._chunks.clear()
            self._size = 0
