#!/usr/bin/env bash
# Run the whole test suite: installs what it needs, then runs pytest inside a private D-Bus
# session with a real, unlocked Secret Service (gnome-keyring) so the keyring tier is real.
# Extra arguments go to pytest (e.g. scripts/test.sh -k config).
# scripts/lint.sh runs the static checks (ruff, mypy, import-linter): in a whole run beside the
# suite (they need a core for ~80 s; their output and result come at the end, and a lint or type
# error fails the run); with arguments before the tests, and a failure stops the run there.
# The self-contained app, the tarball and the .deb (packaging/build.sh, a few minutes) are
# built for the smoke tests in tests/packaging/test_frozen_app.py; NANOBOT_SKIP_FROZEN_BUILD=1
# skips that locally (the tests then use what dist/ holds, or skip). CI always builds.
#
# Lanes (with no arguments, as CI runs it):
#   0. the build starts in the background once the app's venv is installed, beside the rest
#      of the set-up and lane 1 (it runs in its own session so that it outlives the exec into
#      the D-Bus session; the suite waits for the status it writes); the static checks start
#      in the background too, once the set-up is done;
#   1. the suite on three workers (pytest-xdist, `-n 3 --dist loadgroup`; which tests share a
#      worker and in what order: LANES in tests/conftest.py), while the build runs beside it at
#      a lower priority (nice): the tests come first, the build takes the CPU they leave idle;
#      the frozen-app smoke tests are one of the last lanes and wait for the build to end
#      (tests/packaging/frozen.py); a few failed tests are run once more, and one that then
#      passes is named at the end.
# With arguments, one pytest run gets them (on three workers too), after the build.
# NANOBOT_TEST_WORKERS=N sets the number of workers (0: no xdist, one process).
# NANOBOT_NO_E2E=1 (not under CI): the end-to-end tier is neither installed nor required
# (scripts/setup.sh), so it skips.
# Coverage: the lane-1 run measures desktop/core while the core tier runs (pytest-cov;
# [tool.coverage] in pyproject.toml, tests/coverage_lane.py) and prints the figure at the end;
# under its floor (`fail_under`) the run fails. The per-file table goes to
# test-output/coverage.txt. NANOBOT_TEST_COVERAGE=0 turns it off; with arguments it is off
# unless NANOBOT_TEST_COVERAGE=1. It is off too while the cost table records (NANOBOT_TEST_COSTS):
# its audit hook and coverage's tracer do not mix on CPython 3.11 (tests/coverage_lane.py).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/steps.sh
# A line per phase with the time since the run started (kept across the exec into the session).
export NANOBOT_TEST_T0=${NANOBOT_TEST_T0:-$_steps_t0}
_steps_t0=$NANOBOT_TEST_T0

# Background jobs (the build, the static checks): each runs in its own session (it outlives an
# exec of this script; nobody waits for it as a child) and writes its pid, log and exit status
# into a folder of its own (printed on stdout).
start_job() {
  local dir
  dir=$(mktemp -d --suffix="-$1")
  shift
  setsid -f bash -c 'dir=$1; shift; echo $$ >"$dir/pid"; "$@"; echo $? >"$dir/status"' \
    job "$dir" "$@" </dev/null >"$dir/log" 2>&1
  echo "$dir"
}

# Stops a background job (its whole process group).
stop_job() {
  local pid
  pid=$(cat "$1/pid" 2>/dev/null) || return 0
  kill -- "-$pid" 2>/dev/null || true
}

# Waits for a background job: its status, or 1 when it ended without one.
wait_job() {
  local dir=$1 pid
  until [ -s "$dir/status" ]; do
    pid=$(cat "$dir/pid" 2>/dev/null || true)
    if [ -n "$pid" ] && ! kill -0 -- "-$pid" 2>/dev/null && [ ! -s "$dir/status" ]; then
      echo "(ended without an exit status: killed?)" >>"$dir/log"
      return 1
    fi
    sleep 1
  done
  return "$(cat "$dir/status")"
}

# packaging/build.sh in the background, at nice 10: on two cores the build (~200 s of CPU)
# otherwise takes its share from the tests beside it; this way it mostly runs on the CPU they
# leave idle and is still done long before the frozen-app lane needs it (which waits for the
# status in $NANOBOT_TEST_BUILD_DIR: tests/packaging/frozen.py).
start_build() {
  NANOBOT_TEST_BUILD_DIR=$(start_job build nice -n 10 packaging/build.sh)
  export NANOBOT_TEST_BUILD_DIR
  echo "Building the frozen app in the background (log: $NANOBOT_TEST_BUILD_DIR/log)"
}

# Waits for the background build; prints its last lines, or fails with its log's end.
wait_build() {
  if ! wait_job "$NANOBOT_TEST_BUILD_DIR"; then
    echo "packaging/build.sh failed:" >&2
    tail -n 60 "$NANOBOT_TEST_BUILD_DIR/log" >&2
    return 1
  fi
  tail -n 8 "$NANOBOT_TEST_BUILD_DIR/log"
}

