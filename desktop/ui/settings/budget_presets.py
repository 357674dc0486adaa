"""Budget presets for the Usage & budgets page: a few typical sets of limits that fill the
budget table in one step (the person reviews them and saves)."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.core.utils.i18n import QT_TR_NOOP

Cell = tuple[str, str]
"""A budget field: ``(scope, key)`` as the page's table names it, e.g. ``("dream",
"daily_tokens")``."""


@dataclass(frozen=True)
class BudgetPreset:
    """A named set of limits.

    Attributes:
        name: What the button says ("A few dollars a month"; marked for translation, shown
            through ``tr``).
        about: One line on what it sets (the button's tooltip; marked the same way).
        values: The filled cells; every other cell of the table is emptied (no limit).
    """

    name: str
    about: str
    values: dict[Cell, float] = field(default_factory=dict)


PRESETS: tuple[BudgetPreset, ...] = (
    BudgetPreset(
        QT_TR_NOOP("A few dollars a month"),
        QT_TR_NOOP(
            "Everything: $5 a month, $0.50 a day. Dream 20,000 and the heartbeat 5,000 tokens a "
            "day; scheduled jobs 50,000."
        ),
        {
            ("overall", "monthly_usd"): 5,
            ("overall", "daily_usd"): 0.5,
            ("dream", "daily_tokens"): 20_000,
            ("heartbeat", "daily_tokens"): 5_000,
            ("cron", "daily_tokens"): 50_000,
        },
    ),
    BudgetPreset(
        QT_TR_NOOP("About $20 a month"),
        QT_TR_NOOP(
            "Everything: $20 a month, $2 a day. Dream 50,000 and the heartbeat 10,000 tokens a "
            "day; scheduled jobs 200,000."
        ),
        {
            ("overall", "monthly_usd"): 20,
            ("overall", "daily_usd"): 2,
            ("dream", "daily_tokens"): 50_000,
            ("heartbeat", "daily_tokens"): 10_000,
            ("cron", "daily_tokens"): 200_000,
        },
    ),
    BudgetPreset(
        QT_TR_NOOP("About $100 a month"),
        QT_TR_NOOP(
            "Everything: $100 a month, $10 a day. Dream 200,000 and the heartbeat 50,000 tokens "
            "a day; scheduled jobs 1,000,000."
        ),
        {
            ("overall", "monthly_usd"): 100,
            ("overall", "daily_usd"): 10,
            ("dream", "daily_tokens"): 200_000,
            ("heartbeat", "daily_tokens"): 50_000,
            ("cron", "daily_tokens"): 1_000_000,
        },
    ),
    BudgetPreset(
        QT_TR_NOOP("No limit"),
        QT_TR_NOOP("Every field empty: nothing is paused or stopped for spend."),
    ),
)


def cell_text(value: float | None) -> str:
    """How the table shows a limit: ``1000000`` (never ``1e+06``, which does not parse back),
    ``0.5``; ``None``: empty."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def preset_matching(cells: dict[Cell, str]) -> BudgetPreset | None:
    """The preset whose values the table's texts (``{cell: text}``) hold exactly, if any."""
    for preset in PRESETS:
        wanted = {cell: cell_text(value) for cell, value in preset.values.items()}
        if all(text.strip() == wanted.get(cell, "") for cell, text in cells.items()):
            return preset
    return None
