"""The reasons a receipt stores as English text that the window reads back as phrases.

A receipt keeps its reason as it was written (nanobot's format; old files too). The reasons
that are ours — a snooze, a skipped reminder whose own text reached no one, the budget's
refusals, the Dream system job's — are listed here, so
:func:`~desktop.core.cron.spec.describe_receipt` can read them back with
:func:`~desktop.core.utils.i18n.recognize` and the window shows them in its language. Any other
reason (an error's own text) is shown as it is. The writers use the same templates.
"""

from __future__ import annotations

from desktop.core.usage.governor import REFUSALS
from desktop.core.utils.i18n import QT_TR_NOOP

SNOOZED_UNTIL = QT_TR_NOOP("until {time} (job {job})")
SKIPPED_UNDELIVERED = QT_TR_NOOP("{reason}; its own text reached no one: {undelivered}.")
DREAM_PENDING = QT_TR_NOOP(
    "Dream did not run: its last proposal is still waiting for your review (Memory tab → Dream "
    "review). Accept or reject it first."
)
DREAM_REFUSED = QT_TR_NOOP("Dream did not run: {reason}")
RECEIPT_REASONS: tuple[str, ...] = (
    SNOOZED_UNTIL,
    SKIPPED_UNDELIVERED,
    DREAM_PENDING,
    DREAM_REFUSED,
    *REFUSALS,
)
