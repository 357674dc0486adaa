"""Every relative link in the README and the guides under docs/ points to something that exists.

A link is ``[text](target)`` or ``![alt](target)`` outside code (fenced blocks and inline code
spans are skipped). Web addresses (``scheme:``) are not followed. A relative target must name an
existing file or folder, relative to the file that links it; a ``#fragment`` must be a heading
of the target Markdown file (GitHub's anchor: lower case, punctuation dropped, spaces to ``-``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def doc_files(root: Path) -> list[Path]:
    """The README, ``packaging/README.md`` and every Markdown file under ``docs/``."""
    files = [root / "README.md", root / "packaging" / "README.md"]
    files += sorted((root / "docs").rglob("*.md"))
    return [f for f in files if f.is_file()]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` outside fenced code blocks, with inline code spans blanked."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(2)
            continue
        if fence is not None:
            if match and match.group(2).startswith(fence[0] * len(fence)):
                fence = None
            continue
        lines.append((number, _CODE_SPAN.sub("", line)))
    return lines


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = _CODE_SPAN.sub(lambda m: m.group(0).strip("`"), heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of every heading in the Markdown file ``path``."""
    found: set[str] = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            found.add(anchor(match.group(1)))
    return found


def broken_links(path: Path) -> list[str]:
    """``file:line: target (why)`` for each relative link in ``path`` that does not resolve."""
    problems: list[str] = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in _LINK.finditer(line):
            target = match.group(1)
            if not target or _SCHEME.match(target):
                continue
            file_part, _, fragment = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.name}:{number}: {target}"
            if not linked.exists():
                problems.append(f"{where} (no such file)")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                problems.append(f"{where} (no heading #{fragment} in {linked.name})")
    return problems


@pytest.mark.parametrize("path", doc_files(ROOT), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    assert broken_links(path) == []


def test_the_readme_links_the_guides() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/ARCHITECTURE.md", "docs/CONTRIBUTING.md", "docs/channels/README.md"):
        assert f"]({target})" in readme, target
    assert "](docs/images/window.png)" in readme
    assert (ROOT / "docs" / "images" / "window.png").stat().st_size < 200_000


def test_every_channel_has_a_guide_in_the_index() -> None:
    index = (ROOT / "docs" / "channels" / "README.md").read_text(encoding="utf-8")
    guides = sorted(p.name for p in (ROOT / "docs" / "channels").glob("*.md"))
    assert [g for g in guides if g != "README.md" and f"]({g})" not in index] == []


def test_no_pointers_outside_the_repository() -> None:
    outside = re.compile(r"\.\./shared/|/work/shared|DESIGN\.md")
    hits = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in doc_files(ROOT)
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if outside.search(line)
    ]
    assert hits == []


def test_a_broken_link_is_reported(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Set up Feishu / Lark\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#set-up-feishu--lark) [web](https://example.org/x.md)\n"
        "[gone](missing.md) ![img](images/none.png)\n"
        "`[code](nowhere.md)`\n"
        "```\n[fenced](nowhere.md)\n```\n"
        "[bad anchor](there.md#set-up-feishu) [own](#nothing-here)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "page.md:2: missing.md (no such file)",
        "page.md:2: images/none.png (no such file)",
        "page.md:7: there.md#set-up-feishu (no heading #set-up-feishu in there.md)",
        "page.md:7: #nothing-here (no heading #nothing-here in page.md)",
    ]
