"""``notebook_edit``: replace, insert or delete one cell of a Jupyter notebook.

Inserting cell 0 into a notebook that does not exist yet creates it (an empty nbformat 4.5
notebook with a Python kernel), so the agent can start a notebook from scratch.

The notebook is edited as plain nbformat JSON: every other cell and all metadata are kept,
sources are stored as a list of lines as Jupyter does, and the file is written atomically in
Jupyter's own layout (one-space indent, sorted keys). The path is resolved once, by
:func:`~desktop.core.security.paths.open_tool_write`, and the notebook read from and written
into that checked folder.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any, ClassVar

from desktop.core.security.paths import PathDenied, WriteTarget, display_path, open_tool_write
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.untrusted import note_written
from desktop.core.utils.validate import parse_json

MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024


class NotebookError(Exception):
    """A problem with the notebook or the request; the message is for the model."""


def source_lines(text: str) -> list[str]:
    """Jupyter's source layout: lines keep their newline, the last one has none."""
    return text.splitlines(keepends=True)


def new_cell(cell_type: str, source: str, *, with_id: bool) -> dict[str, Any]:
    """A fresh nbformat-4 cell; code cells start without outputs and unexecuted."""
    cell: dict[str, Any] = {"cell_type": cell_type, "metadata": {}, "source": source_lines(source)}
    if cell_type == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
    if with_id:
        cell["id"] = uuid.uuid4().hex[:8]
    return cell


def replace_cell(cell: dict[str, Any], source: str, cell_type: str | None) -> None:
    """Give ``cell`` a new source (and type); old outputs no longer apply and are cleared."""
    kind = cell_type or cell.get("cell_type", "code")
    cell["cell_type"] = kind
    cell["source"] = source_lines(source)
    cell.setdefault("metadata", {})
    if kind == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)


def load_notebook(target: WriteTarget) -> dict[str, Any]:
    """Read and parse the notebook at a checked write target.

    Raises:
        NotebookError: Missing, too large, not JSON, or without a ``cells`` list.
    """
    try:
        data = target.read(MAX_NOTEBOOK_BYTES + 1)
    except FileNotFoundError:
        raise NotebookError("notebook not found") from None
    except (OSError, PathDenied) as exc:
        raise NotebookError(str(exc)) from None
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise NotebookError(f"notebook is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
    try:
        notebook = parse_json(data)
    except ValueError as exc:
        raise NotebookError(f"not valid notebook JSON ({exc})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError("not a notebook (no 'cells' list)")
    return notebook


def empty_notebook() -> dict[str, Any]:
    """A new, empty nbformat 4.5 notebook for Python 3 (what Jupyter writes for "New")."""
    return {
        "cells": [],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dump_notebook(notebook: dict[str, Any]) -> str:
    """Serialise like nbformat does, so diffs stay small."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _uses_cell_ids(notebook: dict[str, Any]) -> bool:
    """nbformat 4.5+ requires an ``id`` on every cell."""
    version = (notebook.get("nbformat", 4), notebook.get("nbformat_minor", 0))
    return version >= (4, 5) or any("id" in c for c in notebook["cells"] if isinstance(c, dict))


def apply_edit(
    notebook: dict[str, Any], index: int, action: str, source: str | None, cell_type: str | None
) -> str:
    """Change ``notebook`` in place and return a past-tense summary (``"Inserted cell 2"``).

    Raises:
        NotebookError: Bad index, missing source, or unknown action.
    """
    cells: list[Any] = notebook["cells"]
    upper = len(cells) if action == "insert" else len(cells) - 1
    if not 0 <= index <= upper:
        raise NotebookError(f"cell_index {index} is out of range (0..{upper}; {len(cells)} cells)")
    if action != "delete" and source is None:
        raise NotebookError(f"source is required for {action}")
    if action == "delete":
        removed = cells.pop(index)
        kind = removed.get("cell_type", "?") if isinstance(removed, dict) else "?"
        return f"Deleted {kind} cell {index}"
    assert source is not None
    if action == "insert":
        kind = cell_type or "code"
        cells.insert(index, new_cell(kind, source, with_id=_uses_cell_ids(notebook)))
        return f"Inserted {kind} cell {index}"
    if action == "replace":
        if not isinstance(cells[index], dict):
            raise NotebookError(f"cell {index} is malformed")
        replace_cell(cells[index], source, cell_type)
        return f"Replaced cell {index} ({cells[index]['cell_type']})"
    raise NotebookError(f"unknown action {action!r}")


class NotebookEditTool(Tool):
    """Edit one cell of a Jupyter notebook."""

    name = "notebook_edit"
    description = (
        "Replace, insert or delete an .ipynb cell; insert at 0 creates a missing notebook."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "cell_index": {"type": "integer", "minimum": 0, "description": "0-based"},
            "action": {"type": "string", "enum": ["replace", "insert", "delete"]},
            "source": {"type": "string"},
            "cell_type": {"type": "string", "enum": ["code", "markdown"]},
        },
        "required": ["path", "cell_index"],
    }

    async def execute(
        self,
        ctx: ToolContext,
        *,
        path: str,
        cell_index: int,
        action: str = "replace",
        source: str | None = None,
        cell_type: str | None = None,
        **_: Any,
    ) -> ToolResult:
        """Apply one cell edit to the notebook at ``path`` and save it atomically."""
        return await asyncio.to_thread(_edit_file, path, ctx, cell_index, action, source, cell_type)


def _edit_file(
    raw: str,
    ctx: ToolContext,
    index: int,
    action: str,
    source: str | None,
    cell_type: str | None,
) -> ToolResult:
    """notebook_edit's blocking part: resolve once, load, change, save into the same folder."""
    try:
        target = open_tool_write(raw, ctx, create_parents=action == "insert")
    except PathDenied as exc:
        return ToolResult.error(f"Error: {exc}")
    except FileNotFoundError:
        return ToolResult.error(
            f"Error: {raw}: notebook not found (insert cell 0 to create a new notebook)"
        )
    except OSError as exc:
        return ToolResult.error(f"Error: {raw}: {exc}")
    with target:
        if target.path.suffix.lower() != ".ipynb":
            return ToolResult.error(f"Error: {raw} is not a .ipynb notebook")
        try:
            if target.existing is None and action == "insert" and index == 0:
                notebook = empty_notebook()
            elif target.existing is None:
                raise NotebookError("notebook not found (insert cell 0 to create a new notebook)")
            else:
                notebook = load_notebook(target)
            summary = apply_edit(notebook, index, action, source, cell_type)
            try:
                note_written(target.write(dump_notebook(notebook).encode("utf-8")))
            except OSError as exc:
                raise NotebookError(f"could not save: {exc}") from None
        except NotebookError as exc:
            return ToolResult.error(f"Error: {raw}: {exc}")
        shown = display_path(target.path, ctx.workspace)
    return ToolResult(f"{summary} in {shown}; it now has {len(notebook['cells'])} cells.")
