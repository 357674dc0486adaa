"""Text nested beyond the parsers' reach, wherever outside text is parsed.

The standard JSON parser (and PyYAML) raise :class:`RecursionError` on such text, which code
catching ``ValueError`` lets escape: a model's tool arguments, a skill it wrote, a line in a
session file or a notebook would then fail every turn. Each reader must turn it into its own
ordinary error instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.engine.skills import SkillFormatError, parse_skill
from desktop.core.providers.sanitize import parse_tool_arguments
from desktop.core.security.paths import default_protected_paths
from desktop.core.session import sync
from desktop.core.session.manager import SessionManager
from desktop.core.session.search import search_sessions
from desktop.core.tools.base import ToolContext
from desktop.core.tools.notebook import NotebookEditTool
from desktop.core.utils.validate import parse_json

DEPTH = 100_000
DEEP = "[" * DEPTH + "]" * DEPTH  # far past the recursion limit


def test_the_parser_itself_would_raise_recursion_error() -> None:
    """The premise: without the wrapper this text escapes a ``ValueError`` handler."""
    with pytest.raises(RecursionError):
        json.loads(DEEP)
    with pytest.raises(ValueError, match="nested too deeply"):
        parse_json(DEEP)


def test_tool_arguments_from_the_model() -> None:
    """The call is refused with a reason the model reads; nothing raises."""
    arguments, error = parse_tool_arguments('{"path": ' + DEEP + "}")
    assert arguments == {} and error is not None and "not a valid JSON object" in error


@pytest.mark.parametrize(
    "frontmatter",
    [
        f"name: deep\ndescription: d\nmetadata: '{DEEP}'",  # JSON text in metadata
        "name: deep\ndescription: d\nmetadata: " + "[" * 5000 + "]" * 5000,  # YAML nesting
    ],
)
def test_a_skill_written_by_the_model(frontmatter: str) -> None:
    """A SKILL.md nested too deeply is a skill format error (listed as broken)."""
    with pytest.raises(SkillFormatError):
        parse_skill(f"---\n{frontmatter}\n---\nbody\n", "deep")


def test_chat_search_over_a_session_line(tmp_path: Path) -> None:
    """Search skips the line (the reader sets it aside on load) and finds the others."""
    manager = SessionManager(tmp_path)
    session = manager.get_or_create("desktop:a")
    session.add_message("user", "needle in a normal line")
    manager.save(session)
    with manager.path_for("desktop:a").open("a", encoding="utf-8") as handle:
        handle.write('{"role": "user", "content": "needle", "x": ' + DEEP + "}\n")
    hits = search_sessions(SessionManager(tmp_path), "needle")
    assert [hit.key for hit in hits] == ["desktop:a"]


def test_a_session_file_cut_inside_a_deep_line(tmp_path: Path) -> None:
    """A last line without its newline is healed (set aside), whatever its depth."""
    path = tmp_path / "s.jsonl"
    path.write_text('{"_type": "metadata"}\n' + DEEP)
    assert sync.heal_tail(path, tmp_path / "s.jsonl.quarantine")
    assert path.read_text() == '{"_type": "metadata"}\n'
    assert (tmp_path / "s.jsonl.quarantine").read_text() == DEEP + "\n"


def test_a_session_file_whose_first_line_is_deep(tmp_path: Path) -> None:
    """The file is not taken for one with a metadata slot (the next save rewrites it)."""
    path = tmp_path / "s.jsonl"
    path.write_text(DEEP[:2000] + DEEP[-2000:] + "\n")
    shape = sync.file_shape(path)
    assert shape is not None and shape.slot == 0


async def test_a_notebook_nested_too_deeply(tmp_path: Path) -> None:
    """notebook_edit answers with an error the model reads; the file is untouched."""
    (tmp_path / "n.ipynb").write_text(DEEP)
    ctx = ToolContext(
        workspace=tmp_path,
        restrict_to_workspace=True,
        protected_paths=default_protected_paths(tmp_path, None),
    )
    result = await NotebookEditTool().execute(ctx, path="n.ipynb", cell_index=0, action="delete")
    assert result.is_error and "not valid notebook JSON" in result.text
    assert (tmp_path / "n.ipynb").read_text() == DEEP
