"""Providers page: every provider of nanobot 0.3.5 is listed; Bedrock's and Azure's own fields
are edited under nanobot's names; AssemblyAI is shown as a transcription-only provider."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.config.provider_registry import PROVIDERS
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.providers_page import ProvidersPage
from tests.ui.conftest import run_async
from tests.ui.settings.conftest import on_disk


def _page(tab: SettingsTab) -> ProvidersPage:
    tab.show_section("providers")
    page = tab.page("providers")
    assert isinstance(page, ProvidersPage)
    return page


def test_every_provider_is_listed_by_name(make_tab: Callable[[], SettingsTab]) -> None:
    page = _page(make_tab())
    shown = [page.list.item(row).text().removesuffix("  ✓") for row in range(page.list.count())]
    assert shown == [spec.display_name for spec in PROVIDERS]
    for name in ("AWS Bedrock", "Azure OpenAI", "xAI Grok (subscription)", "Kimi Coding Plan"):
        assert name in shown


def test_bedrock_region_and_profile_and_azure_api_version_are_saved_as_nanobot_names_them(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    tab = make_tab()
    page = _page(tab)
    bedrock = page.panel("bedrock")
    assert set(bedrock.extras.fields) == {"region", "profile"}
    bedrock.extras.fields["region"].setText("eu-central-1")
    bedrock.extras.fields["profile"].setText("work")
    assert run_async(qtbot, qloop, bedrock.save_endpoint_settings())
    saved = on_disk(config_path)["providers"]["bedrock"]
    assert (saved["region"], saved["profile"]) == ("eu-central-1", "work")

    azure = page.panel("azure_openai")
    assert azure.extras.fields["api_version"].placeholderText() == "2024-10-21"
    azure.api_base.setText("https://example.openai.azure.com")
    azure.extras.fields["api_version"].setText("2025-04-01-preview")
    assert run_async(qtbot, qloop, azure.save_endpoint_settings())
    saved = on_disk(config_path)["providers"]["azureOpenai"]
    assert saved["extraQuery"] == {"api-version": "2025-04-01-preview"}
    assert saved["apiBase"] == "https://example.openai.azure.com"
    azure.extras.fields["api_version"].setText("")
    assert run_async(qtbot, qloop, azure.save_endpoint_settings())
    assert on_disk(config_path)["providers"]["azureOpenai"]["extraQuery"] is None
    assert on_disk(config_path)["providers"]["openai"]["organization"] == "org-123"  # kept


def test_transcription_only_and_signed_in_providers(make_tab: Callable[[], SettingsTab]) -> None:
    """AssemblyAI takes a key but offers no model test or list; Grok is signed in to."""
    page = _page(make_tab())
    assemblyai = page.panel("assemblyai")
    assert assemblyai.key is not None
    assert not assemblyai.form.isRowVisible(assemblyai.test_box)
    assert not assemblyai.form.isRowVisible(assemblyai.models_box)
    grok = page.panel("xai_grok")
    assert grok.key is None and grok.sign_in is not None
    assert grok.sign_in.sign_in_button.text() == "Sign in with xAI"
