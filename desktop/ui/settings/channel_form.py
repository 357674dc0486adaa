"""A form for one chat channel, generated from its config schema."""

from __future__ import annotations

import html
import itertools
import typing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.bus.events import ChannelStatusChanged
from desktop.core.config import secret_fields
from desktop.core.config.base import ChannelBase
from desktop.core.utils.extras import InstallFailed, InstallPlan, install_plan, run_install
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.channel_guides import ChannelGuide, guide_for, heading_of, section_of
from desktop.ui.settings.connect_flow import ConnectSteps
from desktop.ui.settings.guided import Collapsible, EmojiField, LinkText
from desktop.ui.settings.key_backends import field_key_backend
from desktop.ui.settings.key_field import KeyField
from desktop.ui.settings.qr_login import QrLoginPanel
from desktop.ui.settings.widgets import InlineStatus, LinesEdit, heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

_ACRONYMS = {"id": "ID", "imap": "IMAP", "smtp": "SMTP", "url": "URL", "qq": "QQ"}
NOT_RUNNING = QT_TR_NOOP("Not running. Enable it and save: it connects (or use Connect).")


_TITLES = {
    "dingtalk": "DingTalk",
    "whatsapp": "WhatsApp",
    "qq": "QQ",
    "cli": "CLI",
    "websocket": "WebSocket",
    "napcat": "NapCat",
    "msteams": "Microsoft Teams",
    "wecom": "WeCom",
    "weixin": "WeChat",
}
_LINK_STEPS = {
    "whatsapp": QT_TR_NOOP(
        "On your phone open WhatsApp → Settings → Linked devices → Link a device"
    ),
    "weixin": QT_TR_NOOP("On your phone open WeChat → + → Scan"),
}
"""What the person does before scanning a channel's login code (see ``QrLoginPanel``)."""
_LOGIN_NOTES = {
    "weixin": QT_TR_NOOP("A code that expires unscanned is replaced by a new one here.")
}


_DOTS = {
    "connected": "#2da44e",
    "connecting": "#d4a72c",
    "waiting": "#d4a72c",  # up, but waiting for the person (a QR code to scan)
    "error": "#cf222e",
    "unavailable": "#cf222e",
    "stopped": "#8c959f",
}


def status_dot(state: str) -> QIcon:
    """A small filled circle in the colour of a channel state (``off``: hollow grey)."""
    pixmap = QPixmap(12, 12)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    colour = QColor(_DOTS.get(state, _DOTS["stopped"]))
    painter.setPen(colour)
    if state != "off":
        painter.setBrush(colour)
    painter.drawEllipse(2, 2, 8, 8)
    painter.end()
    return QIcon(pixmap)


def channel_title(name: str) -> str:
    """``whatsapp`` → ``WhatsApp``."""
    return _TITLES.get(name, name.capitalize())


def field_label(name: str) -> str:
    """``imap_host`` → ``IMAP host``."""
    words = [_ACRONYMS.get(word, word) for word in name.split("_")]
    first = words[0] if words[0].isupper() else words[0].capitalize()
    return " ".join([first, *words[1:]])


def _literal_choices(info: FieldInfo) -> list[str] | None:
    """The choices of a ``Literal[...]`` field; ``Literal[...] | None`` adds ``""`` (unset)."""
    annotation = info.annotation
    if typing.get_origin(annotation) is typing.Literal:
        return [str(v) for v in typing.get_args(annotation)]
    args = typing.get_args(annotation)
    literals = [a for a in args if typing.get_origin(a) is typing.Literal]
    if literals and type(None) in args:
        return ["", *(str(v) for a in literals for v in typing.get_args(a))]
    return None


def _base_type(info: FieldInfo) -> Any:
    """``int`` / ``bool`` / ``str`` / ``list`` for a field (``str | None`` counts as ``str``)."""
    annotation = info.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if (
        typing.get_origin(annotation)
        in (typing.Union, getattr(__import__("types"), "UnionType", None))
        and args
    ):
        annotation = args[0]
    if typing.get_origin(annotation) is list:
        return list
    return annotation