# The keyring tier's Secret Service (secret_service_home, secret_service_restarts).
. scripts/secret_service.sh

build=0
if [ -n "${CI:-}" ] || [ "${NANOBOT_SKIP_FROZEN_BUILD:-}" != 1 ]; then
  build=1
fi

if [ -z "${NANOBOT_TEST_IN_SESSION:-}" ]; then
  if [ "$#" = 0 ] && [ "$build" = 1 ]; then
    # A whole run starts the build as soon as the app's venv is complete: beside the rest of
    # the set-up (the test servers' venvs, the model), the static checks and the suite.
    ready=$(mktemp -u --suffix=-app-ready)
    NANOBOT_SETUP_APP_READY=$ready scripts/setup.sh --test &
    setup=$!
    while [ ! -e "$ready" ] && kill -0 "$setup" 2>/dev/null; do sleep 0.5; done
    if [ -e "$ready" ]; then
      rm -f "$ready"
      start_build
      trap 'stop_job "$NANOBOT_TEST_BUILD_DIR"' EXIT  # set-up failed: no build needed
    fi
    wait "$setup"
  else
    scripts/setup.sh --test
  fi
  # Bytecode is cached (in __pycache__, which git ignores). With PYTHONDONTWRITEBYTECODE set,
  # every interpreter the suite starts (CLI children, gateways, MCP servers, the app: over 250
  # of them) compiled the checkout's modules again, ~0.85 s of CPU each in a fresh clone.
  unset PYTHONDONTWRITEBYTECODE
  .venv/bin/python -m compileall -q -j 2 desktop tests >/dev/null
  if [ "$#" = 0 ]; then
    # A whole run: the static checks beside the suite; their result comes at the end.
    NANOBOT_TEST_LINT_DIR=$(start_job lint scripts/lint.sh)
    export NANOBOT_TEST_LINT_DIR
    step "Static checks (scripts/lint.sh) started beside the suite"
  else
    step "Static checks (scripts/lint.sh)"
    scripts/lint.sh
  fi
  trap - EXIT
  secret_service_home
  # The rest of this script runs inside a private D-Bus session (the keyring tier's).
  exec dbus-run-session -- env NANOBOT_TEST_IN_SESSION=1 "$0" "$@"
fi

[ -n "${HOME_FOR_KEYRING:-}" ] || secret_service_home  # this script was started in a session
# Start the Secret Service (D-Bus activation; see secret_service_home) and wait for it.
dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
  org.freedesktop.DBus.Peer.Ping >/dev/null

export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
# In this script the real-keyring, real-model and real-X (tray + notifications) tiers must
# run, not skip.
export NANOBOT_TEST_REQUIRE_KEYRING=1 NANOBOT_TEST_REQUIRE_E2E=1 NANOBOT_TEST_REQUIRE_X=1
export NANOBOT_TEST_REQUIRE_SYNAPSE=1  # the Matrix tests need their real homeserver
export NANOBOT_TEST_REQUIRE_NANOBOT=1  # the interop tier runs the real nanobot-ai CLI
export NANOBOT_TEST_REQUIRE_DOVECOT=1  # the Email tests need root and Dovecot (dovecot-imapd)
export NANOBOT_TEST_REQUIRE_SANDBOX=1  # the exec sandbox tests must run (bubblewrap is installed)
export NANOBOT_TEST_REQUIRE_ZBAR=1  # QR codes are read back with zbarimg (zbar-tools)
export NANOBOT_TEST_REQUIRE_AUDIO=1  # voice: espeak-ng into a private PulseAudio microphone
if [ -z "${CI:-}" ] && [ "${NANOBOT_NO_E2E:-}" = 1 ]; then
  export NANOBOT_TEST_REQUIRE_E2E=0  # a contributor's choice (docs/CONTRIBUTING.md); CI always runs it
fi

# Three workers on two cores: a fifth of two workers' time was idle (tests waiting on servers,
# subprocesses and timers: vmstat over a CI run), which a third worker fills.
workers=${NANOBOT_TEST_WORKERS:-3}
xdist=()
[ "$workers" != 0 ] && xdist=(-n "$workers" --dist loadgroup --no-loadscope-reorder)
pytest=(.venv/bin/python -m pytest)

[ "$build" = 1 ] && export NANOBOT_TEST_REQUIRE_FROZEN=1

coverage=${NANOBOT_TEST_COVERAGE:-}
if [ -z "$coverage" ]; then
  { [ "$#" -gt 0 ] || [ -n "${NANOBOT_TEST_COSTS:-}" ]; } && coverage=0 || coverage=1
fi
cov=()
if [ "$coverage" = 1 ]; then
  rm -f .coverage .coverage.*
  # The floor is checked by report_coverage below, once the data files are combined.
  cov=(--cov --cov-report= --cov-fail-under=0)
