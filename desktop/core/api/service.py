"""The API service: the agent runtime built as every start path builds it, plus the server.

``nanobot-desktop serve`` runs it; tests start it in-process on the scripted model server.
Reminders, the heartbeat and chat networks are not started (``gateway`` runs those): the
runtime's loop answers the API's turns, and messages the agent sends elsewhere go to
``fallback``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.api.server import ApiChannel, ApiServer
from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.bus.events import OutboundMessage
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMProvider
from desktop.core.providers.presets import default_target
from desktop.core.runtime import Runtime


@dataclass
class ApiService:
    """A running API: the runtime, the server and the port it listens on."""

    runtime: Runtime
    server: ApiServer
    port: int

    async def stop(self) -> None:
        """Stop listening, end running requests, then stop the runtime."""
        try:
            await self.server.stop()
        finally:
            await self.runtime.stop()


async def start_api(
    config: Config,
    provider: LLMProvider,
    *,
    token: str,
    host: str = "127.0.0.1",
    port: int = 0,
    timeout_s: float = 120.0,
    approval: ApprovalPolicy | None = None,
    prefs: PrefsStore | None = None,
    secrets: SecretStore | None = None,
    fallback: Callable[[OutboundMessage], None] | None = None,
) -> ApiService:
    """Build the runtime for ``config`` on ``provider``, start its loop and the server.

    Args:
        config: Loaded config (stored secrets already injected).
        provider: The model backend.
        token: The bearer token requests must carry.
        host: Address to listen on.
        port: Port (0: any free one; :attr:`ApiService.port` says which).
        timeout_s: Seconds a request's turn may run.
        approval: The person's approval rules (``None``: no gate, nothing is asked —
            nanobot's behaviour); nobody can answer over the API, so what needs a yes and
            is not allowed is refused.
        prefs: ``desktop.json`` (budgets, Dream review), read live; ``None``: read once from
            beside the config.
        secrets: Where keys for a chat's own model or a fallback model are found.
        fallback: Where messages for channels that are not running go (default: the log).

    Raises:
        OSError: The address cannot be bound (the runtime is stopped again).
    """
    options = StartOptions(  # the one start path; no chat networks, scheduler or socket
        networks=False,
        scheduler=False,
        serve_socket=False,
        probe_window=False,
        provider=provider,
        secrets=secrets,
        prefs=prefs,
        approval=approval,
    )
    runtime = await start_runtime(config, options)
    channel = ApiChannel()
    runtime.channels.register(channel)
    runtime.channels.set_fallback(fallback)
    server = ApiServer(
        runtime.agent,
        channel,
        token=token,
        model=lambda: default_target(config).model,  # nanobot's name for it: the config's
        workspace=config.workspace_path,
        owner=runtime.owner.child("api"),
        timeout_s=timeout_s,
    )
    try:
        bound = await server.start(host, port)
    except BaseException:
        await server.stop()
        await runtime.stop()
        raise
    return ApiService(runtime, server, bound)
