"""The pseudo-locale check: every text the window shows went through the translation system.

:class:`PseudoTranslator` answers every text listed in ``resources/translations/nanobot_zh_CN.ts``
(and every text of Qt's own contexts) as ``⟦text⟧``. A test installs it, builds a part of the
window, brings it into the states to check, and asks :func:`untranslated` for what is shown
without the brackets: text that never went through ``tr()``, or went through it without being
listed (an f-string, a value nobody marked with ``QT_TR_NOOP``). Text that is data rather than
wording (a chat's title, a model id, a path, a brand) is named by the test (``allow``) or is in
:data:`ALWAYS_ALLOWED`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QAbstractItemModel, QCoreApplication, QModelIndex, Qt, QTranslator
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

ROOT = Path(__file__).resolve().parents[3]
TS_FILE = ROOT / "resources" / "translations" / "nanobot_zh_CN.ts"
OPEN, CLOSE = "⟦", "⟧"

# Names and notations that stay as they are in every language (brands, protocols, units, keys).
ALWAYS_ALLOWED: frozenset[str] = frozenset(
    {
        "nanobot",
        "nanobot Desktop",
        "OpenAI",
        "Anthropic",
        "OpenRouter",
        "DeepSeek",
        "Groq",
        "Gemini",
        "Ollama",
        "LiteLLM",
        "Telegram",
        "Discord",
        "Slack",
        "Matrix",
        "Feishu",
        "DingTalk",
        "WhatsApp",
        "Email",
        "QQ",
        "WeCom",
        "Weixin",
        "Mattermost",
        "Signal",
        "Microsoft Teams",
        "NapCat",
        "Mochat",
        "WebSocket",
        "MCP",
        "API",
        "URL",
        "JSON",
        "HTTP",
        "HTTPS",
        "SMTP",
        "IMAP",
        "TLS",
        "SSL",
        "OK",
        "Ctrl",
        "Shift",
        "Alt",
        "Esc",
        "Enter",
        "Tab",
        "KB",
        "MB",
        "GB",
        "ms",
        "USD",
        "AGENTS.md",
        "SOUL.md",
        "USER.md",
        "MEMORY.md",
        "HISTORY.md",
        "HEARTBEAT.md",
        "TOOLS.md",
        "SKILL.md",
        "config.json",
        "desktop.json",
        "git",
        "cron",
        "Markdown",
        "PDF",
        "English",
        "简体中文",
        "WeChat",
        "signal-cli",
    }
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")
_MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")  # innermost first (nested by format)
_TAG = re.compile(r"<[^>]+>")
_DATA = re.compile(
    r"(https?://\S+|[\w.+-]+@[\w.-]+|~?/[\w./ -]*|\b[\w-]+\.(?:md|json|py|txt|png|jpg|pdf)\b"
    r"|\b\d[\w.:%-]*\b|&\w+;)"
)


def listed_texts(path: Path = TS_FILE) -> frozenset[str]:
    """The English texts the translation file lists."""
    if not path.exists():
        return frozenset()
    return frozenset(m.findtext("source") or "" for m in ET.parse(path).getroot().iter("message"))


class PseudoTranslator(QTranslator):
    """``⟦text⟧`` for every listed text (ours) and every text of Qt's own contexts."""

    def __init__(self, listed: Iterable[str]) -> None:
        super().__init__()
        self.listed = frozenset(listed)

    def isEmpty(self) -> bool:
        """Never empty (Qt skips empty translators)."""
        return False

    def translate(
        self,
        context: str,
        source: str,
        disambiguation: str | None = None,
        n: int = -1,
    ) -> str | None:
        """The text in brackets when it is listed (or Qt's own); ``None`` else: Qt then shows
        the English (an empty string would count as a translation and hide the text)."""
        if source and (context or source in self.listed):
            return f"{OPEN}{source}{CLOSE}"
        return None


@contextmanager
def pseudo_locale() -> Iterator[PseudoTranslator]:
    """Install the pseudo translator while the block runs (build the widgets inside it)."""
    app = QCoreApplication.instance()
    assert app is not None, "a QApplication is needed (the qtbot fixture)"
    translator = PseudoTranslator(listed_texts())
    assert translator.listed, f"{TS_FILE} lists nothing: run scripts/translations.py update"
    app.installTranslator(translator)
    try:
        yield translator
    finally:
        app.removeTranslator(translator)


def _english(text: str, allow: frozenset[str]) -> str:
    """What is left of ``text`` that reads as English wording (``""``: nothing)."""
    rest = _TAG.sub(" ", text)
    while True:
        unmarked = _MARKED.sub(" ", rest)
        if unmarked == rest:
            break
        rest = unmarked
    for item in sorted(allow | ALWAYS_ALLOWED, key=len, reverse=True):
        if item:
            rest = rest.replace(item, " ")
    rest = _DATA.sub(" ", rest)
    words = [w for w in _WORD.findall(rest) if len(w) > 1]
    return " ".join(words)


def _model_texts(model: QAbstractItemModel | None) -> Iterator[str]:
    if model is None:
        return
    for orientation in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
        count = model.columnCount(QModelIndex()) if orientation == Qt.Orientation.Horizontal else 0
        for section in range(count):
            value = model.headerData(section, orientation, Qt.ItemDataRole.DisplayRole)
            if isinstance(value, str):
                yield value


def shown_texts(widget: QWidget) -> Iterator[tuple[str, str]]:
    """(what, text) for every text ``widget`` itself shows or tells a screen reader."""
    kind = type(widget).__name__
    yield f"{kind} tooltip", widget.toolTip()
    yield f"{kind} accessible name", widget.accessibleName()
    yield f"{kind} accessible description", widget.accessibleDescription()
    if widget.isWindow():
        yield f"{kind} window title", widget.windowTitle()
    if isinstance(widget, QLabel):
        yield "label", widget.text()
    elif isinstance(widget, QAbstractButton):
        yield "button", widget.text()
    elif isinstance(widget, QGroupBox):
        yield "group", widget.title()
    elif isinstance(widget, QLineEdit | QTextEdit | QPlainTextEdit):
        yield "placeholder", widget.placeholderText()
    elif isinstance(widget, QComboBox):
        for index in range(widget.count()):
            yield "choice", widget.itemText(index)
    elif isinstance(widget, QTabBar):
        for index in range(widget.count()):
            yield "tab", widget.tabText(index)
            yield "tab tooltip", widget.tabToolTip(index)
    elif isinstance(widget, QAbstractItemView):
        for text in _model_texts(widget.model()):
            yield "header", text
    if isinstance(widget, QMenu) or widget.actions():
        for action in widget.actions():
            yield "action", action.text()
            yield "action tooltip", action.toolTip() if action.toolTip() != action.text() else ""


def untranslated(
    root: QWidget, allow: Iterable[str] = (), *, skip: Iterable[QWidget] = ()
) -> list[str]:
    """Every text under ``root`` (itself included, hidden widgets too) that shows English
    wording outside ``⟦…⟧``, as ``"<what> in <ObjectClass>: <text>"``.

    Args:
        root: The widget to walk.
        allow: Data the test put on screen (titles, names, model ids) and any other text that
            is not wording to translate.
        skip: Widgets (with everything in them) that show the person's own content.
    """
    allowed = frozenset(allow)
    skipped = set(skip)
    found: list[str] = []
    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        if any(w is widget or w.isAncestorOf(widget) for w in skipped):
            continue
        for what, text in shown_texts(widget):
            if text and _english(text, allowed):
                owner = type(widget.parentWidget() or widget).__name__
                found.append(f"{what} in {owner}: {text!r}")
    return sorted(set(found))
