"""Settings forms generated from the config schema: fields named through the typed config,
labels, tooltips and limits taken from the schema, errors named by the field's title."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.config.schema import Config
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.schema_form import SchemaForm, config_path, field_info, title_of
from desktop.ui.settings.tools_page import ToolsPage
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of


def test_a_field_is_named_by_reading_it_from_the_typed_config() -> None:
    assert config_path(lambda c: c.agents.defaults.max_tokens) == "agents.defaults.max_tokens"
    assert config_path(lambda c: c.gateway.heartbeat.interval_s) == "gateway.heartbeat.interval_s"
    with pytest.raises(KeyError):
        config_path(lambda c: c.agents.defaults.max_token)  # type: ignore[attr-defined]
    with pytest.raises(KeyError):
        config_path(lambda c: c.agents.defaults.max_tokens.real)  # not a field of a model


def test_titles_come_from_the_schema_and_fall_back_to_the_name() -> None:
    assert title_of("agents.defaults.context_window_tokens") == "Context window"
    assert title_of("channels.telegram.react_emoji") == "Reaction"  # a channel's own schema
    assert title_of("agents.defaults.model") == "Model"  # no title: the field's name
    assert title_of("no.such.path") == "Path"


def _row_label(form: QFormLayout, widget: QWidget) -> str:
    label = form.labelForField(widget)
    assert isinstance(label, QLabel)
    return label.text()


def test_controls_take_label_tooltip_limits_and_unit_from_the_schema(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    form = SchemaForm(host)
    tokens = form.number(lambda c: c.agents.defaults.max_tokens)
    temperature = form.number(lambda c: c.agents.defaults.temperature)
    budget = form.number(lambda c: c.agents.defaults.dream.token_budget)
    network = form.check(lambda c: c.tools.exec.sandbox_network)

    assert isinstance(tokens, QSpinBox)
    assert _row_label(form, tokens) == "Max tokens per answer" == tokens.accessibleName()
    assert tokens.toolTip() == field_info("agents.defaults.max_tokens").description
    assert (tokens.minimum(), tokens.maximum(), tokens.singleStep()) == (1, 1_000_000, 256)
    assert tokens.suffix() == " tokens"
    assert (temperature.minimum(), temperature.maximum()) == (0.0, 2.0)  # type: ignore[attr-defined]
    assert budget.minimum() == 1000 and budget.suffix() == " tokens"  # type: ignore[attr-defined]
    assert isinstance(network, QCheckBox)
    assert network.text() == "Let sandboxed commands use the network"

    config = Config.model_validate(
        {"agents": {"defaults": {"maxTokens": 1234, "temperature": 0.7}}, "tools": {}}
    )
    config.tools.exec.sandbox_network = False
    form.load(config)
    assert form.collect() == {
        "agents.defaults.max_tokens": 1234,
        "agents.defaults.temperature": 0.7,
        "agents.defaults.dream.token_budget": 60_000,
        "tools.exec.sandbox_network": False,
    }


def test_a_ui_maximum_is_not_enforced_on_a_loaded_config() -> None:
    """A nanobot config with a value above the form's range still loads (no data refused)."""
    config = Config.model_validate({"agents": {"defaults": {"maxTokens": 5_000_000}}})
    assert config.agents.defaults.max_tokens == 5_000_000


def test_a_refused_value_is_named_by_its_title(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    tab = make_tab()
    tab.show_section("tools")
    page = page_of(tab, "tools", ToolsPage)
    page.deny.set_lines(["(unclosed"])
    page._edited()
    assert not run_async(qtbot, qloop, page.save())
    assert page.status.text().startswith("Deny patterns: line 1: not a valid regular expression")