def _editable(info: FieldInfo) -> bool:
    """Whether the form has a control for the field: text, number, switch, choice or a list
    of strings. Nested sections (a model, a mapping, a list of objects) are kept as they are."""
    if _literal_choices(info) is not None:
        return True
    kind = _base_type(info)
    if kind is list:
        annotation = info.annotation
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        inner = typing.get_args(args[0]) if args and typing.get_origin(args[0]) is list else ()
        inner = inner or typing.get_args(annotation)
        return all(a is str for a in inner)
    return kind in (str, int, float, bool)


def has_control(model: type[BaseModel], field_name: str) -> bool:
    """Whether a channel's form shows a control (or a key box) for ``field_name``."""
    kept = model.kept_fields if issubclass(model, ChannelBase) else frozenset()
    if field_name in kept or field_name not in model.model_fields:
        return False
    return secret_fields.is_secret_model_field(model, field_name) or _editable(
        model.model_fields[field_name]
    )


def _form() -> QFormLayout:
    form = QFormLayout()
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
    return form


def _in_page_order(model: type[BaseModel], guide: ChannelGuide) -> list[str]:
    """The model's fields: ``enabled``, the essentials and the access fields in the guide's
    order, then the others in the schema's."""
    fields = list(model.model_fields)
    first = [f for f in ("enabled", *guide.essentials, *guide.access) if f in fields]
    return [*first, *(f for f in fields if f not in first)]


def _how_to_label(guide: ChannelGuide) -> QLabel:
    """The guide's paragraph with the platform's link (opens in the browser)."""
    text = html.escape(tr(guide.how_to)) if guide.how_to else ""
    if guide.link:
        text += f' <a href="{html.escape(guide.link)}">{html.escape(tr(guide.link_text))}</a>'
    label = LinkText(text)
    label.setAccessibleName(tr("How to get it"))
    label.setVisible(bool(text))
    return label


