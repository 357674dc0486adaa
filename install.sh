#!/usr/bin/env bash
# Install nanobot Desktop (system libraries + ./.venv) and start it.
# Progress is a line per phase with the time so far (scripts/setup.sh); the first install
# downloads the Python packages and takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")"
echo "Installing nanobot Desktop into $PWD/.venv (the first time takes a few minutes)."
scripts/setup.sh
echo "Starting nanobot Desktop…"
exec .venv/bin/nanobot-desktop "$@"
