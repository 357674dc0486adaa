"""One skill, read-only: facts, availability and its SKILL.md rendered as markdown."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine.skills import SkillListing, split_frontmatter
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.look import mute, tone
from desktop.ui.phrase_text import shown

READ_ONLY_TIP = QT_TR_NOOP(
    "Builtin skills are read-only. Copy it to the workspace to change it; the copy "
    "then replaces the builtin."
)


def explain_missing(missing: tuple[str, ...]) -> str:
    """``("binary: gh", "env: TOKEN")`` in words."""
    parts = []
    for item in missing:
        kind, _, name = item.partition(": ")
        if kind == "binary":
            parts.append(
                tr("the program <b>{name}</b> is not installed (not on PATH)").format(
                    name=html.escape(name)
                )
            )
        elif kind == "env":
            parts.append(
                tr("the environment variable <b>{name}</b> is not set").format(
                    name=html.escape(name)
                )
            )
        else:
            parts.append(html.escape(item))
    return "; ".join(parts)


class SkillView(QWidget):
    """Shows a skill: name, source, always-on, availability, path and the rendered body.

    Signals:
        editRequested(object): edit this workspace :class:`SkillListing`.
        deleteRequested(object): delete this workspace skill.
        copyRequested(object): copy this builtin skill into the workspace.
    """

    editRequested = Signal(object)
    deleteRequested = Signal(object)
    copyRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._listing: SkillListing | None = None
        self.title = QLabel(self)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setAccessibleName(tr("Skill name"))
        self.facts = QLabel(self)
        self.facts.setAccessibleName(tr("Skill facts"))
        self.facts.setWordWrap(True)
        self.availability = QLabel(self)
        self.availability.setWordWrap(True)
        self.availability.setAccessibleName(tr("Availability"))
        self.availability.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path = QLabel(self)
        self.path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path.setAccessibleName(tr("SKILL.md location"))
        mute(self.path)
        self.path.setWordWrap(True)
        self.edit_button = QPushButton(tr("Edit"), self)
        self.edit_button.setAccessibleName(tr("Edit skill"))
        self.copy_button = QPushButton(tr("Copy to workspace"), self)
        self.copy_button.setAccessibleName(tr("Copy builtin skill to the workspace"))
        self.copy_button.setToolTip(
            tr("Make an editable copy in the workspace; it replaces the builtin")
        )
        self.delete_button = QPushButton(tr("Delete…"), self)
        self.delete_button.setAccessibleName(tr("Delete skill"))
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(True)
        self.browser.setAccessibleName(tr("SKILL.md rendered"))
        self.browser.document().setDocumentMargin(12)

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        for button in (self.edit_button, self.copy_button, self.delete_button):
            top.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.facts)
        layout.addWidget(self.availability)
        layout.addWidget(self.path)
        layout.addWidget(self.browser, 1)
        self.edit_button.clicked.connect(lambda: self._emit(self.editRequested))
        self.delete_button.clicked.connect(lambda: self._emit(self.deleteRequested))
        self.copy_button.clicked.connect(lambda: self._emit(self.copyRequested))
        self.set_skill(None, "")

    @property
    def listing(self) -> SkillListing | None:
        """The skill shown."""
        return self._listing

    def set_skill(
        self, listing: SkillListing | None, text: str, *, workspace_has_copy: bool = False
    ) -> None:
        """Show ``listing`` with its SKILL.md ``text``."""
        self._listing = listing
        if listing is None:
            self.title.setText(tr("No skill selected"))
            for label in (self.facts, self.availability, self.path):
                label.clear()
            self.availability.hide()
            self.browser.setMarkdown(tr("Select a skill on the left to read it."))
            for button in (self.edit_button, self.copy_button, self.delete_button):
                button.hide()
            return
        workspace = listing.source == "workspace"
        self.title.setText(listing.name)
        facts = [tr("Workspace skill") if workspace else tr("Builtin skill (read-only)")]
        if listing.skill is not None:
            facts.append(
                tr("always on: its whole text is in every prompt")
                if listing.skill.always
                else tr("loaded when needed")
            )
        if listing.shadowed:
            facts.append(tr("replaced by the workspace skill of the same name"))
        self.facts.setText("  ·  ".join(facts))
        self.path.setText(str(listing.path))
        self._set_availability(listing)
        _, body = split_frontmatter(text)
        if listing.error:
            self.browser.setPlainText(text)
        else:
            description = listing.skill.description if listing.skill else ""
            self.browser.setMarkdown(f"*{description}*\n\n{body}" if description else body)
        self.edit_button.setVisible(True)
        self.edit_button.setEnabled(workspace)
        self.edit_button.setToolTip(tr("Edit SKILL.md") if workspace else tr(READ_ONLY_TIP))
        self.delete_button.setVisible(workspace)
        self.copy_button.setVisible(not workspace)
        self.copy_button.setEnabled(not workspace_has_copy)

    def _set_availability(self, listing: SkillListing) -> None:
        self.availability.show()
        if listing.error:
            color, text = (
                tone("error"),
                tr(
                    "<b>Not usable</b> — {reason}. The assistant skips this skill until it is "
                    "fixed."
                ).format(reason=html.escape(shown(listing.error))),
            )
        elif listing.skill is not None and not listing.skill.available:
            color = tone("warning")
            text = tr(
                "<b>Unavailable</b> — {missing}. The assistant sees the skill but is told it "
                "cannot use it yet."
            ).format(missing=explain_missing(listing.skill.missing))
        else:
            color, text = tone("success"), tr("<b>Available</b> — everything it needs is here.")
            requires = []
            if listing.skill is not None:
                requires = [*listing.skill.requires_bins, *listing.skill.requires_env]
            if requires:
                needs = tr("Needs: {items}.").format(
                    items=", ".join(html.escape(r) for r in requires)
                )
                text = f"{text} {needs}"
        self.availability.setText(f"<span style='color:{color.name()}'>{text}</span>")

    def _emit(self, signal: SignalInstance) -> None:
        if self._listing is not None:
            signal.emit(self._listing)
