"""A visible focus ring on every focus stop, in both schemes.

Fusion marks keyboard focus faintly or not at all (a push button or a check box with focus
looked the same as without, in the dark scheme and the light one). :class:`FocusRingStyle`
is Fusion with a 2-pixel ring in the palette's highlight (accent) colour around whatever has
keyboard focus: buttons, tool buttons, check boxes and radio buttons, combo and spin boxes,
line edits, tabs and list items. Like a browser's ``:focus-visible`` it shows once the
keyboard moved the focus in that window (Qt's ``State_KeyboardFocusChange``), not after every
click.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleOption, QStyleOptionComplex, QWidget

RING = 2.0
RADIUS = 4.0

Element = QStyle.ControlElement
Primitive = QStyle.PrimitiveElement
Complex = QStyle.ComplexControl

_CONTROLS = frozenset({Element.CE_PushButton})
_COMPLEX = frozenset({Complex.CC_ComboBox, Complex.CC_SpinBox, Complex.CC_ToolButton})
_FRAMES = frozenset({Primitive.PE_FrameLineEdit})


def _widget(widget: object) -> QWidget | None:
    """``widget`` when it is one (the binding has been seen handing over another object)."""
    return widget if isinstance(widget, QWidget) else None


def keyboard_focus(option: QStyleOption) -> bool:
    """Whether ``option`` describes something with focus the keyboard moved to."""
    state = option.state
    return bool(state & QStyle.StateFlag.State_HasFocus) and bool(
        state & QStyle.StateFlag.State_KeyboardFocusChange
    )


def draw_ring(painter: QPainter, option: QStyleOption, rect: QRect | None = None) -> None:
    """A rounded ring in the highlight colour just inside ``rect`` (default: the option's)."""
    area = QRectF(rect if rect is not None else option.rect)
    inset = RING / 2
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(option.palette.color(QPalette.ColorRole.Highlight), RING))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(area.adjusted(inset, inset, -inset, -inset), RADIUS, RADIUS)
    painter.restore()


class FocusRingStyle(QProxyStyle):
    """Fusion (or ``base``) with a clear keyboard focus ring."""

    def __init__(self, base: str = "Fusion") -> None:
        super().__init__(base)

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        """The focus rectangle of check boxes, radio buttons, tabs and list items is the
        ring; frames of focused line edits get it too."""
        if element == Primitive.PE_FrameFocusRect:
            draw_ring(painter, option)
            return
        super().drawPrimitive(element, option, painter, _widget(widget))
        if element in _FRAMES and keyboard_focus(option):
            draw_ring(painter, option)

    def drawControl(
        self,
        element: QStyle.ControlElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        """Push buttons: the ring over the button drawn as usual."""
        super().drawControl(element, option, painter, _widget(widget))
        if element in _CONTROLS and keyboard_focus(option):
            draw_ring(painter, option)

    def drawComplexControl(
        self,
        control: QStyle.ComplexControl,
        option: QStyleOptionComplex,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        """Combo boxes, spin boxes and tool buttons: the ring over the control."""
        super().drawComplexControl(control, option, painter, _widget(widget))
        if control in _COMPLEX and keyboard_focus(option):
            draw_ring(painter, option)