class ChannelForm(QWidget):
    """Controls for ``channels.<name>``: secret fields go through the keyring.

    Args:
        services: The shared services.
        name: The channel's section name (``telegram``).
    """

    enableRequested = Signal()
    """The person asked to turn the channel on (after a test that worked); the page saves."""

    def __init__(self, services: AppServices, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.name = name
        self.model: type[BaseModel] = type(getattr(services.config.channels, name))
        self.controls: dict[str, QWidget] = {}
        self.keys: dict[str, KeyField] = {}
        self.kept: list[str] = []  # fields with no control here (nested sections)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 0, 4, 0)
        layout.setSpacing(8)
        title = tr(heading_of(self.model, name))
        self.title = heading(title, level=2)
        self.title.setWordWrap(True)  # WhatsApp's is a sentence
        layout.addWidget(self.title)
        self.tasks = TaskOwner(f"channel-form:{name}")
        shown_name = channel_title(name)
        self.status = InlineStatus(
            accessible=tr("{channel} channel status").format(channel=shown_name)
        )
        layout.addWidget(self.status)
        steps = (
            tr(_LINK_STEPS[name])
            if name in _LINK_STEPS
            else tr("Open {channel} on your phone").format(channel=shown_name)
        )
        self.login = (
            QrLoginPanel(steps, note=tr(_LOGIN_NOTES[name]))
            if name in _LOGIN_NOTES
            else QrLoginPanel(steps)
        )
        layout.addWidget(self.login)
        self.guide = guide_for(name)
        layout.addWidget(
            heading(tr("What you need from {channel}").format(channel=shown_name), level=2)
        )
        self.how_to = _how_to_label(self.guide)
        layout.addWidget(self.how_to)
        forms = {section: _form() for section in ("essentials", "access", "advanced")}
        layout.addLayout(forms["essentials"])
        actions = QHBoxLayout()
        self.test_button = QPushButton(tr("Test connection"))
        self.test_button.setAccessibleName(
            tr("Test the {channel} connection").format(channel=shown_name)
        )
        self.test_button.setToolTip(tr("A cheap real call with the values shown here (not saved)"))
        self.connect_button = QPushButton(tr("Connect"))
        self.connect_button.setAccessibleName(
            tr("Connect or disconnect {channel}").format(channel=shown_name)
        )
        self.test_button.clicked.connect(self.test)
        self.connect_button.clicked.connect(self.toggle_connection)
        actions.addWidget(self.test_button)
        actions.addWidget(self.connect_button)
        actions.addStretch(1)
        layout.addLayout(actions)
        self.test_status = InlineStatus(
            accessible=tr("{channel} test result").format(channel=shown_name)
        )
        layout.addWidget(self.test_status)
        self.steps = ConnectSteps(channel_title(name))
        self.steps.installRequested.connect(self.install)
        self.steps.enableRequested.connect(self.enableRequested)
        layout.addWidget(self.steps)
        layout.addWidget(heading(tr("Who may talk to the agent"), level=2))
        layout.addLayout(forms["access"])
        self.advanced = Collapsible(
            tr("Advanced"), accessible=tr("{channel} advanced").format(channel=shown_name)
        )
        advanced_layout = QVBoxLayout(self.advanced.body)
        advanced_layout.setContentsMargins(0, 0, 0, 0)
        advanced_layout.addLayout(forms["advanced"])
        layout.addWidget(self.advanced)
        self.sections: dict[str, str] = {}  # field → essentials / access / advanced
        rows: dict[str, list[QWidget]] = {section: [] for section in forms}
        unused = self.model.kept_fields if issubclass(self.model, ChannelBase) else frozenset()
        for field_name in _in_page_order(self.model, self.guide):
            info = self.model.model_fields[field_name]
            if field_name in unused:
                self.kept.append(field_name)
                continue
            label = tr(info.title or field_label(field_name))
            path = f"channels.{name}.{field_name}"
            section = section_of(self.guide, field_name)
            form = forms[section]
            if secret_fields.is_secret_model_field(self.model, field_name):
                noun = next(
                    (n for n in ("password", "token", "secret") if field_name.endswith(n)), "key"
                )
                key = KeyField(
                    field_key_backend(services, path), label=f"{title} {label.lower()}", noun=noun
                )
                self.tasks.adopt(key.tasks)
                self.keys[field_name] = key
                self.sections[field_name] = section
                form.addRow(label, key)
                rows[section].append(key)
                continue
            if not _editable(info):
                self.kept.append(field_name)
                continue
            control, row = self._control(field_name, info, label)
            if info.description:
                control.setToolTip(tr(info.description))
                control.setAccessibleDescription(tr(info.description))
            self.controls[field_name] = control
            self.sections[field_name] = section
            form.addRow("" if isinstance(control, QCheckBox) else label, row)
            rows[section].append(row)
        self.extras = hint("")
        advanced_layout.addWidget(self.extras)
        layout.addStretch(1)
        # Tab goes as the page reads (the buttons were made before the fields).
        chain = [
            *rows["essentials"],
            self.test_button,
            self.steps.install_button,
            self.steps.enable_button,
            self.connect_button,
            *rows["access"],
            self.advanced.toggle,
            *rows["advanced"],
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)
        services.bridge.channelStatus.connect(self._on_status)
        services.agentReady.connect(self.show_status)
        self.show_status()

    def _control(self, field_name: str, info: FieldInfo, label: str) -> tuple[QWidget, QWidget]:
        """The field's control and the widget its form row holds (the same, or the control
        with a picker beside it)."""
        choices = _literal_choices(info)
        kind = _base_type(info)
        control: QWidget
        if field_name in self.guide.emoji:
            picker = EmojiField(
                self.guide.emoji[field_name],
                accepted=self.guide.emoji_accepted.get(field_name),
                platform=channel_title(self.name),
                accessible=f"{channel_title(self.name)} {label}",
            )
            return picker.edit, picker
        if field_name == "enabled":
            control = QCheckBox(
                tr("Enable the {channel} channel").format(channel=channel_title(self.name))
            )
        elif choices is not None:
            control = QComboBox()
            control.addItems(choices)
        elif kind is bool:
            control = QCheckBox(label)
        elif kind is int:
            control = QSpinBox()
            control.setRange(0, 65_535 if "port" in field_name else 2_147_483_647)
            control.setMinimumWidth(120)
        elif kind is list:
            control = LinesEdit(placeholder=tr("one entry per line"), rows=3)
        else:
            control = QLineEdit()
            if field_name == "allow_from":
                control.setPlaceholderText(tr("one entry per line"))
        control.setAccessibleName(f"{channel_title(self.name)} {label}")
        if field_name == "allow_from":
            control.setToolTip(tr("User IDs or names allowed to talk to the bot, one per line."))
        return control, control

    def widgets(self) -> list[QWidget]:
        """The editable (non-key) controls, for change tracking."""
        return list(self.controls.values())

    def load(self) -> None:
        """Show the saved values; refresh where the keys come from."""
        section = getattr(self.services.config.channels, self.name)
        for field_name, control in self.controls.items():
            value = getattr(section, field_name)
            if isinstance(control, QCheckBox):
                control.setChecked(bool(value))
            elif isinstance(control, QComboBox):
                control.setCurrentText("" if value is None else str(value))
            elif isinstance(control, QSpinBox):
                control.setValue(int(value or 0))
            elif isinstance(control, LinesEdit):
                control.set_lines([str(v) for v in value or []])
            elif isinstance(control, QLineEdit):
                control.setText("" if value is None else str(value))
        for key in self.keys.values():
            key.refresh()
        extra = sorted(to_camel(k) for k in [*self.kept, *(section.model_extra or {})])
        self.extras.setText(
            tr("Kept as they are (nanobot settings not used or not edited here): {names}.").format(
                names=", ".join(extra)
            )
            if extra
            else ""
        )
        self.extras.setVisible(bool(extra))
        self.advanced.setVisible(bool(extra) or "advanced" in self.sections.values())

    def collect(self) -> dict[str, Any]:
        """``{channels.<name>.<field>: value}`` for the non-secret fields."""
        changes: dict[str, Any] = {}
        for field_name, control in self.controls.items():
            info = self.model.model_fields[field_name]
            value: Any
            if isinstance(control, QCheckBox):
                value = control.isChecked()
            elif isinstance(control, QComboBox):
                value = control.currentText()
                if value == "" and not info.is_required() and info.default is None:
                    value = None
            elif isinstance(control, QSpinBox):
                value = control.value()
            elif isinstance(control, LinesEdit):
                value = control.lines()
            else:
                assert isinstance(control, QLineEdit)
                value = control.text().strip()
                if value == "" and not info.is_required() and info.default is None:
                    value = None
            changes[f"channels.{self.name}.{field_name}"] = value
        return changes

    def cancel_tasks(self) -> None:
        """Stop this form's and its key fields' background work (they hang from :attr:`tasks`)."""
        self.tasks.cancel()

    # -- live status ----------------------------------------------------------------------
    def show_status(self) -> None:
        """Show the running channel's status (from the runtime's channel manager)."""
        runtime = self.services.runtime
        if runtime is None:
            self.status.info(tr("The agent is not running yet."))
            self.connect_button.setEnabled(False)
            return
        status = runtime.channels.status(self.name)
        self._render(status.state, status.reason, status.hint, status.account, status.login_code)

    def _on_status(self, event: ChannelStatusChanged) -> None:
        if event.channel == self.name:
            self._render(event.state, event.reason, event.hint, event.account, event.login_code)

    def _render(
        self, state: str, reason: str, hint_text: str, account: str, login_code: str = ""
    ) -> None:
        self.connect_button.setEnabled(self.services.runtime is not None)
        running = state in ("connecting", "connected", "error")
        self.connect_button.setText(tr("Disconnect") if running else tr("Connect"))
        # The reason and hint come from the core (phrases: shown in the window's language).
        why = localized(reason).rstrip(".。") if reason else ""
        then = localized(hint_text) if hint_text else ""
        if login_code:
            self.login.show_code(login_code)
            self.status.warn(tr("{reason}: scan the QR code below.").format(reason=why))
            return
        if state == "connected" and self.login.state != "hidden":
            self.login.show_linked(
                tr("Linked: your {channel} account is linked.").format(
                    channel=channel_title(self.name)
                )
            )
        elif state != "connected":
            self.login.clear()
        if state == "connected":
            self.status.ok(
                tr("Connected as {account}.").format(account=account)
                if account
                else tr("Connected.")
            )
        elif state == "connecting":
            self.status.info(tr("Connecting…"))
        elif state == "error":
            self.status.error(
                tr("Disconnected: {reason}. {hint}").format(reason=why, hint=then).strip()
            )
        elif state == "unavailable":
            self.status.error(
                tr("Cannot run: {reason}. {hint}").format(reason=why, hint=then).strip()
            )
        else:
            self.status.info(tr(NOT_RUNNING))

    def toggle_connection(self) -> None:
        """Connect (start with the saved settings) or disconnect the channel now."""
        runtime = self.services.runtime
        if runtime is None:
            return
        manager = runtime.channels
        if manager.status(self.name).state in ("connecting", "connected", "error"):
            self.tasks.try_spawn(manager.stop_channel(self.name), name="disconnect")
        else:
            self.tasks.try_spawn(manager.start_channel(self.name), name="connect")

    def test(self) -> None:
        """Run the channel's connection test with the values in the form."""
        self.tasks.try_spawn(self._test(), name="test")

    def tested_section(self) -> Any:
        """The channel's settings as the form shows them (typed keys included; not saved)."""
        section = getattr(self.services.config.channels, self.name).model_copy(deep=True)
        for path, value in self.collect().items():
            setattr(section, path.rsplit(".", 1)[1], value)
        for field_name, key in self.keys.items():
            if key.typed():
                setattr(section, field_name, key.typed())
        return section

    async def _test(self) -> None:
        from desktop.core.channels.base import ChannelUnavailable

        section = self.tested_section()
        self.test_button.setEnabled(False)
        self.steps.clear()
        self.test_status.info(tr("Testing…"))
        try:
            manager = self._manager()
            found = await manager.check(self.name, section)
        except ChannelUnavailable as exc:
            self._unavailable(exc.reason, exc.hint, exc.extra)
        except NotImplementedError:
            self.test_status.info(tr("This channel has no connection test yet."))
        except Exception as exc:  # noqa: BLE001 - the message is for the person
            from desktop.core.channels.manager import explain

            self.test_status.error(
                tr("It does not work: {error}").format(error=localized(explain(exc)))
            )
        else:
            self.test_status.ok(localized(found))
            if not getattr(self.services.config.channels, self.name).enabled:
                self.steps.offer_enable()
        finally:
            self.test_button.setEnabled(True)

    def _unavailable(self, reason: str, hint_text: str, extra: str) -> None:
        """Say why the channel cannot run; offer to install its missing support."""
        plan = install_plan(extra) if extra else None
        why = localized(reason).rstrip(".。")
        if plan is not None:
            self.test_status.warn(tr("{reason}.").format(reason=why))
            self.steps.offer_install(plan)
        elif extra and hint_text:
            self.test_status.warn(tr("{reason}.").format(reason=why))
            self.steps.show_command(hint_text)
        else:
            self.test_status.error(
                tr("{reason}. {hint}").format(reason=why, hint=localized(hint_text)).strip()
            )

    def install(self) -> None:
        """Run the offered install, then test again."""
        plan = self.steps.plan
        if plan is not None:
            self.tasks.try_spawn(self._install(plan), name="install")

    async def _install(self, plan: InstallPlan) -> None:
        self.test_button.setEnabled(False)
        self.steps.installing()
        self.test_status.info(
            tr("Installing {channel} support…").format(channel=channel_title(self.name))
        )
        try:
            await run_install(plan.argv, self.steps.output)
        except (InstallFailed, OSError) as exc:
            self.steps.installed()
            self.test_status.error(tr("The install failed: {error}").format(error=exc))
            self.test_button.setEnabled(True)
            return
        self.steps.installed()
        self.test_button.setEnabled(True)
        await self._test()

    def _manager(self) -> Any:
        runtime = self.services.runtime
        if runtime is not None:
            return runtime.channels
        from desktop.core.assembly import channel_state_dir
        from desktop.core.bus.queue import MessageBus
        from desktop.core.channels.manager import ChannelManager

        return ChannelManager(
            MessageBus(),
            self.tasks.child("check"),
            config=self.services.config,
            state_dir=channel_state_dir(self.services.config),
        )
