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
bus() {  # a call to the bus itself
  timeout 10 dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    "org.freedesktop.DBus.$1" string:org.freedesktop.secrets
}
daemon() { bus GetConnectionUnixProcessID | awk '/uint32/ {print $2}'; }
keyring() { timeout 20 "$PY" -c "import keyring; $1"; }
timeout 30 dbus-send --session --print-reply --dest=org.freedesktop.secrets \
  /org/freedesktop/secrets org.freedesktop.DBus.Peer.Ping >/dev/null
echo "step: started"
keyring 'keyring.set_password("nanobot-desktop-restart-test", "u", "s3cret-before")'
echo "step: stored"
first=$(daemon)
kill -9 "$first"
# Gone from the bus (its pid may linger as a zombie of whoever reaps it: not waited for).
for _ in $(seq 100); do
  bus NameHasOwner | grep -q "boolean false" && break
  sleep 0.1
done
echo "step: killed"
echo "read: $(keyring 'print(keyring.get_password("nanobot-desktop-restart-test", "u"))')"
second=$(daemon)
[ -n "$second" ] && [ "$second" != "$first" ] && echo "a new daemon"
keyring 'keyring.delete_password("nanobot-desktop-restart-test", "u")'
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
    """Run from a long folder with a long $TMPDIR (pytest-xdist's ``tmp_path``): the keyring's
    home, where its control socket lives, is still short, so the daemon started again binds."""
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
        timeout=90,
        check=False,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    out = result.stdout
    assert "read: s3cret-before" in out, (out, result.stderr)
    assert "a new daemon" in out, out
    home = Path(next(line for line in out.splitlines() if line.startswith("home: "))[6:])
    try:
        assert home.parent == Path("/tmp") and home.name.startswith("nanobot-keyring-")
        assert len((home / "starts").read_text().splitlines()) == 2
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert "was started again" in result.stderr
    assert len((tmp_path / "test-output" / "secret-service-restarts.txt").read_text().split()) == 2
