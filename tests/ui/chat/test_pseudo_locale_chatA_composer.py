"""The chat tab's composer in the pseudo locale: every text it shows went through ``tr()``.

The composer (connecting, not connected, ready, busy, image mode, an attachment), the slash and
@-mention pickers, the guidance strip, the temporary-chat notice, the too-long refusal in the
banner and voice input (the extra missing, recording, no transcript) are brought into each state
inside :func:`~tests.ui.i18n.pseudo.pseudo_locale`; :func:`~tests.ui.i18n.pseudo.untranslated`
lists what still shows English. Texts the walker does not read (a completer's rows, its
tooltips) are checked here by the same rule.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView
from pytestqt.qtbot import QtBot

from desktop.core.utils.audio import Recorder, VoiceUnavailable
from desktop.ui.chat.voice import VoiceInput
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated


def _png(path: Path) -> Path:
    """A 1×1 PNG (an attachment)."""
    row = b"\x00\xff\x00\x00"
    chunks = [
        (b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)),
        (b"IDAT", zlib.compress(row)),
        (b"IEND", b""),
    ]
    data = b"\x89PNG\r\n\x1a\n" + b"".join(
        struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        for kind, body in chunks
    )
    path.write_bytes(data)
    return path


class _Silent(Recorder):
    """A microphone that records silence (the recording states, without a sound system)."""

    def start(self) -> None:
        """Nothing to open."""

    def take_level(self) -> float:
        """Silence."""
        return 0.0

    def stop(self) -> bytes:
        """An empty recording."""
        return b"RIFF"

    def cancel(self) -> None:
        """Nothing to close."""


class _Missing(Recorder):
    """The voice extra is not installed (its import fails)."""

    def start(self) -> None:
        """Says the extra is missing."""
        raise VoiceUnavailable("Voice input needs the voice extra.", missing_extra=True)


def _voice_states(chat: ChatHarness, qtbot: QtBot) -> None:
    """Each state of the voice bar, checked as it shows."""
    voice: VoiceInput = chat.tab.pane.composer.voice
    bar = voice.bar
    core = "Voice input needs the voice extra."  # the core's message (not converted yet)
    voice.recorder_factory = _Missing
    voice.toggle()
    chat.wait(lambda: bar.isVisible() and core in bar.label.text())
    command = voice.plan.command if voice.plan is not None else ""
    allow = [core, command, "pip install 'nanobot-desktop[voice]'"]
    assert untranslated(bar, allow=allow) == []
    voice.recorder_factory = _Silent
    voice.toggle()
    chat.wait(lambda: voice.state == "recording" and bar.meter.isVisible())
    assert untranslated(bar) == []
    voice.toggle()  # stop: no Groq key configured, so no transcript; the file is kept
    chat.wait(lambda: bar.retry.isVisible())
    assert voice.kept is not None
    assert untranslated(bar, allow=[str(voice.kept)]) == []
    chat.services.config.transcription.enabled = False
    voice._retry()
    chat.wait(lambda: bar.retry.isVisible() and "⟦Voice transcription" in bar.label.text())
    assert untranslated(bar, allow=[str(voice.kept)]) == []


def test_the_composer_shows_no_untranslated_text(
    make_chat: MakeChat, qtbot: QtBot, tmp_path: Path
) -> None:
    with pseudo_locale():
        chat = make_chat(ready=False)
        tab, composer = chat.tab, chat.tab.pane.composer
        assert untranslated(composer) == []  # connecting…
        chat.services.agentFailed.emit("no key")
        assert "⟦Not connected" in composer.edit.placeholderText()
        chat.make_ready()
        chat.wait(lambda: composer.edit.isEnabled())
        assert untranslated(composer) == []
        composer.set_busy(True)
        assert untranslated(composer) == []
        composer.set_busy(False)
        composer.image_mode.button.setChecked(True)
        assert untranslated(composer) == []
        composer.image_mode.button.setChecked(False)
        picture = _png(tmp_path / "cat.png")
        composer.add_files([str(picture)])
        assert untranslated(composer, allow=[str(picture), picture.name]) == []

        # the slash-command picker: its rows are command names, their tooltips ours
        completer = composer.edit.completer
        model = completer.model()
        tips = [
            str(model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole))
            for row in range(model.rowCount())
        ]
        assert tips and all(tip.startswith("⟦") and tip.endswith("⟧") for tip in tips)
        popup = completer.popup()
        assert isinstance(popup, QAbstractItemView) and untranslated(popup) == []

        # the @-mention picker: a chat (its title is data), a skill without a description,
        # an MCP server
        mentions = composer.edit.mentions
        mentions.set_chats([("groceries", "Groceries", "desktop:x")], [("weather", "")], ["fs"])
        rows = [mentions.model.item(r).text() for r in range(mentions.model.rowCount())]
        allow = frozenset({"@groceries", "Groceries", "@skill:weather", "@mcp:fs"})
        assert len(rows) == 3 and [r for r in rows if _english(r, allow)] == []
        mention_popup = mentions.completer.popup()
        assert mention_popup is not None and untranslated(mention_popup) == []

        # guidance queued for a running answer
        tab.pane.guidance.show_guidance([("g1", "check the oven")])
        assert untranslated(tab.pane.guidance, allow=["check the oven"]) == []

        # a message longer than the limit stays in the composer; the banner says why
        chat.services.config.channels.max_inbound_kb = 1
        chat.send("x" * 5000)
        chat.wait(lambda: tab.pane.banner.isVisible())
        assert untranslated(tab.pane.banner) == []

        # a temporary chat's notice
        tab.new_temporary_chat()
        chat.wait(lambda: tab.pane.temporary.isVisible())
        assert untranslated(tab.pane.temporary) == []

        _voice_states(chat, qtbot)
