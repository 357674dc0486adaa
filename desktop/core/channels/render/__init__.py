"""One markdown renderer for every chat platform: parse once, write with the platform's rules.

The model writes CommonMark (with tables and ``~~strike~~``). :func:`render` parses it with
``markdown-it-py`` into a tree and writes each node the way a :class:`~.rules.Rules` table
says: so nesting (``**bold `code` inside**``), underscores inside words and URLs, a ``)``
inside a link target, special characters inside code and unclosed markers come out right on
every platform, which line-by-line regular expressions could not promise.

Blocks are separated as in the source: by a blank line where the source had one, by a line
break where it did not (``# Title`` directly above its text stays directly above it).

Platform rule sets live beside their channel (``slack/mrkdwn.py``: ``MRKDWN``) or in
:mod:`~.rules` when shared (``MARKDOWN``, ``PLAIN``).
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from desktop.core.channels.render.rules import MARKDOWN, PLAIN, Rules

__all__ = ["MARKDOWN", "PLAIN", "Document", "Rules", "plain_text", "render"]

_MD = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_TASK = ("[ ] ", "[x] ", "[X] ")


def render(markdown: str, rules: Rules) -> str:
    """``markdown`` written in the format ``rules`` describe (see the module docstring)."""
    document = Document(markdown)
    return document.write(document.blocks, rules)


class Document:
    """One parse of ``markdown``, for platforms that build structure from its top-level
    blocks (Feishu's card elements: a heading or a table becomes an element of its own).

    Args:
        markdown: The model's answer.
    """

    def __init__(self, markdown: str) -> None:
        source = markdown.replace("\r\n", "\n")
        self._lines = source.split("\n")
        self.blocks: list[SyntaxTreeNode] = SyntaxTreeNode(_MD.parse(source)).children
        """The top-level blocks (``node.type``: ``heading``, ``table``, ``paragraph`` …)."""

    def write(self, nodes: list[SyntaxTreeNode], rules: Rules) -> str:
        """Sibling ``nodes`` written with ``rules``, separated as in the source."""
        return _Writer(rules, self._lines).blocks(nodes).strip("\n")

    def plain(self, node: SyntaxTreeNode) -> str:
        """A heading's or a paragraph's text without marks."""
        return _Writer(PLAIN, self._lines).block(node.children[0]) if node.children else ""

    def cells(self, table: SyntaxTreeNode) -> list[list[str]]:
        """A table's rows (the header first) as plain-text cells."""
        writer = _Writer(PLAIN, self._lines)
        return [
            [writer.inline(c.children[0]).strip() if c.children else "" for c in row.children]
            for section in table.children
            for row in section.children
        ]


def plain_text(markdown: str) -> str:
    """``markdown`` as plain text (no marks; links spelled out)."""
    return render(markdown, PLAIN)


class _Writer:
    """Writes one tree with one rule set."""

    def __init__(self, rules: Rules, lines: list[str]) -> None:
        self.r = rules
        self._lines = lines
        self._bold = 0  # inside bold already (a heading that is bold, nested strong)
        self._cut: set[int] = set()  # text nodes that begin with a task's "[x] "

    # -- blocks ---------------------------------------------------------------------------
    def blocks(self, nodes: list[SyntaxTreeNode], *, tight: bool = False) -> str:
        """Sibling blocks, separated as in the source (tight list items: one line break)."""
        out = ""
        previous: SyntaxTreeNode | None = None
        for node in nodes:
            text = self.block(node)
            if previous is not None:
                out += "\n" if tight or not self._blank_before(node) else "\n\n"
            out += text
            previous = node
        return out

    def block(self, node: SyntaxTreeNode) -> str:
        """One block."""
        r = self.r
        kind = node.type
        if kind == "inline":
            return self.inline(node)
        if kind == "paragraph":
            return self.inline(node.children[0]) if node.children else ""
        if kind == "heading":
            level = int(node.tag[1:]) if node.tag[1:].isdigit() else 1
            self._bold += r.heading_is_bold
            try:
                text = self.inline(node.children[0]) if node.children else ""
            finally:
                self._bold -= r.heading_is_bold
            return r.heading(level, text) if text else ""
        if kind in ("bullet_list", "ordered_list"):
            return self.list(node)
        if kind == "blockquote":
            return r.quote(self.blocks(node.children))
        if kind in ("fence", "code_block"):
            language = node.info.strip().split(" ")[0] if kind == "fence" else ""
            return r.fence(language, r.escape_code(node.content.rstrip("\n")))
        if kind == "table":
            return self.table(node)
        if kind == "hr":
            return r.rule
        return r.escape(node.content.rstrip("\n"))  # html_block (html is off), anything new

    def list(self, node: SyntaxTreeNode) -> str:
        """A list: each item's marker, its first line after it, the rest indented."""
        r = self.r
        start = int(node.attrs.get("start", 1) or 1) if node.type == "ordered_list" else 0
        tight = all(
            c.hidden for item in node.children for c in item.children if c.type == "paragraph"
        )
        items: list[str] = []
        for number, item in enumerate(node.children, start):
            marker = r.ordered(number) if node.type == "ordered_list" else r.bullet
            marker = self._task(item, marker)
            body = self.blocks(item.children, tight=tight)
            first, _, rest = body.partition("\n")
            text = f"{marker} {first}" if first else marker
            if rest:
                text += "\n" + "\n".join(
                    r.indent + line if line else "" for line in rest.split("\n")
                )
            items.append(text)
        return ("\n" if tight else "\n\n").join(items)

    def _task(self, item: SyntaxTreeNode, marker: str) -> str:
        """A task item's marker (its ``[x]``/``[ ]`` taken out of the text), else ``marker``."""
        if self.r.task is None or not item.children or item.children[0].type != "paragraph":
            return marker
        inline = item.children[0].children[0]
        first = inline.children[0] if inline.children else None
        if first is None or first.type != "text" or not first.content.startswith(_TASK):
            return marker
        self._cut.add(id(first))  # its "[x] " is the marker now (the tree stays as parsed)
        return self.r.task[0] if first.content[1] in "xX" else self.r.task[1]

    def table(self, node: SyntaxTreeNode) -> str:
        """A table: header cells and rows, each cell written inline."""
        rows = [
            [self.inline(c.children[0]) if c.children else "" for c in row.children]
            for section in node.children
            for row in section.children
        ]
        if not rows:
            return ""
        return self.r.table(rows[0], rows[1:])

    def _blank_before(self, node: SyntaxTreeNode) -> bool:
        """Whether the source has a blank line right above ``node``."""
        start = node.map[0] if node.map else 0
        return 0 < start <= len(self._lines) and not self._lines[start - 1].strip()

    # -- inline ---------------------------------------------------------------------------
    def inline(self, node: SyntaxTreeNode) -> str:
        """The children of an ``inline`` node (or of a mark)."""
        return "".join(self.span(child) for child in node.children)

    def span(self, node: SyntaxTreeNode) -> str:  # noqa: C901  # one branch per inline kind
        """One inline node."""
        r = self.r
        kind = node.type
        if kind == "text":
            return r.escape(node.content[4:] if id(node) in self._cut else node.content)
        if kind == "softbreak":
            return "\n"
        if kind == "hardbreak":
            return r.hardbreak
        if kind == "code_inline":
            return r.code(r.escape_code(node.content))
        if kind == "strong":
            if self._bold:
                return self.inline(node)
            self._bold += 1
            try:
                return self._mark(r.strong, self.inline(node))
            finally:
                self._bold -= 1
        if kind == "em":
            return self._mark(r.em, self.inline(node))
        if kind == "s":
            return self._mark(r.strike, self.inline(node))
        if kind == "link":
            href = str(node.attrs.get("href", ""))
            label = self.inline(node)
            return r.link("" if label == r.escape(href) else label, href)
        if kind == "image":
            alt = "".join(c.content for c in node.children if c.type == "text") or node.content
            return r.image(alt, str(node.attrs.get("src", "")))
        return r.escape(node.content)  # html_inline (html is off), anything new

    @staticmethod
    def _mark(mark: tuple[str, str], text: str) -> str:
        """``text`` between the mark's open and close (no marks around nothing)."""
        if not text.strip():
            return text
        return f"{mark[0]}{text}{mark[1]}"
