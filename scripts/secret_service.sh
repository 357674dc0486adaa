# The test run's Secret Service, for scripts/test.sh (sourced, not run; tested by
# tests/test_secret_service_script.py).
#
#   secret_service_home       a keyring home and a D-Bus service file that starts it (below)
#   secret_service_restarts   says so when the daemon had to be started more than once
#
# Both write test-output/ relative to the current folder.

# The keyring tier's Secret Service: a gnome-keyring with its own home ($HOME_FOR_KEYRING),
# unlocked with a test password. The session bus starts it on the first call (D-Bus activation:
# the service file in $XDG_DATA_HOME/dbus-1/services comes before the system's), so should the
# daemon exit during a run, the next keyring call starts it again, unlocked, on the same
# keyring. (Started by hand, as before, a daemon that vanished in two runs left the bus to
# start the system's service: a locked "login" keyring whose unlock prompt cannot show, and
# every keyring test after it failed.) Each start is noted in $HOME_FOR_KEYRING/starts; more
# than one is reported at the end (test-output/secret-service-restarts.txt).
# The home is always directly under /tmp, whatever $TMPDIR says: the daemon's control socket
# lives in it, a Unix socket path has at most 107 bytes, and under a long folder (pytest-xdist's
# tmp_path) a daemon started again could not bind its socket.
secret_service_home() {
  HOME_FOR_KEYRING=$(mktemp -d /tmp/nanobot-keyring-XXXXXX)
  export HOME_FOR_KEYRING
  export XDG_DATA_HOME=$HOME_FOR_KEYRING/data XDG_RUNTIME_DIR=$HOME_FOR_KEYRING/run
  mkdir -p "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME/dbus-1/services" && chmod 700 "$XDG_RUNTIME_DIR"
  cat >"$HOME_FOR_KEYRING/secret-service" <<SH
#!/bin/sh
date -u +%T >>"$HOME_FOR_KEYRING/starts"
# Its own session: no signal to the test run's process group reaches it.
printf test-keyring-password | exec setsid gnome-keyring-daemon --unlock --foreground --components=secrets
SH
  chmod +x "$HOME_FOR_KEYRING/secret-service"
  printf '[D-BUS Service]\nName=org.freedesktop.secrets\nExec=%s\n' \
    "$HOME_FOR_KEYRING/secret-service" \
    >"$XDG_DATA_HOME/dbus-1/services/org.freedesktop.secrets.service"
}

# Reports a Secret Service that had to be started again during the run.
secret_service_restarts() {
  local starts=$HOME_FOR_KEYRING/starts
  [ "$(wc -l <"$starts" 2>/dev/null || echo 0)" -gt 1 ] || return 0
  mkdir -p test-output
  cp "$starts" test-output/secret-service-restarts.txt
  echo "The Secret Service (gnome-keyring-daemon) exited during the run and was started again" \
    "(start times: $(tr '\n' ' ' <"$starts")): find out why; test-output/secret-service-restarts.txt" >&2
}
