"""The first-run setup assistant in the pseudo locale: every step and its messages show no
untranslated text; in the real zh_CN translation it reads Chinese."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.config.loader import load_config
from desktop.core.config.provider_registry import PROVIDERS
from desktop.core.config.secrets import SecretStore
from desktop.ui.i18n import install_language
from desktop.ui.onboarding import OnboardingWizard
from desktop.ui.services import AppServices
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated

KEY = "sk-onboarding-0123456789abcdefXYZ"
BRANDS = [spec.display_name for spec in PROVIDERS]


def fresh_services(tmp_path: Path) -> AppServices:
    """A first start: no config file, a keyring service of its own."""
    path = tmp_path / "home" / ".nanobot" / "config.json"
    return AppServices(
        load_config(path), path, SecretStore(f"nanobot-desktop-test-{uuid.uuid4().hex[:10]}")
    )


def wizard_texts(wizard: OnboardingWizard, *allow: str) -> list[str]:
    """What the assistant shows untranslated: its widgets (the workspace picker, Settings'
    own widget, and the provider list left out) and the provider list's rows (a QListWidget:
    ``untranslated()`` cannot walk its model, so its rows are checked here)."""
    step = wizard.provider_step
    found = untranslated(
        wizard, allow=[*BRANDS, *allow], skip=[step.list, wizard.workspace_step.picker]
    )
    for row in range(step.list.count()):
        item = step.list.item(row)
        for text in (item.text(), str(item.data(Qt.ItemDataRole.AccessibleTextRole) or "")):
            if _english(text, frozenset(BRANDS)):
                found.append(f"provider row: {text!r}")
    return found


def test_every_step_of_the_setup_shows_no_untranslated_text(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Provider list; a cloud provider's key step (its errors, a key already stored); a local
    server's; the custom server tested against the scripted server; the model step (found
    models, none, its errors, a try); the workspace step and its Finish."""
    with pseudo_locale():
        services = fresh_services(tmp_path)
        services.secrets.set("anthropic", "sk-ant-stored-0123456789")
        wizard = OnboardingWizard(services)
        qtbot.addWidget(wizard)
        wizard.show()
        assert wizard.progress.text() == "⟦Step 1 of 4⟧"
        assert wizard_texts(wizard) == []

        wizard.provider_step.select("openai")
        assert run_async(qtbot, qloop, wizard.next())
        connect = wizard.connect_step
        assert wizard_texts(wizard) == []
        assert not run_async(qtbot, qloop, wizard.next())  # no key
        assert connect.status.text().startswith("⟦Paste your API key to go on")
        assert wizard_texts(wizard) == []
        run_async(qtbot, qloop, connect.test())  # no key: "first"
        assert wizard_texts(wizard) == []
        connect.key.setText("two words")
        assert not run_async(qtbot, qloop, wizard.next())
        connect.reveal.setChecked(True)
        assert wizard_texts(wizard) == []
        connect.reveal.setChecked(False)
        connect.key.clear()
        wizard.back()

        for name in ("anthropic", "ollama", "custom"):
            wizard.provider_step.select(name)
            assert run_async(qtbot, qloop, wizard.next())
            if name == "anthropic":  # a key is stored already: the placeholder says so
                qtbot.waitUntil(lambda: "already" in connect.key.placeholderText())
            assert wizard_texts(wizard, "sk-ant-...6789") == [], name
            if name != "custom":
                wizard.back()

        connect.api_base.setText(scripted_server.url)
        connect.key.setText(KEY)
        result = run_async(qtbot, qloop, connect.test(), 30_000)
        assert result is not None and result.ok
        assert connect.status.text().startswith("⟦It works.")
        assert wizard_texts(wizard, scripted_server.url) == []
        assert run_async(qtbot, qloop, wizard.next())  # the key is stored

        model = wizard.model_step
        assert model.about.text().startswith("⟦⟦1 model was found")
        assert wizard_texts(wizard, "scripted-model") == []
        model.setup(model.spec, ["a", "b"], model.api_base)  # type: ignore[arg-type]
        assert wizard_texts(wizard, "scripted-model") == []
        model.setup(model.spec, [], model.api_base)  # type: ignore[arg-type]
        assert wizard_texts(wizard, "scripted-model") == []
        for typed in ("", "two words"):
            model.model.setEditText(typed)
            assert not model.validate()
            assert wizard_texts(wizard) == []
        model.model.setEditText("scripted-model")
        assert run_async(qtbot, qloop, model.try_model(), 60_000)
        assert wizard_texts(wizard, "scripted-model") == []

        assert run_async(qtbot, qloop, wizard.next())
        assert wizard.next_button.text() == "⟦Finish⟧"
        assert wizard_texts(wizard) == []
        wizard.workspace_step.picker.edit.setText("")
        assert not wizard.workspace_step.validate()
        assert wizard.workspace_step.picker.about.text() == "⟦Choose a folder.⟧"
        wizard.close()


def test_the_setup_reads_chinese_in_zh_cn(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
) -> None:
    """The real translation: the first step's texts and buttons, the second step's title."""
    try:
        assert install_language("zh_CN") == "zh_CN"
        wizard = OnboardingWizard(fresh_services(tmp_path))
        qtbot.addWidget(wizard)
        assert wizard.progress.text() == "第 1 步，共 4 步"
        assert wizard.step_title.text() == "选择助手的模型在哪里运行"
        assert (wizard.skip_button.text(), wizard.next_button.text()) == ("暂时跳过", "下一步")
        rows = [wizard.provider_step.list.item(i).text() for i in range(3)]
        assert rows[0] == "云服务"
        wizard.provider_step.select("openai")
        assert run_async(qtbot, qloop, wizard.next())
        assert wizard.step_title.text() == "连接到 OpenAI"
        assert wizard.connect_step.key.placeholderText() == "粘贴你的 API 密钥"
        wizard.close()
    finally:
        install_language("en")