fi

# Prints the coverage of desktop/core; fails when it is under its floor.
report_coverage() {
  local coverage_bin=.venv/bin/coverage core core_status=0
  if [ ! -e .coverage ]; then
    echo "Coverage: no data (the test run ended before pytest-cov wrote it)" >&2
    return 1
  fi
  mkdir -p test-output
  "$coverage_bin" report --include='desktop/core/*' --fail-under=0 >test-output/coverage.txt
  core=$("$coverage_bin" report --include='desktop/core/*' --format=total) || core_status=$?
  core=${core%%$'\n'*}  # the figure; coverage adds a line when it is under the floor
  if [ "$core_status" = 0 ]; then
    echo "Coverage: desktop/core ${core}% by tests/core (floor: fail_under in pyproject.toml; table: test-output/coverage.txt)"
  else
    echo "Coverage: desktop/core ${core}% by tests/core is under its floor (fail_under in pyproject.toml)" >&2
    return 1
  fi
}

if [ "$#" -gt 0 ]; then
  [ "$build" = 1 ] && packaging/build.sh
  status=0
  "${pytest[@]}" "${xdist[@]}" "${cov[@]}" "$@" || status=$?
  if [ "$coverage" = 1 ]; then report_coverage || { [ "$status" = 0 ] && status=1; }; fi
  secret_service_restarts
  exit "$status"
fi

status=0
if [ "$build" = 1 ] && [ -z "${NANOBOT_TEST_BUILD_DIR:-}" ]; then
  start_build  # this script was started inside a session already
fi
# The suite's temporary folders (tmp_path) go into one folder of this run's, removed at the end
# when the run passed (kept for a look when it failed). Left to pytest, each run's ~130,000
# files (1 GB) stayed in /tmp/pytest-of-$USER until a later pytest session's end deleted them
# with its own numbered folders (in that session's time; rm -rf alone takes 14 s here).
basetemp=$(mktemp -d /tmp/nbt-XXXXXX)
# The slowest tests are printed at the end (where the time goes, run after run).
rm -f test-output/reruns.txt test-output/x-daemon-restarts.txt .pytest_cache/v/cache/lastfailed
step "The suite (pytest)"
"${pytest[@]}" "${xdist[@]}" "${cov[@]}" --basetemp="$basetemp/suite" --durations=25 \
  --durations-min=4 || status=$?
cov_status=0
[ "$coverage" = 1 ] && { report_coverage || cov_status=$?; }
# Tests that failed (at most NANOBOT_TEST_RERUN_MAX, default 5; 0: never) are run once more, on
# their own. One that fails again fails the run; one that passes the second time is named here
# and in test-output/reruns.txt: a race to find (its first failure is in the output above), not
# a pass to forget. (pytest-rerunfailures is not used: with xdist and pytest-cov its socket
# server hung a whole run.)
failed_once=$(.venv/bin/python - <<'PY' 2>/dev/null || true
import json, pathlib
path = pathlib.Path(".pytest_cache/v/cache/lastfailed")
print("\n".join(sorted(json.loads(path.read_text())) if path.exists() else []))
PY
)
rerun_max=${NANOBOT_TEST_RERUN_MAX:-5}
count=$(printf '%s' "$failed_once" | grep -c . || true)
if [ "$status" = 1 ] && [ "$count" -gt 0 ] && [ "$count" -le "$rerun_max" ]; then
  echo "==> Running the $count failed test(s) once more, on their own"
  mapfile -t again <<<"$failed_once"
  if "${pytest[@]}" --basetemp="$basetemp/again" "${again[@]}"; then
    status=0
    mkdir -p test-output
    printf '%s\n' "$failed_once" >test-output/reruns.txt
    echo "Failed once and passed when run again (a race: find its cause; first failure above):"
    printf '  %s\n' "${again[@]}"
  fi
fi
# The build's end (the frozen-app lane waited for it; a failed build failed that lane too).
if [ -n "${NANOBOT_TEST_BUILD_DIR:-}" ]; then
  wait_build || status=1
fi
if [ -n "${NANOBOT_TEST_LINT_DIR:-}" ]; then
  step "Static checks (scripts/lint.sh, run beside the suite):"
  lint_status=0
  wait_job "$NANOBOT_TEST_LINT_DIR" || lint_status=$?
  cat "$NANOBOT_TEST_LINT_DIR/log"
  [ "$lint_status" = 0 ] || status=1
fi
[ "$status" = 0 ] && status=$cov_status
if [ "$status" = 0 ]; then
  rm -rf "$basetemp"
else
  echo "The tests' temporary folders are kept in $basetemp"
fi
secret_service_restarts
if [ -s test-output/x-daemon-restarts.txt ]; then
  echo "X session helpers started again (tests/ui/test_tray_smoke.py; a cause to find):"
  cat test-output/x-daemon-restarts.txt
fi
steps_done "Tests done (exit status $status)"
exit "$status"
