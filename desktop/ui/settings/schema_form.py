"""Settings controls generated from the config schema.

A page names a config field by reading it from a typed config
(``config_path(lambda c: c.agents.defaults.max_tokens)``), so a misspelt field is a type error,
not a silent no-op. The field's schema gives the control everything else: its label (``title``),
tooltip (``description``), limits (``ge``/``gt``/``le`` and a UI-only ``maximum`` in
``json_schema_extra`` that is not enforced on load, so a hand-edited nanobot config still
loads), step, unit and decimals. Titles, descriptions and units are shown through ``tr()``
(``scripts/translations.py`` lists them in ``schema_texts.py``). :class:`SchemaForm` keeps the controls bound to their fields:
:meth:`SchemaForm.load` shows a config, :meth:`SchemaForm.collect` returns the changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QSpinBox,
    QWidget,
)

from desktop.core.config.schema import Config
from desktop.ui.i18n import tr
from desktop.ui.settings.widgets import LinesEdit

INT_LIMIT = 2**31 - 1  # QSpinBox holds a C int
W = TypeVar("W", bound=QWidget)


class _Recorder:
    """Stands in for the config and notes the attribute chain read from it."""

    def __init__(self, names: list[str]) -> None:
        self._names = names

    def __getattr__(self, name: str) -> _Recorder:
        self._names.append(name)
        return self


def config_path(select: Callable[[Config], object]) -> str:
    """The dotted snake_case path of the field ``select`` reads (checked against the schema).

    Raises:
        KeyError: ``select`` reads something that is not a config field.
    """
    names: list[str] = []
    select(cast(Config, _Recorder(names)))
    path = ".".join(names)
    field_info(path)  # it exists
    return path


def field_info(path: str, root: type[BaseModel] = Config) -> FieldInfo:
    """The schema of the field at ``path``.

    Raises:
        KeyError: No such field.
    """
    model: type[BaseModel] = root
    info: FieldInfo | None = None
    for name in path.split("."):
        if info is not None:
            annotation = info.annotation
            if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
                raise KeyError(path)
            model = annotation
        info = model.model_fields.get(name)
        if info is None:
            raise KeyError(path)
    assert info is not None
    return info


def title_of(path: str) -> str:
    """The field's title in the window's language (``max_tokens`` → ``Max tokens`` when the
    schema gives none)."""
    try:
        title = field_info(path).title
    except KeyError:
        title = None
    return tr(title) if title else path.rsplit(".", 1)[-1].replace("_", " ").capitalize()


def description_of(info: FieldInfo) -> str:
    """The field's description in the window's language (``""``: none)."""
    return tr(info.description) if info.description else ""


@dataclass(frozen=True)
class NumberSpec:
    """What the schema says about a number field's control."""

    minimum: float
    maximum: float
    step: float
    unit: str
    decimals: int


def number_spec(info: FieldInfo) -> NumberSpec:
    """Limits, step, unit and decimals of a number field."""
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    minimum: float = 0
    maximum: float = INT_LIMIT
    for rule in info.metadata:
        if isinstance(rule, annotated_types.Ge):
            minimum = cast(float, rule.ge)
        elif isinstance(rule, annotated_types.Gt):
            minimum = cast(float, rule.gt)
        elif isinstance(rule, annotated_types.Le):
            maximum = cast(float, rule.le)
        elif isinstance(rule, annotated_types.Lt):
            maximum = cast(float, rule.lt)
    if isinstance(extra.get("maximum"), int | float):
        maximum = min(maximum, cast(float, extra["maximum"]))
    step = extra.get("step", 1)
    decimals = extra.get("decimals", 0)
    return NumberSpec(
        minimum,
        maximum,
        float(step) if isinstance(step, int | float) else 1.0,
        str(extra.get("unit") or ""),
        int(decimals) if isinstance(decimals, int) else 0,
    )


@dataclass
class _Binding:
    path: str
    widget: QWidget
    read: Callable[[], Any]
    write: Callable[[Any], None]


class SchemaForm(QFormLayout):
    """A form whose rows are config fields; labels, tooltips and limits come from the schema.

    Args:
        parent: Parent widget.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self._bindings: list[_Binding] = []

    @property
    def widgets(self) -> list[QWidget]:
        """Every bound control, in order (for dirty tracking)."""
        return [binding.widget for binding in self._bindings]

    def number(self, select: Callable[[Config], object], *, width: int = 140) -> QAbstractSpinBox:
        """A spin box for an ``int`` or ``float`` field, added as a row."""
        path = config_path(select)
        info = field_info(path)
        spec = number_spec(info)
        box: QSpinBox | QDoubleSpinBox
        if info.annotation is float:
            double = QDoubleSpinBox()
            double.setDecimals(spec.decimals or 2)
            double.setRange(spec.minimum, spec.maximum)
            double.setSingleStep(spec.step)
            box = double
            read: Callable[[], Any] = lambda: round(double.value(), double.decimals())  # noqa: E731
            write: Callable[[Any], None] = lambda value: double.setValue(float(value))  # noqa: E731
        else:
            integer = QSpinBox()
            integer.setRange(int(spec.minimum), int(min(spec.maximum, INT_LIMIT)))
            integer.setSingleStep(int(spec.step))
            integer.setGroupSeparatorShown(True)
            box = integer
            read = integer.value
            write = lambda value: integer.setValue(int(value))  # noqa: E731
        if spec.unit:
            box.setSuffix(" " + tr(spec.unit))
        box.setMinimumWidth(width)
        return self._bind(path, box, read, write)

    def check(self, select: Callable[[Config], object]) -> QCheckBox:
        """A check box (its text is the title) for a ``bool`` field, added as a full row."""
        path = config_path(select)
        box = QCheckBox(title_of(path))
        self._bind(path, box, box.isChecked, lambda value: box.setChecked(bool(value)), row=False)
        return box

    def lines(self, select: Callable[[Config], object], *, placeholder: str = "") -> LinesEdit:
        """A one-entry-per-line editor for a ``list[str]`` field, added as a row."""
        path = config_path(select)
        edit = LinesEdit(placeholder=placeholder, rows=3)
        return self._bind(path, edit, edit.lines, lambda value: edit.set_lines(list(value or [])))

    def _bind(
        self,
        path: str,
        widget: W,
        read: Callable[[], Any],
        write: Callable[[Any], None],
        *,
        row: bool = True,
    ) -> W:
        info = field_info(path)
        title = title_of(path)
        widget.setAccessibleName(title)
        if info.description:
            widget.setToolTip(description_of(info))
        if row:
            self.addRow(title, widget)
        else:
            self.addRow(widget)
        self._bindings.append(_Binding(path, widget, read, write))
        return widget

    def load(self, config: Config) -> None:
        """Show ``config``'s values."""
        for binding in self._bindings:
            value: Any = config
            for name in binding.path.split("."):
                value = getattr(value, name)
            binding.write(value)

    def collect(self) -> dict[str, Any]:
        """The values shown, as ``{dotted.path: value}`` (the controls keep them in range)."""
        return {binding.path: binding.read() for binding in self._bindings}

    def label_for(self, widget: QWidget) -> QWidget | None:
        """The row label of ``widget`` (to grey it out with the control)."""
        return self.labelForField(widget)
