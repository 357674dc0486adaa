"""Which config fields the generated channel form edits, and which it keeps as they are."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from desktop.core.config import secret_fields
from desktop.core.config.base import ChannelBase
from desktop.core.config.schema import ChannelsConfig
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channel_form import _editable
from desktop.ui.settings.channels_page import ChannelsPage
from tests.ui.settings.pages import page_of


class _Inner(BaseModel):
    policy: str = "open"


class _Sample(BaseModel):
    name: str = ""
    port: int = 0
    interval: float = 1.0
    on: bool = False
    mode: Literal["a", "b"] = "a"
    maybe: str | None = None
    ids: list[str] = []
    nested: _Inner = _Inner()
    table: dict[str, str] = {}
    rows: list[dict[str, str]] = []


def test_flat_fields_get_a_control_and_nested_ones_are_kept() -> None:
    """A text box for a nested section would write a string over it on save."""
    editable = {n for n, info in _Sample.model_fields.items() if _editable(info)}
    assert editable == {"name", "port", "interval", "on", "mode", "maybe", "ids"}


def test_every_field_of_every_channel_is_shown_or_listed() -> None:
    """Every channel field is a control, a keyring field, or named as kept (none vanish)."""
    for name in secret_fields.channel_names():
        model = ChannelsConfig.model_fields[name].annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        for field_name, info in model.model_fields.items():
            shown = _editable(info) or secret_fields.is_secret_field(field_name)
            nested = isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
            assert shown or nested or "dict" in str(info.annotation), (name, field_name)


def test_unused_nanobot_settings_get_no_control_and_are_named(
    make_tab: Callable[[], SettingsTab],
) -> None:
    """A switch that does nothing is a stub: nanobot's settings this app does not use (Telegram's
    webhook and streaming, …) have no control; the form names them as kept, and they stay in the
    file. Every kept field exists in its model."""
    for name in secret_fields.channel_names():
        model = ChannelsConfig.model_fields[name].annotation
        assert isinstance(model, type) and issubclass(model, ChannelBase)
        assert model.kept_fields <= set(model.model_fields), name
    tab = make_tab()
    tab.show_section("channels/telegram")
    form = page_of(tab, "channels", ChannelsPage).form("telegram")
    form.load()
    assert "streaming" not in form.controls and "webhook_url" not in form.controls
    assert "webhook_secret_token" not in form.keys
    assert "token" in form.keys and "allow_from" in form.controls
    assert "streaming" in form.extras.text() and "webhookUrl" in form.extras.text()
