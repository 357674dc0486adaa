"""The Qt-free file work behind the Skills tab, and the loader's catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.engine.skills import (
    SkillFormatError,
    SkillsLoader,
    parse_skill,
    skill_name_problem,
)
from desktop.ui.skills.skill_files import (
    copy_builtin,
    create_skill,
    restore_skill,
    save_skill,
    set_aside_skill,
    skill_template,
)
from tests.ui.skills.conftest import NOTES, write_skill


@pytest.mark.parametrize("name", ["a", "pdf-tables", "x2", "a-b-c", "a" * 64])
def test_good_names(name: str) -> None:
    assert skill_name_problem(name) is None


@pytest.mark.parametrize(
    "name", ["", "A", "pdf_tables", "-a", "a-", "a--b", "a b", ".hidden", "a/b", "ä", "a" * 65]
)
def test_bad_names(name: str) -> None:
    assert skill_name_problem(name)


def test_template_is_valid_and_quotes_the_description() -> None:
    text = skill_template("my-skill", "Does X: then Y.\nWhen asked.")
    parsed = parse_skill(text, "my-skill")
    assert parsed.description == "Does X: then Y. When asked."
    assert parsed.bins == () and parsed.env == () and not parsed.always
    assert "# My skill" in text


def test_create_refuses_duplicates_and_bad_input(tmp_path: Path) -> None:
    path = create_skill(tmp_path, "demo", "A demo.")
    assert path == tmp_path / "skills" / "demo" / "SKILL.md" and path.is_file()
    with pytest.raises(FileExistsError):
        create_skill(tmp_path, "demo", "Again.")
    with pytest.raises(ValueError, match="lowercase"):
        create_skill(tmp_path, "Demo", "A demo.")
    with pytest.raises(ValueError, match="one line"):
        create_skill(tmp_path, "other", "  ")
    assert sorted(p.name for p in (tmp_path / "skills").iterdir()) == ["demo"]


def test_save_validates_before_writing(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "notes", NOTES)
    with pytest.raises(SkillFormatError):
        save_skill(path, "no frontmatter at all")
    assert path.read_text(encoding="utf-8") == NOTES
    save_skill(path, NOTES + "more\n")
    assert path.read_text(encoding="utf-8").endswith("more\n")


def test_set_aside_twice_and_restore(tmp_path: Path) -> None:
    write_skill(tmp_path, "notes", NOTES)
    first = set_aside_skill(tmp_path, "notes")
    write_skill(tmp_path, "notes", NOTES + "v2\n")
    second = set_aside_skill(tmp_path, "notes")
    assert first != second and first.is_dir() and second.is_dir()
    assert first.parent == tmp_path / "skills" / ".deleted"
    assert (
        SkillsLoader(tmp_path, builtin_dir=tmp_path / "none").catalog() == []
    )  # dot-folder skipped
    restore_skill(first, tmp_path, "notes")
    with pytest.raises(FileExistsError):
        restore_skill(second, tmp_path, "notes")
    assert (tmp_path / "skills" / "notes" / "SKILL.md").read_text(encoding="utf-8") == NOTES
    with pytest.raises(FileNotFoundError):
        set_aside_skill(tmp_path, "missing")
    with pytest.raises(FileNotFoundError):
        set_aside_skill(tmp_path, ".deleted")


def test_catalog_lists_broken_and_shadowed(tmp_path: Path) -> None:
    builtin = tmp_path / "builtin"
    (builtin / "notes").mkdir(parents=True)
    (builtin / "notes" / "SKILL.md").write_text(NOTES, encoding="utf-8")
    ws = tmp_path / "ws"
    copy_builtin(builtin / "notes" / "SKILL.md", ws)
    write_skill(ws, "bad", "---\nname: bad\n---\n")
    items = SkillsLoader(ws, builtin_dir=builtin).catalog()
    assert [(i.name, i.source) for i in items] == [
        ("bad", "workspace"),
        ("notes", "workspace"),
        ("notes", "builtin"),
    ]
    assert items[0].error == "description is missing" and items[0].skill is None
    assert not items[1].shadowed and items[2].shadowed
    with pytest.raises(FileExistsError):
        copy_builtin(builtin / "notes" / "SKILL.md", ws)
