"""Closing the Settings tab ends the tasks of every widget inside its pages.

The providers page holds a default-model box and provider panels (each with a key field), the
agent page a workspace picker, the tools page the allowances box and a key field, the channels
page channel forms with key fields: each starts its own tasks. ``SettingsTab.aclose`` must
cancel and await all of them, not only the pages' own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pytestqt.qtbot import QtBot

from desktop.ui.settings import SettingsTab
from desktop.ui.settings.allowances import AllowancesBox
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.settings.default_model import DefaultModelBox
from desktop.ui.settings.key_field import KeyField
from desktop.ui.settings.provider_panel import ProviderPanel
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.settings.workspace_picker import WorkspacePicker
from tests.ui.conftest import run_async


async def _in_flight() -> None:
    await asyncio.Future()  # never finishes on its own


def test_closing_the_tab_ends_every_nested_widgets_tasks(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, make_tab: Callable[[], SettingsTab]
) -> None:
    tab = make_tab()
    providers = tab.page("providers")
    assert isinstance(providers, ProvidersPage)
    panel = providers.panel("openai")
    agent = tab.page("agent")
    tools = tab.page("tools")
    channels = tab.page("channels")
    assert isinstance(channels, ChannelsPage)
    form = channels.form("telegram")
    nested: list[Any] = [
        providers.default_model,
        panel,
        panel.key,
        *agent.findChildren(WorkspacePicker),
        *tools.findChildren(AllowancesBox),
        *tools.findChildren(KeyField),
        *form.keys.values(),
    ]
    kinds = {type(widget) for widget in nested}
    assert {DefaultModelBox, ProviderPanel, KeyField, WorkspacePicker, AllowancesBox} <= kinds
    assert form.keys  # telegram's token field
    in_flight: dict[str, asyncio.Task[Any]] = {}
    for index, widget in enumerate(nested):
        task = widget.spawn(_in_flight(), "in-flight")
        assert task is not None
        in_flight[f"{type(widget).__name__}#{index}"] = task
    form_task = form.tasks.try_spawn(_in_flight(), name="in-flight")
    assert form_task is not None
    in_flight["ChannelForm"] = form_task
    pairing_task = channels.pairing.tasks.try_spawn(_in_flight(), name="in-flight")
    assert pairing_task is not None  # the pairing list's reads are the page's too
    in_flight["PairingList"] = pairing_task
    qtbot.waitUntil(lambda: all(not task.done() for task in in_flight.values()))

    run_async(qtbot, qloop, tab.aclose(), 30_000)

    pending = [name for name, task in in_flight.items() if not task.done()]
    assert pending == [], f"still running after SettingsTab.aclose: {pending}"
    assert all(task.cancelled() for task in in_flight.values())
