#!/usr/bin/env bash
# Run the whole test suite: installs what it needs, then runs pytest inside a private D-Bus
# session with a real, unlocked Secret Service (gnome-keyring) so the keyring tier is real.
# Extra arguments go to pytest (e.g. scripts/test.sh -k config).
# First it builds the self-contained app, the tarball and the .deb (packaging/build.sh, a few
# minutes) for the smoke tests in tests/packaging/; NANOBOT_SKIP_FROZEN_BUILD=1 skips that
# locally (the tests then use what dist/ holds, or skip). CI always builds.
# Before any of that, scripts/lint.sh runs the static checks (ruff, mypy, import-linter); a
# lint or type error fails the run there, naming the check that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
scripts/lint.sh
if [ -n "${CI:-}" ] || [ "${NANOBOT_SKIP_FROZEN_BUILD:-}" != 1 ]; then
  packaging/build.sh
  export NANOBOT_TEST_REQUIRE_FROZEN=1
fi
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
# In this script the real-keyring, real-model and real-X (tray + notifications) tiers must
# run, not skip.
export NANOBOT_TEST_REQUIRE_KEYRING=1 NANOBOT_TEST_REQUIRE_E2E=1 NANOBOT_TEST_REQUIRE_X=1
export NANOBOT_TEST_REQUIRE_SYNAPSE=1  # the Matrix tests need their real homeserver
export NANOBOT_TEST_REQUIRE_NANOBOT=1  # the interop tier runs the real nanobot-ai CLI
export NANOBOT_TEST_REQUIRE_DOVECOT=1  # the Email tests need root and Dovecot (dovecot-imapd)
export NANOBOT_TEST_REQUIRE_SANDBOX=1  # the exec sandbox tests must run (bubblewrap is installed)
export NANOBOT_TEST_REQUIRE_ZBAR=1  # QR codes are read back with zbarimg (zbar-tools)
export PYTHONDONTWRITEBYTECODE=1
exec dbus-run-session -- bash -c '
  set -e
  export HOME_FOR_KEYRING=$(mktemp -d)
  export XDG_DATA_HOME=$HOME_FOR_KEYRING/data XDG_RUNTIME_DIR=$HOME_FOR_KEYRING/run
  mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
  printf "test-keyring-password" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec .venv/bin/python -m pytest "$@"
' pytest "$@"
