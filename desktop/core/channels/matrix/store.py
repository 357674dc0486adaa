"""The Matrix channel's crypto store: nio's default store, with one SQLite connection that is
handed from the worker thread opening the store to the event loop's thread (see
:mod:`.crypto`). Imported only when matrix-nio's crypto part is installed."""

from __future__ import annotations

from typing import Any

from nio.store import DefaultStore


class Store(DefaultStore):  # type: ignore[misc]  # matrix-nio is untyped
    """nio's ``DefaultStore`` whose database keeps a single connection for every thread.

    peewee's default keeps one connection per thread: the one the worker thread opened would
    stay behind there, and the loop's thread would connect again (on the loop) at its first
    use. The threads never use the store at the same time: the loop's first use comes after
    the worker thread has finished.
    """

    def _create_database(self) -> Any:
        nio_made = super()._create_database()  # a peewee SqliteDatabase: nio's file, pragmas
        return type(nio_made)(
            nio_made.database,
            pragmas=nio_made._pragmas,
            thread_safe=False,  # one connection, whichever thread asks
            check_same_thread=False,  # sqlite3's own check of the same
        )
