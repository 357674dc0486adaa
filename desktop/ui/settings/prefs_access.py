"""The one place the settings touch the desktop preferences (``desktop.json``).

The application's :class:`~desktop.core.config.prefs.PrefsStore` is ``services.prefs``, so
the window's listeners (theme, tray) see changes made here. Without one (tests, a tab used
alone), a store for ``desktop.json`` beside the config file is loaded and kept there.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from desktop.core.config.edit import ChangeError, explain
from desktop.core.config.prefs import PrefsStore, prefs_path

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


async def prefs_store(services: AppServices) -> PrefsStore:
    """The shared preferences store (loaded in a thread the first time)."""
    store = services.prefs
    if store is None:
        path = prefs_path(services.config_path)
        store = await asyncio.to_thread(PrefsStore, path)
        if services.prefs is None:  # another caller may have loaded it meanwhile
            services.prefs = store
        store = services.prefs
    return store


async def update_prefs(services: AppServices, **changes: Any) -> set[str]:
    """Validate, apply and save preference changes; all or nothing.

    Returns:
        The names whose value changed.

    Raises:
        ChangeError: A value does not fit (nothing changed).
        OSError: The file could not be written (the previous values are restored).
    """
    store = await prefs_store(services)
    before = {name: getattr(store.prefs, name) for name in changes}
    try:
        changed = store.update(**changes)
    except ValidationError as exc:
        loc = exc.errors()[0].get("loc", ("preference",))
        raise ChangeError(str(loc[0]) if loc else "preference", explain(exc)) from None
    if not changed:
        return changed
    try:
        await store.asave()
    except OSError:
        store.update(**{name: before[name] for name in changed})
        raise
    return changed
