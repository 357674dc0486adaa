"""The channels' sentences for the person stay phrases (the window translates them) and keep
their English: a refused connection, a channel's own refusal, an SDK's text, a secret."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from types import SimpleNamespace

from desktop.core.bus.queue import MessageBus
from desktop.core.channels.base import ChannelStatus, ChannelUnavailable
from desktop.core.channels.errors import explain
from desktop.core.channels.manager import ChannelManager
from desktop.core.config.channels.signal import SignalConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret
from desktop.core.utils.tasks import TaskOwner
from tests.waiting import until


async def _refused() -> BaseException:
    with socket.socket() as probe:  # a free port, closed again: connecting is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        return exc
    raise AssertionError("the closed port accepted a connection")


def test_a_refused_connection_is_a_marked_phrase() -> None:
    said = explain(asyncio.run(_refused()))
    assert said == "The server refused the connection (is it running, and is the port right?)"
    assert isinstance(said, Phrase) and said.template == str(said)


def test_a_channels_refusal_keeps_its_template_without_the_full_stop() -> None:
    exc = ChannelUnavailable(
        Phrase(QT_TR_NOOP("Discord refused the message ({error})."), error="Missing Access")
    )
    said = explain(exc)
    assert said == "Discord refused the message (Missing Access)"  # as before: no full stop
    assert isinstance(said, Phrase)
    assert said.template == "Discord refused the message ({error})."
    assert said.fields == {"error": "Missing Access"}


def test_an_sdks_own_text_and_a_secret_stay_plain_text() -> None:
    assert type(explain(RuntimeError("[Errno 5] socket closed"))) is str
    secret = "xoxb-r2chan-secret-0123456789"
    register_secret(secret)
    exc = ChannelUnavailable(Phrase(QT_TR_NOOP("Linking failed: {error}"), error=secret))
    said = explain(exc)
    assert secret not in said  # redacted in English; no phrase could bring the field back
    assert type(said) is str


def test_status_and_unavailable_texts_are_phrases_with_the_same_english() -> None:
    exc = ChannelUnavailable(QT_TR_NOOP("No bot token is set."), "Set it.")
    assert isinstance(exc.reason, Phrase) and isinstance(exc.hint, Phrase)
    assert exc.args == ("No bot token is set.",) and isinstance(exc.args[0], Phrase)
    assert exc.with_hint() == "No bot token is set. Set it."
    assert ChannelUnavailable(QT_TR_NOOP("Gone")).with_hint() == "Gone"
    status = ChannelStatus("error", "WhatsApp is not linked yet", "Scan the code.")
    assert isinstance(status.reason, Phrase) and status.reason == "WhatsApp is not linked yet"
    assert isinstance(status.hint, Phrase)
    assert ChannelStatus("connected").reason == ""


def test_a_capitalised_lost_connection_stays_a_phrase() -> None:
    said = explain(ConnectionError(Phrase(QT_TR_NOOP("the connection ended"))))
    assert said == "The connection ended"  # as before: the first letter capitalised
    assert isinstance(said, Phrase) and said.template == "the connection ended"


async def _status_against(answer: bytes, tmp_path: Path) -> ChannelStatus:
    """The real Signal channel against a local HTTP server that answers ``answer`` to all."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    section = SignalConfig(
        enabled=True, phone_number="+4912345678", daemon_host="127.0.0.1", daemon_port=port
    )
    config = SimpleNamespace(channels=SimpleNamespace(signal=section))
    owner = TaskOwner("r2chan-signal")
    manager = ChannelManager(MessageBus(), owner, config=config, state_dir=tmp_path)  # type: ignore[arg-type]
    try:
        await manager.start_channel("signal")
        await until(lambda: manager.status("signal").state == "error", timeout=30)
        return manager.status("signal")
    finally:
        await manager.stop_channel("signal")
        await owner.aclose()
        server.close()
        await server.wait_closed()


def test_a_daemon_error_status_is_a_phrase_with_its_english(tmp_path: Path) -> None:
    answer = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    status = asyncio.run(_status_against(answer, tmp_path))
    assert status.reason == "The signal-cli daemon answered the check with HTTP 500"
    assert isinstance(status.reason, Phrase)
    assert status.reason.template == "The signal-cli daemon answered the check with HTTP {code}"
    assert status.hint.startswith("Reconnecting in ")
    assert isinstance(status.hint, Phrase) and status.hint.template == "Reconnecting in {delay} s."
