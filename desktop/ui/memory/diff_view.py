"""A coloured unified diff, one section per file, in a read-only plain-text view."""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from desktop.core.memory.git_types import FileDiff
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.files_view import mono_font
from desktop.ui.memory.look import tint, tone

DREAM_CURSOR = "memory/.dream_cursor"
#: How a file's change is named in its header (git's status, in words).
STATUS_LABELS = {
    "added": QT_TR_NOOP("added"),
    "modified": QT_TR_NOOP("modified"),
    "deleted": QT_TR_NOOP("deleted"),
}
_HEADER_PREFIXES = (
    "diff --git",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity",
    "rename ",
)


def hunk_lines(patch: str) -> list[str]:
    """The lines of a patch from its first ``@@`` hunk on (git's file header dropped)."""
    lines = patch.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("@@"):
            return lines[i:]
    return [line for line in lines if not line.startswith(_HEADER_PREFIXES)]


def dream_cursor_note(diff: FileDiff) -> str | None:
    """``Dream has read the history up to #8 (was #5)`` for a change of the dream cursor."""
    if diff.path != DREAM_CURSOR:
        return None
    old = new = None
    for line in hunk_lines(diff.patch):
        if line[:1] in "+-" and line[1:].strip().isdigit():
            if line.startswith("-"):
                old = int(line[1:])
            else:
                new = int(line[1:])
    if new is None:
        return tr("Dream's reading position was removed")
    if old is None:
        return tr("Dream has read the history up to #{new}").format(new=new)
    return tr("Dream has read the history up to #{new} (was #{old})").format(new=new, old=old)


class DiffView(QPlainTextEdit):
    """Shows the per-file changes of one commit: added lines green, removed lines red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(mono_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setAccessibleName(tr("Changes of the selected commit"))
        self.setPlaceholderText(tr("Select a change in the timeline to see what it did."))
        self._diffs: list[FileDiff] = []

    @property
    def diffs(self) -> list[FileDiff]:
        """The file changes shown."""
        return list(self._diffs)

    def set_diffs(self, diffs: list[FileDiff]) -> None:
        """Render ``diffs`` (replacing what was shown)."""
        self._diffs = list(diffs)
        self.clear()
        if not diffs:
            self.setPlaceholderText(tr("This commit changed no files."))
            return
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        plain = QTextCharFormat()
        plain.setFont(self.font())
        first = True
        for diff in diffs:
            header_char = QTextCharFormat(plain)
            header_char.setFontWeight(QFont.Weight.Bold)
            header_block = QTextBlockFormat()
            header_block.setBackground(tint("info", strength=0.10))
            if not first:
                cursor.insertBlock(QTextBlockFormat(), plain)
            cursor_note = dream_cursor_note(diff)
            if cursor_note is not None:  # bookkeeping: one readable line instead of a hunk
                header_char.setFontWeight(QFont.Weight.Normal)
                header_char.setForeground(tone("muted"))
                self._line(cursor, f"{diff.path}   {cursor_note}", header_block, header_char, first)
                first = False
                continue
            status = tr(STATUS_LABELS.get(diff.status, diff.status))
            text = f"{diff.path}   {status}   +{diff.additions} −{diff.deletions}"
            self._line(cursor, text, header_block, header_char, first)
            first = False
            for line in hunk_lines(diff.patch):
                self._line(cursor, line, *self._formats(line, plain), False)
        cursor.endEditBlock()
        self.moveCursor(QTextCursor.MoveOperation.Start)

    @staticmethod
    def _line(
        cursor: QTextCursor, text: str, block: QTextBlockFormat, char: QTextCharFormat, first: bool
    ) -> None:
        if first:
            cursor.setBlockFormat(block)
            cursor.setCharFormat(char)
            cursor.insertText(text, char)
        else:
            cursor.insertBlock(block, char)
            cursor.insertText(text, char)

    @staticmethod
    def _formats(line: str, plain: QTextCharFormat) -> tuple[QTextBlockFormat, QTextCharFormat]:
        block = QTextBlockFormat()
        char = QTextCharFormat(plain)
        if line.startswith("+"):
            block.setBackground(tint("added"))
        elif line.startswith("-"):
            block.setBackground(tint("removed"))
        elif line.startswith("@@"):
            char.setForeground(tone("hunk"))
        elif line.startswith("\\"):
            char.setForeground(tone("muted"))
            char.setFontItalic(True)
        return block, char
