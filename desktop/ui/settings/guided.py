"""Parts of a guided settings page: a section that opens on demand ("Advanced") and an emoji
field with a picker that names every emoji.

An emoji drawn without an emoji font is an empty box; the picker's entries and the name beside
the field say which emoji it is either way.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.i18n import tr
from desktop.ui.settings.channel_guides import Reaction


class Collapsible(QWidget):
    """A titled section whose body shows only when the person opens it (closed at first).

    Args:
        title: The toggle's words ("Advanced").
        accessible: The toggle's accessible name.
        parent: Parent widget.
    """

    def __init__(self, title: str, *, accessible: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.toggle = QToolButton()
        self.toggle.setText(title)
        self.toggle.setCheckable(True)
        self.toggle.setChecked(False)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.setAccessibleName(accessible or title)
        font = self.toggle.font()
        font.setBold(True)
        self.toggle.setFont(font)
        self.body = QWidget()
        self.body.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.body)
        self.toggle.toggled.connect(self.set_open)

    @property
    def is_open(self) -> bool:
        """Whether the body shows."""
        return self.toggle.isChecked()

    def set_open(self, open_: bool) -> None:
        """Show or hide the body."""
        if self.toggle.isChecked() != open_:
            self.toggle.setChecked(open_)  # comes back here through ``toggled``
            return
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.body.setVisible(open_)


class LinkText(QLabel):
    """Wrapped rich text with links that open in the browser, drawn in the current theme's
    link colour (Qt fixes a link's colour when the text is set: it is set again when the
    palette changes)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setOpenExternalLinks(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.setText(text)

    def changeEvent(self, event: QEvent) -> None:
        """Lay the text out again in the new palette's link colour."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            text = self.text()
            self.setText("")
            self.setText(text)


class EmojiEdit(QLineEdit):
    """The text of an emoji field (what the config holds)."""

    def choose(self, emoji: str) -> None:
        """Put ``emoji`` in, as if typed (the page notices the change)."""
        self.setText(emoji)
        self.textEdited.emit(emoji)


class EmojiField(QWidget):
    """An emoji field: the emoji, a "Choose" menu of named reactions, and the chosen one's name.

    Args:
        reactions: The emoji the menu offers, with their names.
        accepted: The only emoji the platform accepts (``None``: any); another one is flagged
            beside the field.
        platform: The platform's name, for that flag.
        accessible: The field's accessible name.
        parent: Parent widget.
    """

    def __init__(
        self,
        reactions: Sequence[Reaction],
        *,
        accepted: frozenset[str] | None = None,
        platform: str = "",
        accessible: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.reactions = tuple(reactions)
        self.accepted = accepted
        self.platform = platform or tr("The platform")
        self.edit = EmojiEdit()
        self.edit.setMaximumWidth(90)
        self.edit.setPlaceholderText(tr("none"))
        if accessible:
            self.edit.setAccessibleName(accessible)
        self.choose_button = QPushButton(tr("Choose…"))
        self.choose_button.setAccessibleName(
            tr("Choose {field}").format(field=accessible) if accessible else tr("Choose an emoji")
        )
        self.choose_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.menu = QMenu(self.choose_button)
        for reaction in self.reactions:
            name = tr(reaction.name)
            action = QAction(f"{reaction.emoji}   {name}", self.menu)
            action.setData(reaction.emoji)
            action.triggered.connect(
                lambda _checked=False, emoji=reaction.emoji: self.edit.choose(emoji)
            )
            self.menu.addAction(action)
        self.menu.addSeparator()
        none = QAction(tr("No reaction"), self.menu)
        none.triggered.connect(lambda _checked=False: self.edit.choose(""))
        self.menu.addAction(none)
        self.choose_button.setMenu(self.menu)
        self.name = QLabel()
        self.name.setAccessibleName(
            tr("{field} name").format(field=accessible) if accessible else tr("Emoji name")
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit)
        row.addWidget(self.choose_button)
        row.addWidget(self.name, 1)
        self.edit.textChanged.connect(self._name_it)
        self._name_it(self.edit.text())

    def name_of(self, emoji: str) -> str | None:
        """The name of ``emoji`` among the offered reactions (``None``: not offered)."""
        wanted = _plain(emoji)
        return next((tr(r.name) for r in self.reactions if r.emoji == wanted), None)

    def _name_it(self, text: str) -> None:
        if not text.strip():
            self.name.setText(tr("No reaction"))
            return
        name = self.name_of(text)
        if name is not None:
            self.name.setText(name)
        elif self.accepted is not None and _plain(text) not in self.accepted:
            self.name.setText(
                tr("{platform} does not accept this one: choose from the list").format(
                    platform=self.platform
                )
            )
        else:
            codes = " ".join(f"U+{ord(c):04X}" for c in text.strip())
            self.name.setText(tr("Custom ({codes})").format(codes=codes))


def _plain(emoji: str) -> str:
    """``emoji`` without spaces and variation selectors (``❤️`` and ``❤`` are one reaction)."""
    return emoji.strip().replace("\ufe0f", "")
