"""What changed in the chat: the output of :class:`~desktop.ui.chat.state.ChatState`.

Each call of the state (a run event applied, a message queued, an error set) returns a list of
these, in order; the Qt views render them (:class:`~desktop.ui.chat.feed.TurnFeed` the rows,
:class:`~desktop.ui.chat.chat_tab.ChatTab` the rest). Both ``match`` over the union and end in
``assert_never``, so a new kind of change that a view forgets is a type error. Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.ui.chat.items import ChatItem


@dataclass(frozen=True)
class RowAdded:
    """``item`` is a new row of session ``key``: at the end, or just before ``before``."""

    key: str
    item: ChatItem
    before: ChatItem | None = None


@dataclass(frozen=True)
class RowChanged:
    """``item`` (a row of session ``key``) was changed in place."""

    key: str
    item: ChatItem


@dataclass(frozen=True)
class RowRemoved:
    """``item`` is no longer a row of session ``key``."""

    key: str
    item: ChatItem


@dataclass(frozen=True)
class TurnBegan:
    """A turn runs in ``key`` from now on (the session is busy)."""

    key: str


@dataclass(frozen=True)
class TurnEnded:
    """The turn of ``key`` ended (finished, stopped or failed)."""

    key: str


@dataclass(frozen=True)
class UsageChanged:
    """The token use of ``key``'s latest turn changed."""

    key: str


@dataclass(frozen=True)
class ErrorChanged:
    """The error shown for ``key`` (the banner) was set or cleared."""

    key: str


@dataclass(frozen=True)
class Unread:
    """Something new arrived in ``key`` while another chat was shown."""

    key: str


@dataclass(frozen=True)
class ListChanged:
    """``key`` changed on disk: the chat list should be read again."""

    key: str


@dataclass(frozen=True)
class Reload:
    """``key`` changed outside a turn (``/new``, a retry): a view showing it reads it again."""

    key: str


@dataclass(frozen=True)
class GuidanceChanged:
    """The messages waiting for ``key``'s running turn to take them in (steering) changed."""

    key: str


RowChange = RowAdded | RowChanged | RowRemoved
"""A change of one row."""
SessionChange = (
    TurnBegan
    | TurnEnded
    | UsageChanged
    | ErrorChanged
    | Unread
    | ListChanged
    | Reload
    | GuidanceChanged
)
"""A change of a session as a whole."""
Change = RowChange | SessionChange
"""Anything :class:`~desktop.ui.chat.state.ChatState` reports."""
Changes = list[Change]
