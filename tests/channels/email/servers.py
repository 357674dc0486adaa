"""Real mail servers on loopback for the email channel's tests.

* :class:`Dovecot`: a private Dovecot IMAP instance (Debian ``dovecot-imapd``) with its own
  config, base_dir, passwd-file and Maildir in a temporary directory; it never touches the
  system instance. Mail arrives by IMAP APPEND (as an MTA's delivery agent would store it) or,
  while the server is down, as a file in the Maildir's ``new/``.
* :class:`SmtpServer`: an ``aiosmtpd`` SMTP server with AUTH (and STARTTLS when given a
  certificate) that records every message it accepts.
* :func:`make_certificate`: a self-signed certificate for 127.0.0.1 (``openssl``), so the
  channel's default TLS settings are used with full verification (``SSL_CERT_FILE``).

Dovecot runs as root (its login processes drop to ``dovenull``, mail access to ``dovecot``).
"""

from __future__ import annotations

import contextlib
import imaplib
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from tests.typed import narrow

BOT = "bot@example.org"
IMAP_PASSWORD = "imap-pw-7f3a"
SMTP_PASSWORD = "smtp-pw-91c2"


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    """Poll ``condition`` (blocking) until true or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.02)


def dovecot_usable() -> str:
    """Why Dovecot cannot run here (``""`` when it can)."""
    if shutil.which("dovecot") is None:
        return "dovecot is not installed (apt-get install dovecot-imapd)"
    if os.geteuid() != 0:
        return "the private Dovecot instance is started as root"
    try:
        pwd.getpwnam("dovecot")
        pwd.getpwnam("dovenull")
    except KeyError:
        return "the dovecot/dovenull users are missing"
    return ""


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """``(cert, key)``: a self-signed certificate for 127.0.0.1 and localhost."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class Dovecot:
    """A private Dovecot IMAP server on 127.0.0.1.

    Args:
        tls: ``(cert, key)`` to serve IMAPS (implicit TLS) instead of plain IMAP.
        users: Login → password.
    """

    def __init__(
        self, *, tls: tuple[Path, Path] | None = None, users: dict[str, str] | None = None
    ) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="dovecot-test-"))
        self.root.chmod(0o755)
        self.users = users or {BOT: IMAP_PASSWORD}
        self.port = free_port()
        self.tls = tls
        self.process: subprocess.Popen[bytes] | None = None
        entry = pwd.getpwnam("dovecot")
        self.uid, self.gid = entry.pw_uid, entry.pw_gid
        (self.root / "mail").mkdir()
        os.chown(self.root / "mail", self.uid, self.gid)
        (self.root / "users").write_text(
            "".join(f"{user}:{{PLAIN}}{pw}\n" for user, pw in self.users.items())
        )
        self.config = self.root / "dovecot.conf"
        self.config.write_text(self._config_text())

    def _config_text(self) -> str:
        root = self.root
        if self.tls:
            cert, key = self.tls
            ssl_lines = f"ssl = required\nssl_cert = <{cert}\nssl_key = <{key}\n"
            listeners = (
                f"inet_listener imap {{\n    port = 0\n  }}\n  inet_listener imaps {{\n"
                f"    address = 127.0.0.1\n    port = {self.port}\n    ssl = yes\n  }}"
            )
        else:
            ssl_lines = "ssl = no\n"
            listeners = (
                f"inet_listener imap {{\n    address = 127.0.0.1\n    port = {self.port}\n"
                f"  }}\n  inet_listener imaps {{\n    port = 0\n  }}"
            )
        return f"""base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
{ssl_lines}disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
mail_location = maildir:{root}/mail/%u
default_internal_user = dovecot
default_login_user = dovenull
first_valid_uid = {self.uid}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = static
  args = uid={self.uid} gid={self.gid} home={root}/mail/%u
}}
service imap-login {{
  chroot =
  {listeners}
}}
service anvil {{
  chroot =
}}
"""

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> Dovecot:
        """Start (or restart) the server and wait until a login works."""
        assert self.process is None
        self.process = subprocess.Popen(
            ["dovecot", "-F", "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: stop() ends every process of it
        )
        try:
            wait_until(self._answers, 60.0, "dovecot to accept logins")
        except BaseException:
            self.stop()
            raise
        return self

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(f"dovecot exited: {self.log()[-2000:]}")
        try:
            client = self.client()
        except (OSError, imaplib.IMAP4.error):
            return False
        client.logout()
        return True

    def stop(self, *, kill: bool = False) -> None:
        """Stop the server and every process of it: the port closes and connected clients are
        cut off (Dovecot's own shutdown lets running imap processes linger a while).

        Args:
            kill: End it abruptly (SIGKILL: no goodbye to the clients, as in a crash).
        """
        if self.process is None:
            return
        group = self.process.pid  # the session leader's pid is the process group id
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL if kill else signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self.process = None

        def gone() -> bool:  # no live process left in the group (zombies do not count)
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if fields[2] == str(group) and fields[0] != "Z":
                    return False
            return True

        wait_until(gone, 10.0, "every dovecot process to end")

    def close(self) -> None:
        """Stop and remove every file."""
        self.stop(kill=True)
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        """The server's log."""
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace") if path.exists() else ""

    # -- mail -----------------------------------------------------------------------------
    def client(self, user: str = BOT) -> imaplib.IMAP4:
        """A logged-in IMAP client with INBOX selected."""
        if self.tls:
            context = ssl.create_default_context(cafile=str(self.tls[0]))
            client: imaplib.IMAP4 = imaplib.IMAP4_SSL(
                "127.0.0.1", self.port, ssl_context=context, timeout=5
            )
        else:
            client = imaplib.IMAP4("127.0.0.1", self.port, timeout=5)
        try:
            client.login(user, self.users[user])
            client.select("INBOX")
        except BaseException:  # refused while the server starts: the socket is closed, not left
            client.shutdown()
            raise
        return client

    def append(self, raw: bytes, user: str = BOT) -> None:
        """Deliver a mail (unseen) by IMAP APPEND."""
        client = self.client(user)
        try:
            status, data = client.append("INBOX", None, None, raw)
            assert status == "OK", data
        finally:
            client.logout()

    def drop(self, raw: bytes, user: str = BOT) -> Path:
        """Deliver a mail as a file in the Maildir's ``new/`` (works while the server is down)."""
        new = self.root / "mail" / user / "new"
        assert new.is_dir(), "the Maildir exists after the first login"
        name = f"{time.time():.6f}.{uuid.uuid4().hex}.test"
        tmp = new.parent / "tmp" / name
        tmp.write_bytes(raw.replace(b"\r\n", b"\n"))
        os.chown(tmp, self.uid, self.gid)
        tmp.rename(new / name)
        return new / name

    def flags(self, user: str = BOT) -> dict[str, set[str]]:
        """Message-ID → flags of every mail in INBOX."""
        client = self.client(user)
        try:
            found: dict[str, set[str]] = {}
            if int(narrow(client.untagged_responses.get("EXISTS", [b"0"])[-1], bytes)) == 0:
                return found
            status, data = client.fetch("1:*", "(FLAGS BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
            if status != "OK" or not data or data == [None]:
                return found
            for item in data:
                if isinstance(item, tuple):
                    head = item[0].decode()
                    flags = set(head.split("FLAGS (", 1)[1].split(")", 1)[0].split())
                    header = BytesParser(policy=policy.default).parsebytes(item[1])
                    found[str(header.get("Message-ID", "")).strip()] = flags
            return found
        finally:
            client.logout()

    def set_unseen(self, message_id: str, user: str = BOT) -> None:
        """Remove ``\\Seen`` from the mail with ``message_id``."""
        client = self.client(user)
        try:
            status, data = client.search(None, "HEADER", "Message-ID", message_id)
            assert status == "OK" and data[0], data
            client.store(data[0].split()[0].decode(), "-FLAGS", "(\\Seen)")
        finally:
            client.logout()

    def renumber(self, user: str = BOT) -> None:
        """Make the server give the mailbox a new UIDVALIDITY (stop it first)."""
        assert self.process is None
        box = self.root / "mail" / user
        for path in box.iterdir():
            if path.name.startswith("dovecot"):
                path.unlink()


@dataclass
class Received:
    """One message the SMTP server accepted."""

    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    login: str


class _Handler:
    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    async def handle_DATA(self, smtp: Any, session: Any, envelope: Any) -> str:
        message = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        login = session.auth_data.login.decode() if session.auth_data else ""
        with self.server.lock:
            self.server.received.append(
                Received(envelope.mail_from, list(envelope.rcpt_tos), message, login)
            )
        return "250 OK"


class SmtpServer:
    """aiosmtpd on 127.0.0.1 with AUTH (and STARTTLS when ``tls`` is given)."""

    def __init__(self, *, tls: tuple[Path, Path] | None = None) -> None:
        self.port = free_port()
        self.tls = tls
        self.lock = threading.Lock()
        self.received: list[Received] = []
        self.logins: dict[str, str] = {BOT: SMTP_PASSWORD}
        self._controller: Any = None

    def _authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any
    ) -> Any:
        from aiosmtpd.smtp import AuthResult, LoginPassword

        ok = (
            isinstance(auth_data, LoginPassword)
            and self.logins.get(auth_data.login.decode()) == auth_data.password.decode()
        )
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    def start(self) -> SmtpServer:
        """Start (or restart, on the same port) the server."""
        from aiosmtpd.controller import Controller

        options: dict[str, Any] = {"authenticator": self._authenticate, "auth_required": True}
        if self.tls:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(str(self.tls[0]), str(self.tls[1]))
            options.update(tls_context=context, require_starttls=True)
        else:
            options.update(auth_require_tls=False)
        self._controller = Controller(
            _Handler(self), hostname="127.0.0.1", port=self.port, ready_timeout=10, **options
        )
        self._controller.start()
        return self

    def stop(self) -> None:
        """Stop the server (the port closes)."""
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def messages(self, to: str | None = None) -> list[EmailMessage]:
        """Accepted messages (to ``to`` only, when given), in arrival order."""
        with self.lock:
            return [r.message for r in self.received if to is None or to in r.rcpt_tos]
