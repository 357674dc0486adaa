"""The Skills tab: the core's parse errors and skill-file refusals in the window's language
(issue #25 §6, round 2).

Real SKILL.md files that cannot be used, a save the parser refuses, a create or restore that
meets an existing skill: the pseudo locale shows each message bracketed apart from data, zh_CN
shows Chinese, and the English is what it was. A last test walks every kind of broken
frontmatter through the real parser, so a new f-string message there fails it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.engine.skills import (
    SKILL_NAME_MAX,
    SkillFormatError,
    parse_skill,
    skill_name_problem,
)
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language, localized
from desktop.ui.skills import SkillsTab
from desktop.ui.skills.skill_files import restore_skill
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale
from tests.ui.skills.conftest import NOTES
from tests.ui.skills.test_skills_tab import listing, select


def english(text: str, *data: str) -> str:
    """The English wording of ``text`` outside ``⟦…⟧``, ``data`` aside."""
    return _english(text, frozenset(data))


def test_a_broken_skill_and_a_refused_save_read_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: SkillsTab
) -> None:
    broken = listing(tab, "broken", "workspace")
    assert broken.error is not None and broken.error.startswith("frontmatter is not valid YAML: ")
    yaml_says = broken.error.removeprefix("frontmatter is not valid YAML: ")  # PyYAML's data
    with pseudo_locale():
        select(qtbot, tab, listing(tab, "needs-tools", "workspace"))  # shown again, in pseudo
        select(qtbot, tab, broken)
        shown = tab.view.availability.text()
        assert "⟦frontmatter is not valid YAML: " in shown
        assert not english(shown, yaml_says, "b"), shown
        # A save the parser refuses: the name no longer matches the folder.
        select(qtbot, tab, listing(tab, "notes", "workspace"))
        tab.view.edit_button.click()
        qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.editor)
        tab.editor.text.setPlainText(NOTES.replace("name: notes", "name: other"))
        assert run_async(qtbot, qloop, tab.editor.save()) is False
        shown = tab.editor.notice.text
        assert "⟦name 'other' does not match the folder name 'notes'⟧" in shown
        assert not english(shown, "'other'", "'notes'"), shown
    assert install_language("zh_CN") == "zh_CN"
    try:
        assert run_async(qtbot, qloop, tab.editor.save()) is False
        assert "名称 'other' 与文件夹名 'notes' 不一致" in tab.editor.notice.text
    finally:
        install_language("en")


def test_create_and_restore_refusals_read_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: SkillsTab
) -> None:
    with pseudo_locale():
        assert run_async(qtbot, qloop, tab.create("notes", "Another notes skill")) is None
        shown = tab.notice.text
        assert "⟦A workspace skill called 'notes' already exists.⟧" in shown
        assert not english(shown, "'notes'"), shown
        long_name = "a" * (SKILL_NAME_MAX + 1)
        assert run_async(qtbot, qloop, tab.create(long_name, "Too long")) is None
        shown = tab.notice.text
        assert f"⟦A skill name has at most {SKILL_NAME_MAX} characters.⟧" in shown
        assert not english(shown), shown
    aside = workspace / "skills" / ".deleted" / "notes-1"
    aside.mkdir(parents=True)
    with pytest.raises(FileExistsError) as raised:
        restore_skill(aside, workspace, "notes")  # notes exists again
    assert str(raised.value) == "A workspace skill called 'notes' exists again; not restored."
    assert install_language("zh_CN") == "zh_CN"
    try:
        assert localized(raised.value) == "名为 'notes' 的工作区技能又已存在，未恢复。"
        assert run_async(qtbot, qloop, tab.create("notes", "Another notes skill")) is None
        assert "已存在名为 'notes' 的工作区技能。" in tab.notice.text
    finally:
        install_language("en")


BAD_FRONTMATTER = {
    "# no frontmatter\n": "no frontmatter",
    "---\n- a\n- b\n---\n": "frontmatter must be a mapping",
    "---\nname: other\ndescription: x\n---\n": "does not match the folder name",
    "---\nname: s\n---\n": "description is missing",
    "---\nname: s\ndescription: x\nmetadata: '{not json'\n---\n": "metadata is not valid JSON",
    "---\nname: s\ndescription: x\nmetadata: [1]\n---\n": "metadata must be a mapping",
    "---\nname: s\ndescription: x\nmetadata: {nanobot: 1}\n---\n": "metadata.nanobot must be",
    "---\nname: s\ndescription: x\nmetadata: {nanobot: {requires: 1}}\n---\n": "requires must",
    "---\nname: s\ndescription: x\nmetadata: {nanobot: {requires: {bins: 1}}}\n---\n": "list",
    "---\nname: s\ndescription: x\nalways: maybe\n---\n": "must be true or false",
    "---\nname: s\ndescription: [x\n---\n": "not valid YAML",
    "---\nname: s\ndescription: x\nmetadata: " + "[" * 5000 + "\n---\n": "nested too deeply",
}


def test_every_parse_error_is_a_phrase_shown_translated(qtbot: QtBot) -> None:
    with pseudo_locale():
        for text, expected in BAD_FRONTMATTER.items():
            with pytest.raises(SkillFormatError) as raised:
                parse_skill(text, "s")
            said = raised.value.args[0]
            assert expected in str(raised.value), (text, str(raised.value))
            assert isinstance(said, Phrase), said
            shown = localized(raised.value)
            assert shown.startswith("⟦"), shown
            data = [str(value) for value in said.fields.values()]
            assert not english(shown, *data), shown
        problem = skill_name_problem("a" * (SKILL_NAME_MAX + 1))
        assert isinstance(problem, Phrase) and not english(localized(problem))
