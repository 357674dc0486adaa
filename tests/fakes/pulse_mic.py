"""A real audio path for the voice tests: a private PulseAudio server whose default source is
a pipe (``module-pipe-source``) that the test speaks into, with a WAV made by ``espeak-ng``.

PortAudio (``sounddevice``) reaches it as every Linux program does: ALSA's ``default`` device,
routed to PulseAudio by ALSA's pulse plugin (``libasound2-plugins``), and the server named by
``PULSE_SERVER``. Nothing is mocked between the recorder and the sound server.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
import wave
from pathlib import Path

from tests.waiting import wait_for

RATE = 22_050  # espeak-ng's output rate; the source runs at it, PulseAudio resamples for us
SPOKEN_AFTER = 2 * RATE // 2  # half a second of silence after the speech: it was read


def speak_wav(text: str, path: Path) -> Path:
    """``text`` spoken by ``espeak-ng`` into the WAV file ``path`` (16-bit mono)."""
    subprocess.run(["espeak-ng", "-w", str(path), text], check=True, timeout=60)
    return path


def pcm_of(path: Path) -> bytes:
    """The samples of a 16-bit mono WAV file."""
    with wave.open(str(path), "rb") as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, RATE)
        return wav.readframes(wav.getnframes())


def have_audio_tools() -> str | None:
    """What is missing for a real audio path here, or ``None``."""
    for tool in ("pulseaudio", "pactl", "espeak-ng"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/setup.sh --test installs it)"
    if not Path("/usr/share/alsa/alsa.conf.d/pulse.conf").exists():
        return "ALSA's pulse plugin is missing (libasound2-plugins)"
    return None


REQUIRE_ENV = "NANOBOT_TEST_REQUIRE_AUDIO"


def skip_without_audio() -> str | None:
    """Why the audio tests skip here (``None``: they run). With ``NANOBOT_TEST_REQUIRE_AUDIO=1``
    (as scripts/test.sh sets) they never skip: a missing tool fails them."""
    return None if os.environ.get(REQUIRE_ENV) else have_audio_tools()


class PulseMic:
    """A private PulseAudio server with a pipe microphone. Use as a context manager; while it
    runs, ``PULSE_SERVER`` and ``PULSE_SOURCE`` in ``os.environ`` point at it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.runtime = folder / "run"
        self.fifo = folder / "mic.fifo"
        self.socket = self.runtime / "native"
        self._pid = 0
        self._saved: dict[str, str | None] = {}
        self._queue: queue.Queue[bytes] = queue.Queue()
        self._done = threading.Event()
        self.spoken = threading.Event()
        """Set once what was spoken has been read out of the pipe by the sound server."""
        self._writer = threading.Thread(target=self._feed, name="pulse-mic", daemon=True)

    def __enter__(self) -> PulseMic:
        self.runtime.mkdir(parents=True, mode=0o700)
        env = {**os.environ, "XDG_RUNTIME_DIR": str(self.runtime), "HOME": str(self.folder)}
        # Off the session bus: a server there claims org.PulseAudio1, so a second one (the
        # other test worker's, on the same bus) would refuse to start.
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        subprocess.run(
            [
                "pulseaudio",
                "-n",
                "--daemonize=yes",
                "--exit-idle-time=-1",
                "--use-pid-file=yes",
                f"--log-target=file:{self.folder / 'pulse.log'}",
                f"--load=module-native-protocol-unix socket={self.socket}",
                f"--load=module-pipe-source source_name=testmic file={self.fifo} "
                f"format=s16le rate={RATE} channels=1",
                "--load=module-null-sink sink_name=testout",
            ],
            env=env,
            check=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        pid_file = self.runtime / "pulse" / "pid"
        wait_for(pid_file.exists, what="the PulseAudio server's pid file")
        self._pid = int(pid_file.read_text().split()[0])
        wait_for(self.fifo.exists, what="the pipe source's FIFO")
        for name, value in (("PULSE_SERVER", f"unix:{self.socket}"), ("PULSE_SOURCE", "testmic")):
            self._saved[name] = os.environ.get(name)
            os.environ[name] = value
        self._writer.start()
        return self

    def speak(self, pcm: bytes) -> None:
        """Speak ``pcm`` (16-bit mono at :data:`RATE`) into the microphone next (then wait
        for :attr:`spoken`; one phrase per server)."""
        self._queue.put(pcm)

    def _feed(self) -> None:
        """Write what is spoken, else silence, into the pipe as a microphone would: in real
        time (the pipe source passes on whatever it reads at once, and a client that falls
        behind would overrun) and without end (PortAudio waits for samples when it stops)."""
        silence = bytes(2 * (RATE // 20))  # 50 ms, whole frames (the source needs them)
        behind = -1  # bytes of silence written since the last speech (-1: none spoken yet)
        written = 0
        start = time.monotonic()
        with contextlib.suppress(BrokenPipeError), self.fifo.open("wb", buffering=0) as pipe:
            while not self._done.is_set():
                try:
                    chunk = self._queue.get_nowait()
                    behind = 0
                except queue.Empty:
                    chunk = silence
                    if behind >= 0:
                        behind += len(silence)
                for at in range(0, len(chunk), len(silence)):
                    pipe.write(chunk[at : at + len(silence)])
                    written += len(silence)
                    self._done.wait(max(0.0, start + written / (2 * RATE) - time.monotonic()))
                if behind >= SPOKEN_AFTER:
                    self.spoken.set()

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self._pid:  # first: the feeder may wait on a pipe nobody reads any more
            os.kill(self._pid, signal.SIGTERM)
            wait_for(lambda: not Path(f"/proc/{self._pid}").exists(), what="PulseAudio's exit")
        if self._writer.is_alive():
            self._writer.join(timeout=30)
