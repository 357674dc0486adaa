"""Fetching updates: the ``getUpdates`` answer parsed one update at a time.

``Bot.get_updates`` turns the whole answer into ``Update`` objects at once, so one malformed
update makes the whole batch fail again and again, and the channel would never get past it.
:class:`UpdateFeed` is the request object PTB uses for ``getUpdates`` only (its documented
``get_updates_request`` hook): it passes the HTTP call through, parses each update on its
own, keeps the results (a malformed one as an error with its ``update_id``, so the offset
still moves past it), and hands PTB an empty list. Errors (HTTP status, network) pass
through unchanged, so PTB raises its usual exceptions.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from telegram import Bot, Update
from telegram.request import BaseRequest, RequestData

from desktop.core.utils.validate import parse_json

log = logging.getLogger(__name__)

_EMPTY = b'{"ok":true,"result":[]}'


@dataclass(frozen=True)
class Fetched:
    """One update as received: parsed, or the reason it could not be.

    Attributes:
        update_id: Its id (``None`` when even that is missing).
        update: The parsed update, ``None`` when malformed.
        error: Why it could not be parsed.
    """

    update_id: int | None
    update: Update | None = None
    error: str = ""


class UpdateFeed(BaseRequest):
    """Wraps the request object of ``getUpdates`` (see the module docstring).

    Args:
        inner: The real request object (an ``HTTPXRequest``).
    """

    def __init__(self, inner: BaseRequest) -> None:
        super().__init__()
        self.inner = inner
        self.bot: Bot | None = None
        self._batch: list[Fetched] = []

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    def take(self) -> list[Fetched]:
        """The updates of the last ``getUpdates`` answer (each returned once)."""
        batch, self._batch = self._batch, []
        return batch

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        code, payload = await self.inner.do_request(
            url,
            method,
            request_data=request_data,
            read_timeout=read_timeout,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
        )
        if code != 200 or not url.endswith("/getUpdates"):
            return code, payload
        try:
            body = parse_json(payload)
        except ValueError:
            return code, payload  # PTB reports the broken answer
        result = body.get("result") if isinstance(body, dict) else None
        if not isinstance(result, list):
            return code, payload
        self._batch = [self._parse(raw) for raw in result]
        return code, _EMPTY

    def _parse(self, raw: Any) -> Fetched:
        update_id = raw.get("update_id") if isinstance(raw, dict) else None
        if not isinstance(update_id, int) or isinstance(update_id, bool):
            update_id = None
        try:
            if update_id is None:
                raise ValueError("no update_id")
            update = Update.de_json(raw, self.bot)
        except Exception as exc:  # noqa: BLE001 - whatever the data, skip just this update
            return Fetched(update_id, None, f"{type(exc).__name__}: {exc}"[:300])
        return Fetched(update.update_id, update)
