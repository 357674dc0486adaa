"""The conformance suite's fixtures: one :class:`~tests.channels.harness.Rig` per test, for the
channel the test is parametrized with (``channel``: see ``adapters/__init__.py``)."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.channels.conformance.adapters import adapter
from tests.channels.email.conftest import certificate, dovecot, smtp  # noqa: F401 - fixtures
from tests.channels.harness import Rig
from tests.channels.matrix.conftest import synapse  # noqa: F401 - the session's Synapse
from tests.fakes.openai_server import ScriptedOpenAIServer


@pytest.fixture
async def rig(
    channel: str,
    request: pytest.FixtureRequest,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
) -> AsyncIterator[Rig]:
    """The channel's local server running, and a rig to start the runtime against it."""
    # LiteLLM's first import takes seconds: paid here, not inside a case's deadline.
    await asyncio.to_thread(importlib.import_module, "litellm")
    cut = await adapter(channel, request)
    reason = cut.caps.xfail.get(request.node.originalname)
    if reason:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=reason))
    await cut.start_server()
    rig = Rig(cut, scripted_server, tmp_path)
    try:
        yield rig
    finally:
        try:
            await rig.stop()
        finally:
            await cut.stop_server()
