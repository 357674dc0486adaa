"""Channel pages that guide: what you need first (with how to get it and the platform's link),
then who may talk to the agent, then everything else under a closed "Advanced"; emoji fields
with a picker that names each emoji, drawn in colour (not an empty box)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFont, QImage, QKeyEvent, QPainter, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFormLayout, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.config import secret_fields
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channel_form import ChannelForm
from desktop.ui.settings.channel_guides import GUIDES, TELEGRAM_ACCEPTED
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.settings.guided import EmojiField
from desktop.ui.theme import Theme
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of


def _row_widget(form: ChannelForm, field_name: str) -> QWidget:
    """What the form shows for a field: its key box or its control."""
    if field_name in form.keys:
        return form.keys[field_name]
    control = form.controls[field_name]
    parent = control.parentWidget()
    return parent if isinstance(parent, EmojiField) else control


def _form_order(form: ChannelForm, section: str) -> list[str]:
    """The fields of a section in the order the page shows them."""
    shown = {_row_widget(form, name): name for name in form.sections}
    layout = next(
        f
        for f in form.findChildren(QFormLayout)
        if any(form.sections.get(n) == section for n in _fields_of(f, shown))
    )
    return _fields_of(layout, shown)


def _fields_of(layout: QFormLayout, shown: dict[QWidget, str]) -> list[str]:
    names = []
    for row in range(layout.rowCount()):
        item = layout.itemAt(row, QFormLayout.ItemRole.FieldRole)
        widget = item.widget() if item is not None else None
        if widget in shown:
            names.append(shown[widget])
    return names


def test_every_channel_page_leads_with_what_you_need(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """For every channel: Enable and the essentials first, a how-to paragraph with the
    platform's link, then who may talk (allowFrom first), and every other field inside a
    closed Advanced section, which the keyboard opens."""
    tab = make_tab()
    page = page_of(tab, "channels", ChannelsPage)
    for name in secret_fields.channel_names():
        tab.show_section(f"channels/{name}")
        form = page.form(name)
        guide = GUIDES[name]

        def shown(f: QWidget = form) -> bool:
            return f.isVisible()

        qtbot.waitUntil(shown)
        assert _form_order(form, "essentials") == ["enabled", *guide.essentials], name
        assert _form_order(form, "access")[0] == "allow_from", name
        assert set(_form_order(form, "access")) == set(guide.access), name
        assert guide.link in form.how_to.text() and form.how_to.isVisible(), name
        advanced = [n for n, s in form.sections.items() if s == "advanced"]
        assert set(advanced) == set(form.sections) - {"enabled", *guide.essentials, *guide.access}
        assert not form.advanced.is_open, name
        for field_name in advanced:
            assert not _row_widget(form, field_name).isVisible(), (name, field_name)
        for field_name in ("enabled", *guide.essentials, *guide.access):
            assert _row_widget(form, field_name).isVisible(), (name, field_name)
        if advanced:
            form.advanced.toggle.setFocus()
            qtbot.keyClick(form.advanced.toggle, Qt.Key.Key_Space)
            assert form.advanced.is_open
            assert all(_row_widget(form, f).isVisible() for f in advanced), name


def test_telegram_puts_its_connection_knobs_under_advanced(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """The screenshot of the issue: pool size, pool timeout, Bot API server and proxy sat
    beside the token. Now the page shows the token, where to get it and the allowed senders."""
    tab = make_tab()
    tab.show_section("channels/telegram")
    form = page_of(tab, "channels", ChannelsPage).form("telegram")
    qtbot.waitUntil(form.isVisible)
    for knob in ("connection_pool_size", "pool_timeout", "base_url", "proxy", "mode"):
        assert form.sections[knob] == "advanced"
        assert not form.controls[knob].isVisible()
    assert form.keys["token"].isVisible() and form.controls["allow_from"].isVisible()
    assert "@BotFather" in form.how_to.text() and "/newbot" in form.how_to.text()
    assert form.how_to.openExternalLinks()


def _colourful_pixels(text: str, font: QFont) -> int:
    """How many pixels of ``text`` drawn black on white are clearly coloured (an emoji font
    draws colour; a missing glyph is a box in the text colour)."""
    image = QImage(64, 64, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    font.setPixelSize(40)
    painter.setFont(font)
    painter.setPen(QColor("black"))
    painter.drawText(image.rect(), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    count = 0
    for x in range(image.width()):
        for y in range(image.height()):
            colour = image.pixelColor(x, y)
            channels = (colour.red(), colour.green(), colour.blue())
            count += max(channels) - min(channels) > 60
    return count


def _type(widget: QWidget, text: str) -> None:
    """Type ``text`` as one key press (as an emoji keyboard or input method sends it;
    ``keyClicks`` cannot send characters outside the BMP)."""
    press = QKeyEvent(
        QEvent.Type.KeyPress, Qt.Key.Key_unknown, Qt.KeyboardModifier.NoModifier, text
    )
    QApplication.sendEvent(widget, press)


def test_the_reaction_field_draws_its_emoji_and_names_it(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """Telegram's Reaction: the emoji is drawn in colour, not as an empty box (an emoji font is
    there: setup.sh installs one), its name is beside it, the picker sets it and marks the page changed, one
    Telegram refuses is flagged, and the choice is saved."""
    tab = make_tab()
    tab.show_section("channels/telegram")
    page = page_of(tab, "channels", ChannelsPage)
    form = page.form("telegram")
    field = form.controls["react_emoji"].parentWidget()
    assert isinstance(field, EmojiField)
    assert field.edit.text() == "👀"
    assert field.name.text() == "Eyes"
    names = [action.text() for action in field.menu.actions() if action.text()]
    assert "🤔   Thinking face" in names and names[-1] == "No reaction"
    assert all(a.data() in TELEGRAM_ACCEPTED for a in field.menu.actions() if a.data())
    thinking = next(a for a in field.menu.actions() if a.text().endswith("Thinking face"))
    assert not page.dirty
    thinking.trigger()
    assert field.edit.text() == "🤔" and field.name.text() == "Thinking face"
    assert _colourful_pixels(field.edit.text(), QFont(field.edit.font())) > 100  # yellow
    assert page.dirty
    field.edit.setFocus()
    field.edit.selectAll()
    _type(field.edit, "🚀")
    assert "Telegram does not accept" in field.name.text()
    field.edit.selectAll()
    _type(field.edit, "❤️")  # with the variation selector: Telegram's ❤
    assert "does not accept" not in field.name.text()
    thinking.trigger()
    assert run_async(qtbot, qloop, page.save())
    saved = json.loads(config_path.read_text())["channels"]["telegram"]
    assert saved["reactEmoji"] == "🤔"


def test_every_emoji_field_has_a_picker(make_tab: Callable[[], SettingsTab]) -> None:
    """Discord's reaction and Feishu's tool hint prefix get the picker too; a custom emoji
    is named by its code points, so a system without an emoji font still says what it is."""
    tab = make_tab()
    page = page_of(tab, "channels", ChannelsPage)
    for name, guide in GUIDES.items():
        form = page.form(name)
        for field_name in guide.emoji:
            field = form.controls[field_name].parentWidget()
            assert isinstance(field, EmojiField), (name, field_name)
            assert isinstance(field.name, QLabel) and field.name.text(), (name, field_name)
    discord = page.form("discord").controls["read_receipt_emoji"]
    discord_field = discord.parentWidget()
    assert isinstance(discord_field, EmojiField)
    discord_field.edit.choose("🦀")
    assert discord_field.name.text() == "Custom (U+1F980)"


def _has_pixel(widget: QWidget, colour: QColor) -> bool:
    image = widget.grab().toImage()
    want = colour.rgb()
    return any(
        image.pixelColor(x, y).rgb() == want
        for x in range(image.width())
        for y in range(image.height())
    )


def test_the_platform_link_follows_the_theme(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, qapp: QApplication
) -> None:
    """The link under the how-to is drawn in the dark theme's link colour after a switch to
    dark (Qt keeps a link's colour from when the text was set: dark blue on a dark page)."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    theme = Theme(qapp, "light")
    try:
        tab = make_tab()
        tab.show_section("channels/qq")
        form = page_of(tab, "channels", ChannelsPage).form("qq")
        qtbot.waitUntil(form.how_to.isVisible)
        light_link = qapp.palette().color(QPalette.ColorRole.Link)
        assert _has_pixel(form.how_to, light_link)  # the underline
        theme.set_appearance("dark")
        dark_link = qapp.palette().color(QPalette.ColorRole.Link)
        assert dark_link != light_link
        qtbot.waitUntil(lambda: _has_pixel(form.how_to, dark_link), timeout=2_000)
        assert not _has_pixel(form.how_to, light_link)
    finally:
        theme.setParent(None)
        qapp.setStyleSheet(sheet)
        qapp.setPalette(palette)


def test_tab_walks_the_page_in_the_order_it_reads(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """Keyboard only: from Enable, Tab reaches the token, then Test connection, then the
    allowed senders, then Advanced (not Test first: the buttons were made before the fields)."""
    tab = make_tab()
    tab.show_section("channels/telegram")
    form = page_of(tab, "channels", ChannelsPage).form("telegram")
    enabled = form.controls["enabled"]
    enabled.activateWindow()
    enabled.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(enabled.hasFocus)
    stops: list[QWidget] = []
    for _ in range(20):
        widget = QApplication.focusWidget()
        assert widget is not None
        stops.append(widget)
        if widget is form.advanced.toggle:
            break
        QTest.keyClick(widget, Qt.Key.Key_Tab)
    wanted = [
        form.keys["token"].edit,
        form.test_button,
        form.controls["allow_from"],
        form.controls["group_policy"],
        form.advanced.toggle,
    ]
    assert all(w in stops for w in wanted), stops
    assert [stops.index(w) for w in wanted] == sorted(stops.index(w) for w in wanted), stops
    assert form.controls["pool_timeout"] not in stops  # closed Advanced: no hidden stops


def test_every_channel_is_named_as_its_registry_names_it() -> None:
    """The list, the page title and "Enable the … channel" use the platform's own spelling
    ("WebSocket", "Microsoft Teams", "WeChat"), never a capitalised config key ("Msteams")."""
    from desktop.core.channels.registry import CHANNELS
    from desktop.ui.settings.channel_form import channel_title

    wrong = {
        name: channel_title(name)
        for name, info in CHANNELS.items()
        if not info.display_name.startswith(channel_title(name))
    }
    assert wrong == {}
