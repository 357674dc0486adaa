"""Fixtures for the email channel: real Dovecot and SMTP servers on loopback with TLS (a
self-signed certificate trusted through ``SSL_CERT_FILE``), mails to deliver, and a real agent
runtime (``build_runtime`` on the scripted model server) with the email channel enabled."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.channels.email import channel as email_channel
from desktop.core.channels.email.channel import EmailChannel
from desktop.core.config.schema import Config
from desktop.core.runtime import Runtime
from tests.channels.email.servers import (
    BOT,
    IMAP_PASSWORD,
    SMTP_PASSWORD,
    Dovecot,
    SmtpServer,
    dovecot_usable,
    make_certificate,
)
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until as until

AUTHSERV = "mx.test"
MARK = re.compile(r"\[q:([\w-]+)\]")
POLL_S = 0.1
"""The tests' poll interval: a poll is a UID SEARCH on the local Dovecot (cheap), and every
mail a test sends otherwise waits up to the product's 1 s floor to be read."""


class Polls:
    """Counts the polls the email channels finished, so that a test proving that nothing more
    happens waits for the channel's next polls by name, not for a guessed time."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.done = 0
        poll = EmailChannel.poll

        async def counted(channel: EmailChannel, mailbox: Any) -> None:
            await poll(channel, mailbox)
            self.done += 1

        monkeypatch.setattr(EmailChannel, "poll", counted)

    async def more(self, count: int = 3) -> None:
        """Wait until ``count`` more polls (and the flagging between them) have run."""
        start = self.done
        await until(lambda: self.done >= start + count, what=f"{count} more polls")


def fast_polls(monkeypatch: pytest.MonkeyPatch) -> Polls:
    """Let the channel poll every :data:`POLL_S` (with ``pollIntervalSeconds: 0`` from
    :func:`email_section`) and count its polls."""
    monkeypatch.setattr(email_channel, "MIN_POLL_S", POLL_S)
    return Polls(monkeypatch)


@pytest.fixture(autouse=True)
def polls(monkeypatch: pytest.MonkeyPatch) -> Polls:
    """Every email test polls fast (see :func:`fast_polls`)."""
    return fast_polls(monkeypatch)


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1."""
    return make_certificate(tmp_path_factory.mktemp("tls"))


def require_dovecot() -> None:
    """Skip the test when Dovecot cannot run here, or fail it when
    ``NANOBOT_TEST_REQUIRE_DOVECOT=1`` says it must (``scripts/test.sh``, CI)."""
    reason = dovecot_usable()
    if not reason:
        return
    if os.environ.get("NANOBOT_TEST_REQUIRE_DOVECOT") == "1":
        pytest.fail(f"{reason} (NANOBOT_TEST_REQUIRE_DOVECOT=1: the Email tests must run)")
    pytest.skip(reason)


@pytest.fixture
def dovecot(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[Dovecot]:
    """A private Dovecot serving IMAPS on a free loopback port."""
    require_dovecot()
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    server = Dovecot(tls=certificate).start()
    yield server
    server.close()


@pytest.fixture
def smtp(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[SmtpServer]:
    """An SMTP server with STARTTLS and AUTH that records what it accepts."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    server = SmtpServer(tls=certificate).start()
    yield server
    server.stop()


def mail(
    sender: str,
    subject: str,
    body: str,
    message_id: str,
    *,
    references: str = "",
    in_reply_to: str = "",
    auth: str | list[str] | None = "pass",
    html: str | None = None,
    files: list[tuple[str, str, bytes]] = (),  # type: ignore[assignment]
) -> bytes:
    """A mail as the provider would store it: with its Authentication-Results header.

    Args:
        auth: ``"pass"``: aligned SPF and DKIM passes from the trusted ``mx.test``; ``None``:
            no header; anything else is the header's value (a list: several headers).
        html: An HTML alternative (or the only body when ``body`` is empty).
        files: ``(name, mime type, data)`` attachments.
    """
    message = EmailMessage()
    address = sender.rpartition("<")[2].rstrip(">")
    domain = address.rpartition("@")[2]
    if auth == "pass":
        message["Authentication-Results"] = (
            f"{AUTHSERV}; spf=pass smtp.mailfrom={address}; dkim=pass header.d={domain} "
            "header.s=sel"
        )
    elif auth is not None:
        for value in [auth] if isinstance(auth, str) else auth:
            message["Authentication-Results"] = value
    message["From"] = sender
    message["To"] = BOT
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = message_id
    if references:
        message["References"] = references
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
    if body or html is None:
        message.set_content(body)
        if html is not None:
            message.add_alternative(html, subtype="html")
    else:
        message.set_content(html, subtype="html")
    for name, kind, data in files:
        main, _, sub = kind.partition("/")
        message.add_attachment(data, maintype=main, subtype=sub, filename=name)
    return message.as_bytes()


def email_section(dovecot: Dovecot, smtp: SmtpServer, **overrides: Any) -> dict[str, Any]:
    """``channels.email`` for the test servers (TLS on, as the defaults say)."""
    section: dict[str, Any] = {
        "enabled": True,
        "consentGranted": True,
        "imapHost": "127.0.0.1",
        "imapPort": dovecot.port,
        "imapUsername": BOT,
        "imapPassword": IMAP_PASSWORD,
        "smtpHost": "127.0.0.1",
        "smtpPort": smtp.port,
        "smtpUsername": BOT,
        "smtpPassword": SMTP_PASSWORD,
        "pollIntervalSeconds": 0,  # the floor, MIN_POLL_S, which the tests lower
        "allowFrom": ["alice@example.org", "bob@example.org"],
        "trustedAuthservIds": [AUTHSERV],
    }
    section.update(overrides)
    return section


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last message of a chat request when it is the person's."""
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return ""
    content = messages[-1].get("content")
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def echo_marks(body: dict[str, Any]) -> Reply | None:
    """Route: a mail carrying ``[q:NAME]`` is answered ``Answer to NAME``."""
    found = MARK.findall(last_user_text(body))
    return Reply(f"Answer to {found[-1]}") if found else None


async def until_async(condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> None:
    """Like :func:`until` for a blocking check (run in a thread)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await asyncio.to_thread(condition):
        assert loop.time() < deadline, f"timed out waiting for {what or condition}"
        await asyncio.sleep(0.05)


async def start_agent(
    tmp_path: Path,
    model: ScriptedOpenAIServer,
    dovecot: Dovecot,
    smtp: SmtpServer,
    *,
    build: dict[str, Any] | None = None,
    **email: Any,
) -> Runtime:
    """A started runtime with the email channel on the test servers."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {
            "agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}},
            "channels": {"email": email_section(dovecot, smtp, **email)},
        }
    )
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), **(build or {})
    )
    runtime.channels.backoff = (0.2, 0.4)
    runtime.channels.send_delays = (0.5, 1.0, 2.0, 4.0)
    await runtime.start()
    return runtime


def session_lines(runtime: Runtime, key: str) -> list[dict[str, Any]]:
    """The messages stored in a session file."""
    path = runtime.sessions.path_for(key)
    return [json.loads(line) for line in path.read_text().splitlines()][1:]
