"""Voice input in the composer: the microphone button, Ctrl+Shift+Space, a level meter while
recording, and the transcript put into the editor for review (never sent by itself).

Pressing the button (or the shortcut) starts a recording; pressing it again stops it and sends
the recording to the configured transcription provider
(:mod:`desktop.core.providers.transcription`); Esc or Cancel drops it. The recording is kept
under ``<workspace>/media/voice/`` before it is sent, so a failed transcription loses nothing:
"Try again" sends the same file. The recorder's library (the ``voice`` extra) is imported only
when a recording starts; when it is missing the bar says so and, in a source install, offers to
install it (:mod:`desktop.core.utils.extras`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QTextDocumentFragment,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from desktop.core.utils.atomic import atomic_write_bytes
from desktop.core.utils.audio import EXTRA, Recorder, VoiceUnavailable
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import localized, tr

if TYPE_CHECKING:
    from desktop.core.utils.extras import InstallPlan

log = logging.getLogger(__name__)
SHORTCUT = "Ctrl+Shift+Space"
METER_MS = 50
"""How often the meter and the clock are updated while recording."""


class LevelMeter(QWidget):
    """A horizontal bar showing how loud the microphone is (0.0-1.0)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.level = 0.0
        self.setFixedSize(120, 10)
        self.setAccessibleName(tr("Microphone level"))

    def set_level(self, level: float) -> None:
        """Show ``level``: the bar jumps up and falls back gently."""
        self.level = max(min(level, 1.0), self.level * 0.7)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The groove, then the level in the highlight colour."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        groove = QColor(self.palette().text().color())
        groove.setAlphaF(0.15)
        painter.setBrush(groove)
        painter.drawRoundedRect(QRectF(self.rect()), 4, 4)
        width = self.width() * min(1.0, self.level**0.5)  # speech peaks low: a root scale
        painter.setBrush(self.palette().highlight())
        painter.drawRoundedRect(QRectF(0, 0, width, self.height()), 4, 4)


