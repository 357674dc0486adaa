# Progress for install.sh, scripts/setup.sh and packaging/build.sh (sourced, not run).
#
#   step "Installing Python packages"   a line per phase: "==> [1:05] Installing Python packages"
#                                       (minutes:seconds since the script started)
#   steps_done ["text"]                 the last line, with the total time
#   run_ticking CMD ARGS…               runs CMD; while it runs, "… still working (2:30)" every
#                                       NANOBOT_TICK_S seconds (30), for steps that print nothing
#   apt_get ARGS…                       apt-get (through sudo when not root) that waits up to
#                                       NANOBOT_APT_LOCK_TIMEOUT seconds (600) for another
#                                       package manager to finish instead of failing at once,
#                                       and says so when one is running
# The lines are plain text (no colours, no carriage returns): CI logs stay readable.

_steps_t0=$(date +%s)
NANOBOT_APT_LOCK_TIMEOUT=${NANOBOT_APT_LOCK_TIMEOUT:-600}

_elapsed() {
  local s=$(($(date +%s) - $1))
  printf '%d:%02d' $((s / 60)) $((s % 60))
}

step() {
  printf '==> [%s] %s\n' "$(_elapsed "$_steps_t0")" "$1"
}

steps_done() {
  printf '==> [%s] %s\n' "$(_elapsed "$_steps_t0")" "${1:-Done.}"
}

run_ticking() {
  local every=${NANOBOT_TICK_S:-30} started rc=0 ticker
  started=$(date +%s)
  (
    nap=""
    trap '[ -n "$nap" ] && kill "$nap" 2>/dev/null; exit 0' TERM
    while :; do
      sleep "$every" &
      nap=$!
      wait "$nap"
      printf '    … still working (%s)\n' "$(_elapsed "$started")"
    done
  ) &
  ticker=$!
  "$@" || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true # its own exit status (killed) is not the command's
  return "$rc"
}

# Who holds dpkg's lock ("1234 (unattended-upgr)"), if anyone; empty when free or when this
# user cannot tell (only root can read the lock file). Asks without taking the lock.
_dpkg_lock_holder() {
  [ "$(id -u)" -eq 0 ] && command -v python3 >/dev/null 2>&1 || return 0
  python3 - /var/lib/dpkg/lock-frontend <<'PY' 2>/dev/null || true
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
layout = "hhqqi4x"  # struct flock on Linux: type, whence, start, len, pid
found = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(layout, fcntl.F_WRLCK, 0, 0, 0, 0))
kind, _, _, _, pid = struct.unpack(layout, found)
if kind != fcntl.F_UNLCK:
    try:
        name = open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        name = "?"
    print(f"{pid} ({name})")
PY
}

apt_get() {
  local sudo="" holder
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  holder=$(_dpkg_lock_holder)
  if [ -n "$holder" ]; then
    echo "    Another package manager is running (process $holder): waiting for it to" \
      "finish, up to $((NANOBOT_APT_LOCK_TIMEOUT / 60)) min…"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout="$NANOBOT_APT_LOCK_TIMEOUT" "$@"
}
