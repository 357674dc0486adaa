"""The config schema's field texts in the pseudo locale: every title, description, unit and
placeholder the Settings pages show is listed for translation and shown through ``tr()``; the
allowances box too. And the real zh_CN translation of this area."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.agent.approval_prefs import policy_from_prefs
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.schema import Config
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import install_language
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.allowances import AllowancesBox
from desktop.ui.settings.provider_extras import extra_fields
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.settings.schema_form import SchemaForm, description_of, field_info, title_of
from desktop.ui.settings.schema_texts import TEXTS
from tests.ui.chat.conftest import write_session
from tests.ui.i18n.pseudo import listed_texts, pseudo_locale, untranslated
from tests.ui.settings.pages import page_of, spin

ROOT = Path(__file__).resolve().parents[3]


def test_every_field_text_of_the_schema_is_listed_for_translation() -> None:
    """The generated list covers the schema (``scripts/translations.py check`` keeps it
    current) and the translation file lists every one of its texts."""
    from desktop.core.config.channels.telegram import TelegramConfig
    from desktop.core.config.provider_schema import BedrockProviderConfig

    listed = listed_texts()
    assert TEXTS and set(TEXTS) <= listed
    for model in (Config, TelegramConfig, BedrockProviderConfig):
        for info in model.model_fields.values():
            for text in (info.title, info.description):
                assert not text or text in TEXTS, text


def test_a_schema_form_shows_titles_descriptions_and_units_through_tr(qtbot: QtBot) -> None:
    with pseudo_locale():
        host = QWidget()
        qtbot.addWidget(host)
        form = SchemaForm(host)
        boxes = [
            form.number(lambda c: c.agents.defaults.max_tokens),
            form.number(lambda c: c.agents.defaults.temperature),
            form.number(lambda c: c.agents.defaults.dream.interval_h),
            form.number(lambda c: c.agents.defaults.dream.max_batch_size),
            form.number(lambda c: c.agents.defaults.idle_compact_after_minutes),
            form.number(lambda c: c.gateway.heartbeat.interval_s),
            form.number(lambda c: c.channels.max_inbound_kb),
        ]
        form.check(lambda c: c.tools.exec.sandbox_network)
        form.lines(lambda c: c.tools.exec.deny_patterns)
        form.check(lambda c: c.agents.defaults.dream.enabled)
        form.load(Config())
        assert untranslated(host) == []
        # A spin box's unit (its suffix) is not walked by untranslated().
        suffixes = [spin(box).suffix() for box in boxes]
        assert [s for s in suffixes if s.strip() and not s.strip().startswith("⟦")] == []
        assert " ⟦tokens⟧" in suffixes and " ⟦KB⟧" in suffixes
        assert title_of("channels.telegram.react_emoji") == "⟦Reaction⟧"
        assert description_of(field_info("agents.defaults.workspace")).startswith("⟦Where")
        assert title_of("agents.defaults.model") == "Model"  # no title: the field's name


def test_the_allowances_box_empty_and_filled_shows_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    prefs_path = tmp_path / "desktop.json"
    prefs_path.write_text(json.dumps({"alwaysAllowedTools": []}))
    store = PrefsStore(prefs_path)
    owner = TaskOwner("prefs")
    policy = policy_from_prefs(store, owner)
    workspace = tmp_path / "ws"
    write_session(workspace, "desktop:trip", [{"role": "user", "content": "plan"}], title="Trip")
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    services = AppServices(config, tmp_path / "config.json", None, policy=policy, prefs=store)  # type: ignore[arg-type]
    with pseudo_locale():
        box = AllowancesBox(services)
        qtbot.addWidget(box)
        try:
            box.show()
            assert box.always_empty.isVisible() and box.chats_empty.isVisible()
            assert untranslated(box) == []
            policy.allow_always("exec")
            policy.allow_for_session("desktop:trip", "write_file")
            box.hide()
            box.show()
            qtbot.waitUntil(lambda: not box.busy)  # the chats' titles are read
            assert "Trip" in box.revoke_buttons[("desktop:trip", "write_file")].accessibleName()
            assert untranslated(box, allow=["exec", "write_file", "Trip"]) == []
        finally:
            for closing in (box.aclose(), owner.aclose()):
                future = asyncio.ensure_future(closing)
                qtbot.waitUntil(future.done)


def test_chinese_shows_on_the_providers_page_and_the_schema_texts(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """The real zh_CN translation: the page, a provider panel, the default model, a field
    title and unit, the Bedrock section's own fields."""
    try:
        assert install_language("zh_CN") == "zh_CN"
        tab = make_tab()
        tab.show_section("providers")
        page = page_of(tab, "providers", ProvidersPage)
        panel = page.panel("openai")
        assert page.setup_button.text() == "用助手设置…"
        assert page.default_model.title() == "默认模型"
        assert panel.test_button.text() == "测试连接"
        assert panel.fetch_button.text() == "获取模型列表"
        # Chinese sentences are joined without the space English puts after a full stop.
        assert "只显示一次。调用费用" in panel.how_to.text() and "。 " not in panel.how_to.text()
        bedrock = page.panel("bedrock")
        about = bedrock.findChildren(QLabel)
        assert any("BEDROCK。Amazon" in label.text() for label in about)
        assert title_of("agents.defaults.max_tokens") == "每次回答的最大令牌数"
        assert title_of("agents.defaults.dream.enabled") == "定期运行梦境整理"
        labels = [label for _, label, _ in extra_fields(page.panel("bedrock").spec)]
        assert labels == ["区域", "配置文件"]
    finally:
        assert install_language("en") == "en"
    assert title_of("agents.defaults.max_tokens") == "Max tokens per answer"