class VoiceBar(QWidget):
    """The strip above the editor while voice input works: state, meter and its buttons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.meter = LevelMeter(self)
        self.stop = QPushButton(tr("Stop and transcribe"), self)
        self.cancel = QPushButton(tr("Cancel"), self)
        self.retry = QPushButton(tr("Try again"), self)
        self.install = QPushButton(tr("Install voice support"), self)
        self.dismiss = QToolButton(self)
        self.dismiss.setText("✕")
        self.dismiss.setAccessibleName(tr("Close"))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.meter, 0, Qt.AlignmentFlag.AlignVCenter)
        for button in (self.stop, self.cancel, self.retry, self.install, self.dismiss):
            row.addWidget(button)
        self.hide()

    def show_state(self, text: str, *buttons: QWidget, meter: bool = False) -> None:
        """Show ``text`` with only ``buttons`` (and the meter when ``meter``); ``text`` is
        plain unless ``meter`` (the recording line, which is ours, has a red dot)."""
        self.label.setTextFormat(Qt.TextFormat.RichText if meter else Qt.TextFormat.PlainText)
        self.label.setText(text)
        plain = QTextDocumentFragment.fromHtml(text).toPlainText() if meter else text
        self.label.setAccessibleName(plain)
        self.meter.setVisible(meter)
        for button in (self.stop, self.cancel, self.retry, self.install, self.dismiss):
            button.setVisible(button in buttons)
        self.show()


class VoiceInput(QObject):
    """The composer's voice input (see the module docstring).

    Attributes:
        app_config: Returns the app's config (the transcription provider and its key); the
            chat tab sets it.
        media_dir: Returns the folder recordings are kept in (``<workspace>/media``).
        recorder_factory: Makes a recorder (a test may pass another microphone).
    """

    def __init__(self, composer: Any, edit: Any, button_parent: QWidget) -> None:
        super().__init__(composer)
        self.composer = composer
        self.edit = edit
        self.app_config: Callable[[], Any] = lambda: None
        self.recorder_factory: Callable[[], Recorder] = Recorder
        self.recorder: Recorder | None = None
        self.kept: Path | None = None
        """The last recording that was not transcribed yet."""
        self.state = "idle"  # idle | starting | recording | transcribing
        self.plan: InstallPlan | None = None
        """How to install the voice extra here (known once it was found missing)."""
        self._started = 0.0
        self._tasks = TaskOwner("voice")
        self.button = QToolButton(button_parent)
        self.button.setText("🎙")
        self.button.setCheckable(True)
        self.button.setToolTip(
            tr("Voice input ({shortcut}): speak, then press again").format(shortcut=SHORTCUT)
        )
        self.button.setAccessibleName(tr("Voice input"))
        self.button.clicked.connect(lambda _checked=False: self.toggle())
        self.bar = VoiceBar(button_parent)
        self.bar.stop.clicked.connect(self.toggle)
        self.bar.cancel.clicked.connect(self.cancel)
        self.bar.retry.clicked.connect(self._retry)
        self.bar.install.clicked.connect(self._install)
        self.bar.dismiss.clicked.connect(self.bar.hide)
        self.keys = QKeySequence(SHORTCUT)
        edit.installEventFilter(self)
        edit.escapePressed.connect(self._escape)
        self.timer = QTimer(self)
        self.timer.setInterval(METER_MS)
        self.timer.timeout.connect(self._tick)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The shortcut, pressed in the editor."""
        if matches(event, self.keys):
            self.toggle()
            return True
        return super().eventFilter(watched, event)

    # -- recording ------------------------------------------------------------------------
    def toggle(self) -> None:
        """Start a recording, or stop the running one and transcribe it."""
        if self.state == "idle":
            self._set_state("starting")
            self._tasks.try_spawn(self._start(), name="voice-start")
        elif self.state == "recording":
            self._set_state("transcribing")
            self._tasks.try_spawn(self._finish(), name="voice-transcribe")
        else:
            self.button.setChecked(self.state != "idle")

    async def _start(self) -> None:
        recorder = self.recorder_factory()
        try:
            await asyncio.to_thread(recorder.start)
        except VoiceUnavailable as exc:
            self._set_state("idle")
            await self._unavailable(exc)
            return
        self.recorder = recorder
        self._started = time.monotonic()
        self._set_state("recording")
        self.timer.start()
        self._tick()

    def _tick(self) -> None:
        recorder = self.recorder
        if recorder is None:
            return
        self.bar.meter.set_level(recorder.take_level())
        seconds = int(time.monotonic() - self._started)
        clock = f"{seconds // 60}:{seconds % 60:02d}"
        self.bar.show_state(
            "<span style='color:#d93025'>●</span> "
            + tr("Recording {time} — Esc cancels").format(time=clock),
            self.bar.stop,
            self.bar.cancel,
            meter=True,
        )

    async def _finish(self) -> None:
        recorder, self.recorder = self.recorder, None
        self.timer.stop()
        if recorder is None:
            self._set_state("idle")
            return
        wav = await asyncio.to_thread(recorder.stop)
        folder = self._folder()
        path = folder / f"voice-{time.strftime('%Y%m%d-%H%M%S')}.wav"
        try:
            await asyncio.to_thread(_keep, path, wav)
        except OSError as exc:
            self._set_state("idle")
            self.bar.show_state(
                tr("The recording could not be kept: {error}").format(error=exc), self.bar.dismiss
            )
            return
        self.kept = path
        await self._transcribe(path)

    async def _transcribe(self, path: Path) -> None:
        from desktop.core.providers.transcription import (
            chosen_spec,
            transcribe,
            transcription_access,
        )

        self._set_state("transcribing")
        self.bar.show_state(tr("Transcribing…"), self.bar.dismiss)
        config = self.app_config()
        try:
            access = await transcription_access(config)
            if access is None:
                spec = chosen_spec(config) if config is not None else None
                raise LookupError(
                    tr("Voice transcription is turned off in the config.")
                    if spec is None
                    else tr(
                        "No {provider} key for transcription: add one in Settings → Providers "
                        "(or choose another transcription provider)."
                    ).format(provider=spec.display_name)
                )
            text = await transcribe(path, access)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown to the person; the file stays
            self._set_state("idle")
            message = str(exc) if isinstance(exc, LookupError) else redact(localized(exc))[:300]
            self.bar.show_state(
                tr("No transcript: {error}\nThe recording is kept: {path}").format(
                    error=message, path=path
                ),
                self.bar.retry,
                self.bar.dismiss,
            )
            return
        self._set_state("idle")
        self.kept = None
        if not text:
            self.bar.show_state(tr("Nothing was heard in the recording."), self.bar.dismiss)
            return
        self.bar.hide()
        self._insert(text)

    def _insert(self, text: str) -> None:
        """Put ``text`` at the cursor, spaced from what is around it, and focus the editor."""
        cursor = self.edit.textCursor()
        before = self.edit.toPlainText()[: cursor.position()]
        if before and not before[-1].isspace():
            text = " " + text
        cursor.insertText(text)
        self.edit.setTextCursor(cursor)
        self.edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def _retry(self) -> None:
        if self.kept is not None and self.state == "idle":
            self._tasks.try_spawn(self._transcribe(self.kept), name="voice-transcribe")

    def cancel(self) -> None:
        """Stop recording and drop it (nothing is kept or sent)."""
        recorder, self.recorder = self.recorder, None
        self.timer.stop()
        if recorder is not None:
            self._tasks.try_spawn(asyncio.to_thread(recorder.cancel), name="voice-cancel")
        self._set_state("idle")
        self.bar.hide()

    def _escape(self) -> None:
        if self.state == "recording":
            self.cancel()

    def _set_state(self, state: str) -> None:
        self.state = state
        self.button.setChecked(state in ("starting", "recording"))
        self.button.setAccessibleName(
            tr("Stop recording") if state == "recording" else tr("Voice input")
        )

    def _folder(self) -> Path:
        media = self.composer.media_dir
        return (Path(media) if media is not None else Path.home()) / "voice"

    # -- the voice extra ------------------------------------------------------------------
    async def _unavailable(self, exc: VoiceUnavailable) -> None:
        if not exc.missing_extra:
            self.bar.show_state(localized(exc), self.bar.dismiss)
            return
        from desktop.core.utils.extras import install_plan

        plan = self.plan = await asyncio.to_thread(install_plan, EXTRA)  # reads pip's records
        if plan is None:
            self.bar.show_state(
                tr("{reason} Install it with: {command}").format(
                    reason=localized(exc), command=f"pip install 'nanobot-desktop[{EXTRA}]'"
                ),
                self.bar.dismiss,
            )
            return
        self.bar.show_state(
            tr("{reason} This runs:\n{command}").format(
                reason=localized(exc), command=plan.command
            ),
            self.bar.install,
            self.bar.dismiss,
        )

    def _install(self) -> None:
        plan = self.plan
        if plan is None:
            return
        self.bar.show_state(tr("Installing voice support…"))
        self._tasks.try_spawn(self._run_install(plan.argv), name="voice-install")

    async def _run_install(self, argv: tuple[str, ...]) -> None:
        from desktop.core.utils.extras import InstallFailed, run_install

        try:
            await run_install(
                argv,
                lambda line: self.bar.label.setText(tr("Installing… {line}").format(line=line)),
            )
        except (InstallFailed, OSError) as exc:
            self.bar.show_state(
                tr("Installing voice support failed:\n{error}").format(error=exc), self.bar.dismiss
            )
            return
        self.bar.show_state(tr("Voice support is installed: press 🎙 to speak."), self.bar.dismiss)

    def close(self) -> None:
        """Stop a recording and cancel the work in flight (the chat closes)."""
        with contextlib.suppress(RuntimeError):  # the window was deleted first
            self.timer.stop()
        recorder, self.recorder = self.recorder, None
        if recorder is not None:
            recorder.cancel()
        self._tasks.cancel()


def _keep(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, data)


def matches(event: QEvent, keys: QKeySequence) -> bool:
    """Whether ``event`` is a key press of ``keys`` (one key with its modifiers)."""
    if not isinstance(event, QKeyEvent) or event.type() != QEvent.Type.KeyPress:
        return False
    return QKeySequence(event.keyCombination()) == keys
