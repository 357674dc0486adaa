"""The test run's own Secret Service (scripts/secret_service.sh, used by scripts/test.sh).

gnome-keyring-daemon has aborted mid-run in CI (a property read from a client already gone).
The session bus starts the daemon from the script's service file, so the next keyring call
after such an exit starts it again, unlocked, on the same keyring, and the end of the run says
it happened. Here for real: a private session bus, the real daemon killed with SIGKILL, the real
``keyring`` library before and after.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.real_keyring import REQUIRE_ENV

TOOLS = ("gnome-keyring-daemon", "dbus-run-session", "dbus-send", "setsid")

# Inside the private session: store a secret, kill the daemon, read the secret back.
IN_SESSION = r"""
set -euo pipefail
. "$REPO/scripts/secret_service.sh"
daemon() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets |
    awk '/uint32/ {print $2}'
}
dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
  org.freedesktop.DBus.Peer.Ping >/dev/null
"$PY" -c 'import keyring; keyring.set_password("nanobot-desktop-restart-test", "u", "s3cret-before")'
first=$(daemon)
kill -9 "$first"
while kill -0 "$first" 2>/dev/null; do sleep 0.1; done
echo "read: $("$PY" -c 'import keyring; print(keyring.get_password("nanobot-desktop-restart-test", "u"))')"
second=$(daemon)
[ -n "$second" ] && [ "$second" != "$first" ] && echo "a new daemon"
"$PY" -c 'import keyring; keyring.delete_password("nanobot-desktop-restart-test", "u")'
secret_service_restarts
kill "$second"
"""

OUTSIDE = r"""
set -euo pipefail
. "$REPO/scripts/secret_service.sh"
secret_service_home
echo "home: $HOME_FOR_KEYRING"
exec dbus-run-session -- bash -c "$IN_SESSION"
"""


def test_a_daemon_killed_mid_run_is_started_again_on_the_same_keyring(tmp_path: Path) -> None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {', '.join(missing)} missing")
        pytest.skip(f"needs {', '.join(missing)}")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DBUS_", "XDG_", "HOME_FOR_KEYRING"))
    }
    env.update(
        REPO=str(REPO),
        PY=sys.executable,
        IN_SESSION=IN_SESSION,
        TMPDIR=str(tmp_path),
        PYTHON_KEYRING_BACKEND="keyring.backends.SecretService.Keyring",
    )
    result = subprocess.run(
        ["bash", "-c", OUTSIDE],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    out = result.stdout
    assert "read: s3cret-before" in out, (out, result.stderr)
    assert "a new daemon" in out, out
    home = Path(next(line for line in out.splitlines() if line.startswith("home: "))[6:])
    assert home.parent == tmp_path  # the keyring lives in the run's own folder
    assert len((home / "starts").read_text().splitlines()) == 2
    assert "was started again" in result.stderr
    assert len((tmp_path / "test-output" / "secret-service-restarts.txt").read_text().split()) == 2
