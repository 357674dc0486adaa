"""File work behind the Skills tab: create, save, set aside and restore workspace skills.

Qt-free and synchronous; the tab calls these through :func:`asyncio.to_thread`. Nothing here
destroys a file: saving validates first and writes atomically, deleting moves the folder to
``<workspace>/skills/.deleted/`` (which the loader skips: it ignores dot-folders).
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import yaml

from desktop.core.engine.skills import SKILL_FILE, parse_skill, skill_name_problem
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.resources import data_path

DELETED_DIR = ".deleted"
_FENCE = re.compile(r"^```[^\n]*\n(---\n.*?)^```", re.DOTALL | re.MULTILINE)
_FALLBACK_BODY = "# {title}\n\n1. ...\n"


EXISTS = QT_TR_NOOP("A workspace skill called {name} already exists.")


def _title(name: str) -> str:
    return name.replace("-", " ").capitalize()


def _frontmatter(name: str, description: str) -> str:
    fields = {"name": name, "description": " ".join(description.split())}
    dumped = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=10**6)
    return f"---\n{dumped}---\n"


def template_body(name: str) -> str:
    """The body of a new skill, from the example in the builtin ``skill-creator`` skill.

    The example's heading becomes the skill's title; its frontmatter (which names an example
    requirement) is replaced by the caller. Falls back to a heading and one step.
    """
    body = _FALLBACK_BODY
    try:
        guide = data_path("skills", "skill-creator", SKILL_FILE).read_text(encoding="utf-8")
    except OSError:
        guide = ""
    match = _FENCE.search(guide)
    if match:
        example = match.group(1)
        parts = example.split("---\n", 2)
        if len(parts) == 3 and parts[2].strip():
            body = re.sub(r"\A\s*#[ \t][^\n]*", "# {title}", parts[2].lstrip("\n"), count=1)
    return body.replace("{title}", _title(name))


def skill_template(name: str, description: str) -> str:
    """The SKILL.md text of a new skill ``name`` (valid frontmatter, template body)."""
    return _frontmatter(name, description) + "\n" + template_body(name)


def create_skill(workspace: Path, name: str, description: str) -> Path:
    """Create ``skills/<name>/SKILL.md`` from the template and return its path.

    Raises:
        ValueError: The name is not a valid folder name, or the description is empty.
        FileExistsError: A workspace skill (or any file) of that name exists.
    """
    problem = skill_name_problem(name)
    if problem:
        raise ValueError(problem)
    if not description.strip():
        raise ValueError(
            Phrase(QT_TR_NOOP("Say in one line what the skill does and when to use it."))
        )
    folder = Path(workspace) / "skills" / name
    if folder.exists():
        raise FileExistsError(Phrase(EXISTS, name=repr(name)))
    text = skill_template(name, description)
    parse_skill(text, name)  # the template must itself be valid
    folder.mkdir(parents=True)
    atomic_write_text(folder / SKILL_FILE, text)
    return folder / SKILL_FILE


def save_skill(path: Path, text: str) -> None:
    """Validate ``text`` as the SKILL.md of its folder, then write it atomically.

    Raises:
        SkillFormatError: The frontmatter is unusable; the file is left as it was.
    """
    parse_skill(text, path.parent.name)
    atomic_write_text(path, text)


def set_aside_skill(workspace: Path, name: str) -> Path:
    """Move the workspace skill folder ``name`` to ``skills/.deleted/<name>-<time>``.

    Returns:
        Where the folder went (for an undo).

    Raises:
        FileNotFoundError: No such workspace skill.
    """
    skills = Path(workspace) / "skills"
    folder = skills / name
    if not folder.is_dir() or name.startswith(".") or "/" in name:
        raise FileNotFoundError(
            Phrase(QT_TR_NOOP("There is no workspace skill called {name}."), name=repr(name))
        )
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = skills / DELETED_DIR / f"{name}-{stamp}"
    counter = 1
    while target.exists():
        target = skills / DELETED_DIR / f"{name}-{stamp}-{counter}"
        counter += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(folder), str(target))
    return target


def restore_skill(aside: Path, workspace: Path, name: str) -> Path:
    """Move a set-aside skill folder back to ``skills/<name>``; return the SKILL.md path.

    Raises:
        FileExistsError: A skill of that name was created in the meantime.
        FileNotFoundError: The set-aside folder is gone.
    """
    folder = Path(workspace) / "skills" / name
    if folder.exists():
        raise FileExistsError(
            Phrase(
                QT_TR_NOOP("A workspace skill called {name} exists again; not restored."),
                name=repr(name),
            )
        )
    if not aside.is_dir():
        raise FileNotFoundError(
            Phrase(QT_TR_NOOP("{folder} is gone; nothing to restore."), folder=str(aside))
        )
    shutil.move(str(aside), str(folder))
    return folder / SKILL_FILE


def copy_builtin(builtin_file: Path, workspace: Path) -> Path:
    """Copy a builtin skill's folder into the workspace (which then overrides it).

    Raises:
        FileExistsError: The workspace already has a skill of that name.
    """
    source = builtin_file.parent
    folder = Path(workspace) / "skills" / source.name
    if folder.exists():
        raise FileExistsError(Phrase(EXISTS, name=repr(source.name)))
    shutil.copytree(source, folder)
    return folder / SKILL_FILE
