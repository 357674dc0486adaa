"""A cancel (/stop, quitting) is never lost on the way through a bounded wait.

On Python 3.11 ``asyncio.wait_for`` returns the result and drops a cancel that arrives in the
same loop step as the awaited thing completes. That is how a /stop during a streamed answer was
lost now and then: the answer streamed on and was saved as finished. The code uses
``asyncio.timeout`` instead (ruff bans ``wait_for`` in the product: TID251).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop.core.config.provider_registry import find_by_name
from desktop.core.providers.base import StreamDelta
from desktop.core.providers.litellm_provider import LiteLLMProvider, import_litellm
from desktop.core.providers.matching import ProviderChoice
from desktop.core.utils.tasks import cancel_and_wait


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


class _Stream:
    """A LiteLLM-like stream whose next chunk is released by the test (``release``)."""

    def __init__(self, pieces: list[str]) -> None:
        self.chunks = [_chunk({"content": p}) for p in pieces] + [_chunk({}, "stop")]
        self.received_finish_reason = "stop"
        self.gate: asyncio.Future[None] | None = None
        self.served = 0

    def __aiter__(self) -> _Stream:
        return self

    async def __anext__(self) -> dict[str, Any]:
        if self.served >= len(self.chunks):
            raise StopAsyncIteration
        if self.served:  # every chunk after the first waits for the test
            self.gate = asyncio.get_running_loop().create_future()
            await self.gate
        self.served += 1
        return self.chunks[self.served - 1]

    def release(self) -> None:
        assert self.gate is not None
        self.gate.set_result(None)


async def test_a_stop_as_the_next_chunk_arrives_ends_the_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chunk and the cancel land in the same loop step: the cancel wins, nothing more is
    read (before: the stream went on to the end and the call returned the whole answer)."""
    stream = _Stream(["one ", "two ", "three"])

    async def acompletion(**_kwargs: Any) -> _Stream:
        return stream

    monkeypatch.setattr(import_litellm(), "acompletion", acompletion)
    spec = find_by_name("custom")
    assert spec is not None
    provider = LiteLLMProvider(
        ProviderChoice(
            spec=spec, section="custom", model="openai/x", api_base="http://127.0.0.1:9"
        ),
        retry_delays=(),
    )
    seen: list[str] = []
    loop = asyncio.get_running_loop()

    async def on_delta(delta: StreamDelta) -> None:
        seen.append(delta.text)
        if len(seen) == 1:  # the stream now waits for chunk 2: release it and stop together

            def release_and_stop() -> None:
                stream.release()
                call.cancel()

            loop.call_soon(release_and_stop)

    call = asyncio.ensure_future(
        provider.chat_stream([{"role": "user", "content": "hi"}], on_delta=on_delta)
    )
    with pytest.raises(asyncio.CancelledError):
        await call
    assert seen == ["one "]  # nothing after the stop was handed on


async def test_cancel_and_wait_passes_on_a_cancel_of_the_caller() -> None:
    """Waiting for a cancelled task to end does not swallow a cancel aimed at the waiter."""
    ending = asyncio.Event()

    async def slow_to_end() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await ending.wait()  # cleans up for a while
            raise

    task = asyncio.ensure_future(slow_to_end())
    await asyncio.sleep(0)
    waiter = asyncio.ensure_future(cancel_and_wait(task))
    await asyncio.sleep(0.01)
    waiter.cancel()
    ending.set()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert task.cancelled()


async def test_cancel_and_wait_in_the_clean_up_of_a_cancelled_task_lets_the_clean_up_go_on() -> (
    None
):
    """In a ``finally`` reached by a cancel, the helper ends and the clean-up after it runs."""
    cleaned: list[bool] = []

    async def worker() -> None:
        helper = asyncio.ensure_future(asyncio.sleep(3600))
        try:
            await asyncio.sleep(3600)
        finally:
            await cancel_and_wait(helper)
            cleaned.append(helper.cancelled())  # e.g. closing the connection the helper used

    task = asyncio.ensure_future(worker())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task  # the cancel still goes on, after the clean-up
    assert cleaned == [True]


async def test_cancel_and_wait_absorbs_the_tasks_own_end() -> None:
    """The task's own cancel (or failure while ending) does not reach the caller."""

    async def fails_on_cancel() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise RuntimeError("cleanup failed") from None

    for body in (asyncio.sleep(3600), fails_on_cancel()):
        task = asyncio.ensure_future(body)
        await asyncio.sleep(0)
        await cancel_and_wait(task)
        assert task.done()
