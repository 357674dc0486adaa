"""A local signal-cli daemon for the tests: an HTTP server speaking signal-cli's ``--http``
interface as documented (``GET /api/v1/check``; JSON-RPC 2.0 on ``POST /api/v1/rpc`` with
``send``, ``sendTyping``, ``sendReaction``, ``updateConfiguration`` and ``version``; received
messages as ``receive`` notifications on the Server-Sent Events stream ``GET /api/v1/events``,
each an ``envelope`` with a ``dataMessage``). Only Signal itself is missing: what would go to
Signal is recorded, and what a person sends is played by the test (:meth:`SignalDaemon.say`).
Attachments of received messages are written, like signal-cli does, into its attachments
folder under their id; files sent must be paths the daemon can read.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.typed import narrow

ACCOUNT = "+4915100000000"
ALICE = "+4915112345678"
ALICE_UUID = "a1b2c3d4-0000-4000-8000-00000000a11c"
STRANGER = "+4915199999999"
GROUP = "Zm9vYmFyR3JvdXBJZDEyMzQ1Njc4OTBhYmNkZWZnaGk="
_STYLE = re.compile(r"^\d+:\d+:(BOLD|ITALIC|STRIKETHROUGH|MONOSPACE|SPOILER)$")
_END = object()


class SignalDaemon:
    """The daemon end of the protocol (see the module docstring).

    Args:
        attachments: signal-cli's attachments folder.
    """

    def __init__(self, attachments: Path) -> None:
        self.attachments = attachments
        self.requests: list[dict[str, Any]] = []  # every JSON-RPC request, in order
        self.files: dict[str, bytes] = {}  # attachments of sends, as read
        self.errors: list[str] = []  # the next sends fail with these
        self.drop_when: Callable[[dict[str, Any]], bool] | None = None
        self.subscriptions = 0  # event streams opened so far
        self._streams: list[asyncio.Queue[object]] = []
        self._stamps = itertools.count(1_760_000_000_000)
        self._runner: web.AppRunner | None = None
        self.port = 0

    async def start(self) -> SignalDaemon:
        """Listen on an ephemeral loopback port."""
        app = web.Application()
        app.router.add_get("/api/v1/check", self._check)
        app.router.add_post("/api/v1/rpc", self._rpc)
        app.router.add_get("/api/v1/events", self._events)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """End every stream and stop listening."""
        self.drop()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- what the test sees ---------------------------------------------------------------
    @property
    def listening(self) -> int:
        """Event streams open now."""
        return len(self._streams)

    def calls(self, method: str) -> list[dict[str, Any]]:
        """The params of every request of ``method``."""
        return [r.get("params", {}) for r in self.requests if r.get("method") == method]

    def sent(self) -> list[dict[str, Any]]:
        """The params of every ``send`` that went to Signal."""
        return [p for p in self.calls("send") if not p.get("_failed")]

    def texts(self) -> list[str]:
        """The message texts that went to Signal."""
        return [p["message"] for p in self.sent() if p.get("message")]

    # -- what a person does ---------------------------------------------------------------
    def push(self, event: dict[str, Any] | str) -> None:
        """Put one event (an object, or raw data) on every open stream."""
        data = event if isinstance(event, str) else json.dumps(event)
        for queue in self._streams:
            queue.put_nowait(data)

    def say(
        self,
        text: str,
        *,
        sender: str = ALICE,
        uuid: str | None = ALICE_UUID,
        name: str = "Alice",
        group: str | None = None,
        mentions: list[dict[str, Any]] | None = None,
        attachments: dict[str, bytes] | None = None,
        timestamp: int | None = None,
    ) -> dict[str, Any]:
        """A person sends ``text`` (to the account, or in ``group``); returns the event."""
        stamp = timestamp or next(self._stamps)
        data: dict[str, Any] = {"timestamp": stamp, "message": text, "expiresInSeconds": 0,
                                "viewOnce": False}  # fmt: skip
        if group:
            data["groupInfo"] = {"groupId": group, "type": "DELIVER"}
        if mentions:
            data["mentions"] = mentions
        if attachments:
            data["attachments"] = []
            for index, (filename, content) in enumerate(attachments.items()):
                ident = f"{stamp}{index}.bin"
                self.attachments.mkdir(parents=True, exist_ok=True)
                (self.attachments / ident).write_bytes(content)
                kind = "image/png" if filename.endswith(".png") else "text/plain"
                data["attachments"].append({"contentType": kind, "filename": filename,
                                            "id": ident, "size": len(content)})  # fmt: skip
        envelope: dict[str, Any] = {"source": sender, "sourceNumber": sender,
                                    "sourceName": name, "sourceDevice": 1,
                                    "timestamp": stamp, "dataMessage": data}  # fmt: skip
        if uuid:
            envelope["sourceUuid"] = uuid
        event = {"envelope": envelope, "account": ACCOUNT}
        self.push(event)
        return event

    def drop(self) -> None:
        """End every open event stream (the daemon restarts, say)."""
        for queue in self._streams:
            queue.put_nowait(_END)

    # -- the protocol ---------------------------------------------------------------------
    async def _check(self, request: web.Request) -> web.Response:
        return web.Response(status=200)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        queue: asyncio.Queue[object] = asyncio.Queue()
        self._streams.append(queue)
        self.subscriptions += 1
        try:
            await response.write(b":\n\n")
            while (item := await queue.get()) is not _END:
                await response.write(f"event:receive\ndata:{item}\n\n".encode())
        finally:
            self._streams.remove(queue)
        with contextlib.suppress(ConnectionError):
            await response.write_eof()
        return response

    async def _rpc(self, request: web.Request) -> web.Response:
        body = await request.json()
        assert body.get("jsonrpc") == "2.0" and "id" in body, body
        self.requests.append(body)
        method, params = body["method"], body.get("params") or {}
        if self.drop_when is not None and self.drop_when(body):
            self.drop_when = None
            params["_failed"] = True
            self.drop()
            raise web.HTTPServiceUnavailable()
        try:
            result = self._answer(method, params)
        except ValueError as exc:
            params["_failed"] = True
            return web.json_response(
                {"jsonrpc": "2.0", "id": body["id"], "error": {"code": -1, "message": str(exc)}}
            )
        return web.json_response({"jsonrpc": "2.0", "id": body["id"], "result": result})

    def _answer(self, method: str, params: dict[str, Any]) -> Any:
        if method == "version":
            return {"version": "0.13.18"}
        if method == "updateConfiguration":
            return {}
        if method in ("send", "sendTyping", "sendReaction"):
            has_recipient = isinstance(params.get("recipient"), list | str)
            if has_recipient == ("groupId" in params):
                raise ValueError("exactly one of recipient and groupId is required")
        if method == "sendTyping":
            return {}
        if method == "sendReaction":
            return {"timestamp": next(self._stamps)}
        if method != "send":
            raise ValueError(f"Method not implemented: {method}")
        if self.errors:
            raise ValueError(self.errors.pop(0))
        assert isinstance(params.get("message"), str), params
        for style in params.get("textStyle", []):
            assert _STYLE.match(style), style
        for path in params.get("attachments", []):
            self.files[path] = Path(path).read_bytes()
        return {"timestamp": next(self._stamps), "results": [{"type": "SUCCESS"}]}
