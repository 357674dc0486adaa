"""The notification client's connection is closed however its work ends: cancelled at any
await of the open (authentication, ``Hello``, ``AddMatch``, ``GetServerInformation``,
``GetCapabilities``) or while it closes. A real ``dbus-daemon`` on a private bus, with the
scripted notification service; a cancel is aimed at one await by holding that call there."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from jeepney import HeaderFields
from jeepney.io.asyncio import DBusRouter
from pytestqt.qtbot import QtBot

from desktop.ui.freedesktop import FreedesktopNotifications
from tests.fakes.notification_server import FakeNotificationServer, PrivateBus
from tests.ui.conftest import run_async
from tests.waiting import until

pytestmark = pytest.mark.usefixtures("qloop")


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeNotificationServer]:
    """A private session bus with the scripted notification service on it."""
    try:
        bus = PrivateBus()
    except FileNotFoundError:
        pytest.skip("dbus-daemon is not installed")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
    fake = FakeNotificationServer(bus.address).start()
    yield fake
    fake.stop()
    bus.close()


@pytest.fixture
def writers(monkeypatch: pytest.MonkeyPatch) -> list[asyncio.StreamWriter]:
    """The client side of every bus connection opened during the test."""
    opened: list[asyncio.StreamWriter] = []
    plain = asyncio.open_unix_connection

    async def recording(
        path: str | None = None, **kwargs: Any
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await plain(path, **kwargs)
        opened.append(writer)
        return reader, writer

    monkeypatch.setattr(asyncio, "open_unix_connection", recording)
    return opened


def _hold(monkeypatch: pytest.MonkeyPatch, member: str) -> asyncio.Event:
    """Hold the first method call ``member`` before it is sent, until the caller is cancelled
    (later calls go through); returns the event set when the call is held."""
    held = asyncio.Event()
    send = DBusRouter.send_and_get_reply

    async def holding(router: DBusRouter, message: Any) -> Any:
        if message.header.fields.get(HeaderFields.member) == member and not held.is_set():
            held.set()
            await asyncio.Event().wait()  # the cancel lands here
        return await send(router, message)

    monkeypatch.setattr(DBusRouter, "send_and_get_reply", holding)
    return held


def _receivers() -> list[asyncio.Task[Any]]:
    """Pending receiver tasks of jeepney routers (one per open connection)."""
    return [
        task
        for task in asyncio.all_tasks()
        if not task.done()
        and getattr(task.get_coro(), "__qualname__", "") == "DBusRouter._receiver"
    ]


async def _closed(writers: list[asyncio.StreamWriter]) -> None:
    """Every recorded connection is closing (the client closed it); wait until it is closed."""
    assert writers, "no connection was opened"
    assert all(writer.transport.is_closing() for writer in writers), "a connection left open"
    for writer in writers:
        await writer.wait_closed()
    assert not _receivers(), "a router's receiver task left running"


async def _cancelled(work: Coroutine[Any, Any, Any], reached: asyncio.Event) -> None:
    """Run ``work`` until ``reached`` is set, cancel it there, and check it ends cancelled."""
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(reached.wait())
    await asyncio.wait([task, waiter], timeout=10, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    reached_in_time = reached.is_set() and not task.done()
    task.cancel()
    assert reached_in_time, "the await to cancel was not reached"
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("member", ["Hello", "AddMatch", "GetServerInformation", "GetCapabilities"])
def test_a_cancelled_open_closes_its_connection(
    member: str,
    service: FakeNotificationServer,
    writers: list[asyncio.StreamWriter],
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
) -> None:
    """Cancelled while it waits for ``member``'s answer, the open closes the connection it
    had opened; a later open connects afresh and works."""
    client = FreedesktopNotifications()
    held = _hold(monkeypatch, member)

    async def scenario() -> None:
        await _cancelled(client.open(), held)
        assert not client.connected
        await _closed(writers)
        assert await client.open() is True  # a later open connects afresh
        assert client.server[0] == "fake"
        await client.close()

    run_async(qtbot, qloop, scenario())


def test_a_cancelled_open_closes_its_socket_while_authenticating(
    tmp_path: Path,
    writers: list[asyncio.StreamWriter],
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
) -> None:
    """A bus that takes the connection but never answers the authentication: cancelled while
    it waits, the open closes the socket (the bus side sees it end)."""
    path = tmp_path / "bus"
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={path}")
    received = asyncio.Event()
    ended = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await reader.read(1024):
                received.set()  # the client's AUTH line: it now waits for an answer
            ended.set()
        finally:
            writer.close()

    async def scenario() -> None:
        server = await asyncio.start_unix_server(silent, path=str(path))
        try:
            await _cancelled(FreedesktopNotifications().open(), received)
            await until(ended.is_set, 5, "the bus side to see the connection end")
            await _closed(writers)
        finally:
            server.close()
            await server.wait_closed()

    run_async(qtbot, qloop, scenario())


def test_a_cancelled_close_still_closes_the_connection(
    service: FakeNotificationServer,
    writers: list[asyncio.StreamWriter],
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
) -> None:
    """``close`` cancelled while the router stops (e.g. the app quitting) still closes the
    connection before the cancel goes on."""
    client = FreedesktopNotifications()
    stopping = asyncio.Event()
    release = asyncio.Event()
    leave = DBusRouter.__aexit__

    async def slow_exit(router: DBusRouter, *exc: object) -> Any:
        stopping.set()
        await release.wait()
        return await leave(router, *exc)

    async def scenario() -> None:
        assert await client.open() is True
        monkeypatch.setattr(DBusRouter, "__aexit__", slow_exit)
        task = asyncio.ensure_future(client.close())
        await until(stopping.is_set, 10, "close to stop the router")
        task.cancel()
        release.set()  # after the cancel: it has reached close first
        with pytest.raises(asyncio.CancelledError):
            await task
        await _closed(writers)

    run_async(qtbot, qloop, scenario())
