"""A form for one chat channel, generated from its config schema."""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config import secret_fields
from desktop.ui.settings.key_backends import field_key_backend
from desktop.ui.settings.key_field import KeyField
from desktop.ui.settings.widgets import InlineStatus, LinesEdit, heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

_ACRONYMS = {"id": "ID", "imap": "IMAP", "smtp": "SMTP", "url": "URL", "qq": "QQ"}
RUNTIME_STATUS = (
    "Status: runtime not available yet. Channel runtimes arrive in a later version; "
    "these settings are saved now and used then."
)


_TITLES = {"dingtalk": "DingTalk", "whatsapp": "WhatsApp", "qq": "QQ"}


def channel_title(name: str) -> str:
    """``whatsapp`` → ``WhatsApp``."""
    return _TITLES.get(name, name.capitalize())


def field_label(name: str) -> str:
    """``imap_host`` → ``IMAP host``."""
    words = [_ACRONYMS.get(word, word) for word in name.split("_")]
    first = words[0] if words[0].isupper() else words[0].capitalize()
    return " ".join([first, *words[1:]])


def _literal_choices(info: FieldInfo) -> list[str] | None:
    annotation = info.annotation
    if typing.get_origin(annotation) is typing.Literal:
        return [str(v) for v in typing.get_args(annotation)]
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


class ChannelForm(QWidget):
    """Controls for ``channels.<name>``: secret fields go through the keyring.

    Args:
        services: The shared services.
        name: The channel's section name (``telegram``).
    """

    def __init__(self, services: AppServices, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.name = name
        self.model: type[BaseModel] = type(getattr(services.config.channels, name))
        self.controls: dict[str, QWidget] = {}
        self.keys: dict[str, KeyField] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 0, 4, 0)
        layout.setSpacing(8)
        title = (self.model.__doc__ or name).strip().splitlines()[0].rstrip(".")
        layout.addWidget(heading(title, level=2))
        self.status = InlineStatus(accessible=f"{name} channel status")
        self.status.info(RUNTIME_STATUS)
        layout.addWidget(self.status)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        for field_name, info in self.model.model_fields.items():
            label = field_label(field_name)
            path = f"channels.{name}.{field_name}"
            if secret_fields.is_secret_field(field_name):
                noun = next(
                    (n for n in ("password", "token", "secret") if field_name.endswith(n)), "key"
                )
                key = KeyField(
                    field_key_backend(services, path), label=f"{title} {label.lower()}", noun=noun
                )
                self.keys[field_name] = key
                form.addRow(label, key)
                continue
            control = self._control(field_name, info, label)
            self.controls[field_name] = control
            form.addRow("" if isinstance(control, QCheckBox) else label, control)
        layout.addLayout(form)
        self.extras = hint("")
        layout.addWidget(self.extras)
        layout.addStretch(1)

    def _control(self, field_name: str, info: FieldInfo, label: str) -> QWidget:
        choices = _literal_choices(info)
        kind = _base_type(info)
        control: QWidget
        if field_name == "enabled":
            control = QCheckBox(f"Enable the {channel_title(self.name)} channel")
        elif choices is not None:
            control = QComboBox()
            control.addItems(choices)
        elif kind is bool:
            control = QCheckBox(label)
        elif kind is int:
            control = QSpinBox()
            control.setRange(0, 65_535 if "port" in field_name else 1_000_000)
            control.setMinimumWidth(120)
        elif kind is list:
            control = LinesEdit(placeholder="one entry per line", rows=3)
        else:
            control = QLineEdit()
            if field_name == "allow_from":
                control.setPlaceholderText("one entry per line")
        control.setAccessibleName(f"{self.name} {label.lower()}")
        if field_name == "allow_from":
            control.setToolTip("User IDs or names allowed to talk to the bot, one per line.")
        return control

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
                control.setCurrentText(str(value))
            elif isinstance(control, QSpinBox):
                control.setValue(int(value or 0))
            elif isinstance(control, LinesEdit):
                control.set_lines([str(v) for v in value or []])
            elif isinstance(control, QLineEdit):
                control.setText("" if value is None else str(value))
        for key in self.keys.values():
            key.refresh()
        extra = sorted(to_camel(k) for k in (section.model_extra or {}))
        self.extras.setText(
            f"Other keys in this section are kept as they are: {', '.join(extra)}." if extra else ""
        )
        self.extras.setVisible(bool(extra))

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
        """Stop the key fields' background work."""
        for key in self.keys.values():
            key.cancel_tasks()
