"""Names of weekdays and months, marked for translation (Python's ``strftime`` names follow the
C locale, not the window's language): the window translates them where it shows a date
(:mod:`desktop.ui.dates`), the core puts them in phrases."""

from __future__ import annotations

from desktop.core.utils.i18n import QT_TR_NOOP

WEEKDAYS_SHORT = (
    QT_TR_NOOP("Mon"),
    QT_TR_NOOP("Tue"),
    QT_TR_NOOP("Wed"),
    QT_TR_NOOP("Thu"),
    QT_TR_NOOP("Fri"),
    QT_TR_NOOP("Sat"),
    QT_TR_NOOP("Sun"),
)
MONTHS_SHORT = (
    QT_TR_NOOP("Jan"),
    QT_TR_NOOP("Feb"),
    QT_TR_NOOP("Mar"),
    QT_TR_NOOP("Apr"),
    QT_TR_NOOP("May"),
    QT_TR_NOOP("Jun"),
    QT_TR_NOOP("Jul"),
    QT_TR_NOOP("Aug"),
    QT_TR_NOOP("Sep"),
    QT_TR_NOOP("Oct"),
    QT_TR_NOOP("Nov"),
    QT_TR_NOOP("Dec"),
)
MONTHS = (
    QT_TR_NOOP("January"),
    QT_TR_NOOP("February"),
    QT_TR_NOOP("March"),
    QT_TR_NOOP("April"),
    QT_TR_NOOP("May"),
    QT_TR_NOOP("June"),
    QT_TR_NOOP("July"),
    QT_TR_NOOP("August"),
    QT_TR_NOOP("September"),
    QT_TR_NOOP("October"),
    QT_TR_NOOP("November"),
    QT_TR_NOOP("December"),
)
