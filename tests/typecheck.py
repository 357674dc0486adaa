"""Run mypy (strict, as ``scripts/lint.sh`` does for core) over a snippet, for tests whose
claim is a type error: a slot for the wrong event, an event kind a ``match`` forgets."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def mypy_errors(source: str, folder: Path, name: str = "snippet") -> list[str]:
    """The ``error:`` lines mypy --strict reports for ``source`` (a module named ``name``
    written to ``folder``; ``desktop`` is imported from this checkout)."""
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--hide-error-context",
            "--cache-dir",
            str(folder / ".mypy_cache"),
            "--config-file",
            str(REPO / "pyproject.toml"),
            str(path),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 2: mypy itself failed
    errors = [line for line in done.stdout.splitlines() if " error: " in line]
    assert done.returncode == (1 if errors else 0), done.stdout + done.stderr
    return [re.sub(r"^.*?:\d+: error: ", "", line) for line in errors]


def without_case(source: str, pattern: str) -> str:
    """``source`` with the ``case <pattern>:`` block of a ``match`` removed (the case line and
    the more deeply indented lines below it); fails when there is no such case."""
    lines = source.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.strip() == f"case {pattern}:":
            indent = len(line) - len(line.lstrip())
            end = index + 1
            while end < len(lines) and (
                not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
            ):
                end += 1
            return "".join(lines[:index] + lines[end:])
    raise AssertionError(f"no `case {pattern}:` in the source")
