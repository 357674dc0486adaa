"""An HTTP forward proxy on loopback for the Telegram channel's proxy setting."""

from __future__ import annotations

import aiohttp
from aiohttp import web


class ForwardProxy:
    """An HTTP forward proxy on loopback that records the URLs it forwards."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> ForwardProxy:
        """Serve on a free port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120))
        runner = web.AppRunner(app, shutdown_timeout=0.2, handler_cancellation=True)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.port = runner.addresses[0][1]
        self._runner = runner
        return self

    async def stop(self) -> None:
        """Stop serving."""
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.Response:
        target = str(request.url)  # the absolute URL of a proxied request
        self.seen.append(target)
        assert self._session is not None
        hop = {"host", "proxy-connection", "connection", "content-length", "transfer-encoding"}
        headers = {k: v for k, v in request.headers.items() if k.lower() not in hop}
        body = await request.read()
        async with self._session.request(
            request.method, target, headers=headers, data=body
        ) as upstream:
            data = await upstream.read()
            return web.Response(
                status=upstream.status,
                body=data,
                content_type=upstream.content_type,
            )
