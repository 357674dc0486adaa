#!/usr/bin/env bash
# Build the self-contained app and its Linux packages from a clone of this repository:
#   dist/nanobot-desktop/                                   the onedir app (run nanobot-desktop inside)
#   dist/nanobot-desktop-<version>-linux-<machine>.tar.gz   the app + install.sh (per user, ~/.local)
#   dist/nanobot-desktop_<version>_<arch>.deb               /opt/nanobot-desktop, /usr/bin, menu entry
#
# Uses the project's own .venv (made by scripts/setup.sh --package when it lacks PyInstaller).
# Every run builds from scratch (build/pyinstaller is cleaned); PyInstaller's cache of
# processed libraries in ~/.cache/pyinstaller is kept between runs. It prints a line per phase
# with the time so far, and "still working" every 30 s while PyInstaller works quietly
# (scripts/steps.sh).
#   packaging/build.sh            everything
#   packaging/build.sh --app      only the onedir app
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/steps.sh

if ! .venv/bin/python -c 'import PyInstaller' 2>/dev/null; then
  step "Installing the build tools (scripts/setup.sh --package)"
  scripts/setup.sh --package
fi
# This checkout's code, whatever the venv's editable install points at.
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 LITELLM_LOCAL_MODEL_COST_MAP=True

start=$(date +%s)
step "Building the app with PyInstaller (a few minutes)"
rm -rf build/pyinstaller dist/nanobot-desktop
run_ticking .venv/bin/python -m PyInstaller packaging/nanobot-desktop.spec --noconfirm \
  --log-level WARN --distpath dist --workpath build/pyinstaller
echo "app: dist/nanobot-desktop ($(du -sh dist/nanobot-desktop | cut -f1), $(($(date +%s) - start)) s)"
if [ "${1:-}" = "--app" ]; then
  steps_done
  exit 0
fi

if [ "$(uname -s)" = Linux ]; then
  rm -f dist/nanobot-desktop-*.tar.gz dist/nanobot-desktop_*.deb
  step "Packing the tarball"
  run_ticking .venv/bin/python packaging/linux.py tarball dist/nanobot-desktop --out dist
  if command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
    step "Building the .deb"
    run_ticking .venv/bin/python packaging/linux.py deb dist/nanobot-desktop --out dist
  else
    echo "dpkg-deb/dpkg-shlibdeps not found (Debian: dpkg-dev): no .deb built" >&2
  fi
fi
steps_done "Done in $(($(date +%s) - start)) s:"
ls -l dist | grep -v '^total'
