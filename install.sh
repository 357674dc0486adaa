#!/usr/bin/env bash
# Install nanobot Desktop (system libraries + ./.venv) and start it.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
exec .venv/bin/nanobot-desktop "$@"
