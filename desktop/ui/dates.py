"""Dates in the window's language: short weekday and month names through the translation
system (Python's ``strftime`` names follow the C locale, not the window's language)."""

from __future__ import annotations

from datetime import date

from desktop.core.utils.dates import MONTHS, MONTHS_SHORT, WEEKDAYS_SHORT
from desktop.ui.i18n import tr

__all__ = ["MONTHS", "MONTHS_SHORT", "WEEKDAYS_SHORT", "day_month", "month_year", "weekday_short"]


def weekday_short(day: date) -> str:
    """``Mon`` … ``Sun``."""
    return tr(WEEKDAYS_SHORT[day.weekday()])


def day_month(day: date) -> str:
    """``3 Mar`` (the day and the short month name)."""
    return tr("{day} {month}").format(day=day.day, month=tr(MONTHS_SHORT[day.month - 1]))


def month_year(day: date) -> str:
    """``March 2026`` (the month's full name and the year)."""
    return tr("{month} {year}").format(month=tr(MONTHS[day.month - 1]), year=day.year)
