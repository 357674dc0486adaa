"""The chat tab's frame in the pseudo locale: the project bar, the model picker and its "Other
model" form, the usage bar, the error banner (every kind), the jump chip, the snackbar, the
"Archive into memory now" action and read aloud. Each is brought into the states that show text
inside :func:`~tests.ui.i18n.pseudo.pseudo_locale`; texts the walker does not read (a progress
bar's text, a toast's text, a context-menu entry's label) are checked by the same rule here.
Then the real zh_CN translation: a few of these widgets show Chinese.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from desktop.ui.chat.archive_action import archived_text
from desktop.ui.chat.composer import Composer
from desktop.ui.chat.error_banner import ERRORS, ErrorBanner
from desktop.ui.chat.jump_chip import JumpChip
from desktop.ui.chat.model_picker import ModelPicker, OtherModelForm
from desktop.ui.chat.project_bar import ProjectBar
from desktop.ui.chat.snackbar import Snackbar
from desktop.ui.chat.usage_bar import UsageBar
from desktop.ui.i18n import install_language
from tests.ui.chat.conftest import MakeChat
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated

MODEL = "gpt-4o-mini"
OTHER = "claude-3-5-haiku"


def _bracketed(text: str, allow: frozenset[str] = frozenset()) -> bool:
    """Whether ``text`` shows no English outside ``⟦…⟧`` (``allow``: data in it)."""
    return not _english(text, allow)


def test_the_project_bar_and_model_picker_show_no_untranslated_text(
    make_chat: MakeChat, qtbot: QtBot, tmp_path: Path
) -> None:
    project = tmp_path / "shop-app"
    project.mkdir()
    with pseudo_locale():
        chat = make_chat()
        tab = chat.tab
        bar: ProjectBar = tab.projects.bar
        key = tab.current
        chat.wait(lambda: tab.projects.scope_of(key) is not None)
        assert untranslated(bar) == []  # no project, Restricted
        tab.projects.choose = lambda parent, caption, start: str(project)
        tab.projects.choose_folder()
        chat.wait(lambda: bar.shown_project == str(project))
        assert untranslated(bar, allow=["shop-app", str(project)]) == []
        chat.services.config.tools.restrict_to_workspace = True
        chat.services.configChanged.emit()
        chat.wait(lambda: not bar.note.isHidden())  # Full access refused, and why
        assert untranslated(bar, allow=["shop-app", str(project)]) == []
        bar.show_problem("")

        picker: ModelPicker = tab.pane.picker
        data = frozenset({MODEL, OTHER, "fast", "OpenAI"})
        picker.presets = [("fast", OTHER)]
        picker.recent = [{"model": MODEL, "provider": "openai"}, {"model": OTHER, "provider": ""}]
        for own in (False, True):
            picker.set_model(MODEL, "openai", via="OpenAI", own=own, default=(OTHER, "auto"))
            menu = picker.menu()
            assert isinstance(menu, QMenu)
            menu.aboutToShow.emit()  # fills it
            assert untranslated(picker, allow=data) == []
        picker.set_preset("fast")
        menu.aboutToShow.emit()
        assert untranslated(picker, allow=data) == []
        picker.set_model("", "auto")
        assert untranslated(picker, allow=data) == []  # "No model", "none"

        form: OtherModelForm = tab.pane.other_model

        async def listing(provider: str) -> list[str]:
            return [MODEL, OTHER]

        form.fetch = listing
        form.spawn = tab._spawn
        form.open(MODEL, "openai")
        chat.wait(lambda: form.model.count() == 2)
        brands = [form.provider.itemText(i) for i in range(1, form.provider.count())]
        assert untranslated(form, allow=[*data, *brands]) == []
        form.model.setEditText("")
        form._use()  # nothing typed: it says what is missing
        assert untranslated(form, allow=[*data, *brands]) == []


def test_the_frame_shows_no_untranslated_text(
    make_chat: MakeChat, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    with pseudo_locale():
        chat = make_chat()
        tab = chat.tab
        usage = tab.pane.findChild(UsageBar)
        assert usage is not None
        assert untranslated(usage) == [] and _bracketed(usage.meter.text())  # nothing known
        usage.set_turn(1234, 56, 0.0012)
        usage.set_context(3000, 8000)
        assert untranslated(usage) == [] and _bracketed(usage.meter.text())
        assert _bracketed(usage.turn.text()), usage.turn.text()  # "1,234 in · 56 out · $…"

        banner: ErrorBanner = tab.pane.banner
        details = "litellm.AuthenticationError: 401 bad key"
        for kind in (*ERRORS, "something else"):
            banner.show_error(kind, "", details)
            banner.details_button.setChecked(True)
            assert untranslated(banner, allow=[details]) == [], kind

        chip = tab.pane.findChild(JumpChip)
        assert chip is not None
        chip.pop_up()
        assert untranslated(chip) == [] and all(_bracketed(a) for a in chip.announced)

        snackbar = tab.findChild(Snackbar)
        assert snackbar is not None and untranslated(snackbar) == []

        # "Archive into memory now": the ⋯ menu's entry and what it says after archiving
        # (the menu's other entries are the conversation pane's)
        assert _bracketed(tab.pane.more.toolTip()) and _bracketed(tab.archiver.action.text())
        tab.archiver.action.trigger()
        toast = tab.pane.copied
        chat.wait(lambda: toast.isVisible() and toast.text())
        assert _bracketed(toast.text())
        assert all(_bracketed(archived_text(n)) for n in (0, 1, 7))

        # read aloud: the answer's context-menu entry, before and while reading
        reader = tab.pane.view.reader
        reader.program = reader.program or "espeak-ng"
        entry = reader.action("The oven is hot.")
        assert entry is not None and _bracketed(entry[0])
        reader.text = "The oven is hot."  # being read (no process is started here)
        entry = reader.action("The oven is hot.")
        reader.text = None
        assert entry is not None and _bracketed(entry[0])


def test_the_frame_shows_chinese_with_the_zh_cn_translation(qtbot: QtBot) -> None:
    try:
        assert install_language("zh_CN") == "zh_CN"
        composer = Composer()
        qtbot.addWidget(composer)
        composer.set_ready(True)
        assert composer.send.text() == "发送"
        composer.set_busy(True)
        assert composer.send.text() == "停止"
        banner = ErrorBanner()
        qtbot.addWidget(banner)
        banner.show_error("auth", "")
        assert banner.retry.text() == "重试"
        assert banner.settings.text() == "服务商设置"
        assert banner.label.text() == "模型调用失败。请在服务商设置中检查密钥。"
        bar = ProjectBar()
        qtbot.addWidget(bar)
        assert "无项目（工作区）" in bar.folder.text()
        assert bar.mode.itemText(0) == "受限"
        assert "项目文件夹" in bar.folder.accessibleName()
        usage = UsageBar()
        qtbot.addWidget(usage)
        usage.set_context(2000, 8000)
        assert usage.meter.text() == "上下文 25%"
        snackbar = Snackbar()
        qtbot.addWidget(snackbar)
        assert snackbar.accessibleName() == "通知"
    finally:
        install_language("en")
