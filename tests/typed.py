"""Small typed helpers for tests: narrowing a value the test knows is there."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from desktop.core.channels.base import BaseChannel

if TYPE_CHECKING:
    from desktop.core.runtime import Runtime

T = TypeVar("T")


def present(value: T | None) -> T:
    """``value``, which the test expects to exist (a job, a tool, a table cell); a missing
    one fails the test here, with a clear message, instead of as an AttributeError later."""
    assert value is not None, "expected a value, got None"
    return value


def narrow(value: object, cls: type[T]) -> T:
    """``value`` checked to be a ``cls``: an object the test knows more about than its static
    type says (a running channel behind the manager's protocol, a JSON value)."""
    assert isinstance(value, cls), f"expected a {cls.__name__}, got {type(value).__name__}"
    return value


def running_channel(runtime: Runtime, name: str) -> BaseChannel[Any]:
    """The chat channel ``name`` registered with ``runtime`` (the manager types it as the
    protocol every delivery target shares; a chat network's channel is a BaseChannel)."""
    channel = runtime.channels.channel(name)
    assert isinstance(channel, BaseChannel), f"{name}: {type(channel).__name__}"
    return channel
