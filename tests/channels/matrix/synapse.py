"""A real Matrix homeserver (Synapse, on SQLite) on a loopback port, for the Matrix tests.

Synapse lives in its own venv (``.cache/synapse-venv``, made by ``scripts/setup.sh --test``;
``NANOBOT_TEST_SYNAPSE_PYTHON`` may point at another interpreter that has it). The config
turns off federation, rate limits and the sync response cache (so every test sees the live
state), and registers users through the shared-secret admin API.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

REPO = Path(__file__).resolve().parents[3]
SERVER_NAME = "localhost"
_UNLIMITED = "{per_second: 100000, burst_count: 100000}"


def synapse_python() -> Path:
    """The interpreter that has Synapse installed."""
    override = os.environ.get("NANOBOT_TEST_SYNAPSE_PYTHON")
    return Path(override) if override else REPO / ".cache" / "synapse-venv" / "bin" / "python"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Account:
    """A registered user."""

    user_id: str
    password: str
    access_token: str
    device_id: str


class Synapse:
    """One Synapse process and its data directory.

    Args:
        directory: Config, SQLite database, media and logs go here.
        python: The interpreter with Synapse.
    """

    def __init__(self, directory: Path, python: Path | None = None) -> None:
        self.directory = directory
        self.python = python or synapse_python()
        self.port = _free_port()
        self.secret = secrets.token_hex(16)
        self.process: subprocess.Popen[bytes] | None = None
        self.startup_s: list[float] = []  # wall time of every start, until it answered
        self._log = directory / "synapse.out"

    @property
    def url(self) -> str:
        """The client API base URL."""
        return f"http://127.0.0.1:{self.port}"

    def _write_config(self) -> Path:
        d = self.directory
        d.mkdir(parents=True, exist_ok=True)
        (d / "log.yaml").write_text(
            "version: 1\n"
            "formatters: {plain: {format: '%(asctime)s %(name)s %(levelname)s %(message)s'}}\n"
            "handlers: {file: {class: logging.FileHandler, formatter: plain, "
            f"filename: '{d / 'homeserver.log'}'}}}}\n"
            "root: {level: WARNING, handlers: [file]}\n"
            "disable_existing_loggers: false\n"
        )
        limits = "\n".join(
            f"{name}: {_UNLIMITED}"
            for name in (
                "rc_message",
                "rc_registration",
                "rc_admin_redaction",
                "rc_3pid_validation",
            )
        )
        config = f"""
server_name: "{SERVER_NAME}"
pid_file: "{d / "homeserver.pid"}"
listeners:
  - port: {self.port}
    bind_addresses: ["127.0.0.1"]
    type: http
    tls: false
    x_forwarded: false
    resources: [{{names: [client], compress: false}}]
database: {{name: sqlite3, args: {{database: "{d / "homeserver.db"}"}}}}
log_config: "{d / "log.yaml"}"
media_store_path: "{d / "media"}"
signing_key_path: "{d / "signing.key"}"
registration_shared_secret: "{self.secret}"
enable_registration: false
report_stats: false
trusted_key_servers: []
federation_domain_whitelist: []
suppress_key_server_warning: true
enable_metrics: false
url_preview_enabled: false
presence: {{enabled: false}}
bcrypt_rounds: 4
caches: {{sync_response_cache_duration: 0}}
{limits}
rc_login:
  address: {_UNLIMITED}
  account: {_UNLIMITED}
  failed_attempts: {_UNLIMITED}
rc_joins:
  local: {_UNLIMITED}
  remote: {_UNLIMITED}
rc_invites:
  per_room: {_UNLIMITED}
  per_user: {_UNLIMITED}
  per_issuer: {_UNLIMITED}
"""
        path = d / "homeserver.yaml"
        path.write_text(config)
        return path

    def start(self, timeout: float = 60.0) -> float:
        """Start (or restart on the same port and database); returns the seconds it took until
        the client API answered."""
        assert self.process is None, "already running"
        config = self.directory / "homeserver.yaml"
        began = time.monotonic()
        if not config.exists():
            config = self._write_config()
            subprocess.run(
                [str(self.python), "-m", "synapse.app.homeserver", "-c", str(config),
                 "--generate-keys"],
                check=True, capture_output=True, cwd=self.directory,
            )  # fmt: skip
        with self._log.open("ab") as out:
            self.process = subprocess.Popen(
                [str(self.python), "-m", "synapse.app.homeserver", "-c", str(config)],
                stdout=out, stderr=subprocess.STDOUT, cwd=self.directory,
            )  # fmt: skip
        deadline = began + timeout
        while True:
            if self.process.poll() is not None:
                tail = self._log.read_text(errors="replace")[-3000:]
                self.process = None
                raise RuntimeError(f"Synapse exited during start-up:\n{tail}")
            try:
                with urllib.request.urlopen(f"{self.url}/_matrix/client/versions", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("Synapse did not answer in time") from None
                time.sleep(0.05)
        took = time.monotonic() - began
        self.startup_s.append(took)
        return took

    def kill(self) -> None:
        """Make the server vanish at once (SIGKILL), as a crash or a lost host would."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
            self.process = None

    def stop(self) -> None:
        """Stop it cleanly."""
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
            self.process = None

    def _post(self, path: str, body: dict[str, object], token: str | None = None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return cast(dict[str, Any], json.loads(response.read()))

    def register(self, localpart: str, *, admin: bool = False) -> Account:
        """Register a user through the shared-secret admin API."""
        password = secrets.token_hex(8)
        with urllib.request.urlopen(f"{self.url}/_synapse/admin/v1/register", timeout=30) as r:
            nonce = json.loads(r.read())["nonce"]
        mac = hmac.new(self.secret.encode(), digestmod=hashlib.sha1)
        kind = b"admin" if admin else b"notadmin"
        mac.update(b"\x00".join([nonce.encode(), localpart.encode(), password.encode(), kind]))
        data = self._post(
            "/_synapse/admin/v1/register",
            {"nonce": nonce, "username": localpart, "password": password, "admin": admin,
             "mac": mac.hexdigest()},
        )  # fmt: skip
        return Account(data["user_id"], password, data["access_token"], data["device_id"])
