#!/usr/bin/env bash
# Build the self-contained app and its Linux packages from a clone of this repository:
#   dist/nanobot-desktop/                                   the onedir app (run nanobot-desktop inside)
#   dist/nanobot-desktop-<version>-linux-<machine>.tar.gz   the app + install.sh (per user, ~/.local)
#   dist/nanobot-desktop_<version>_<arch>.deb               /opt/nanobot-desktop, /usr/bin, menu entry
#
# Uses the project's own .venv (made by scripts/setup.sh --package when it lacks PyInstaller).
# Every run builds from scratch (build/pyinstaller is cleaned); PyInstaller's cache of
# processed libraries in ~/.cache/pyinstaller is kept between runs.
#   packaging/build.sh            everything
#   packaging/build.sh --app      only the onedir app
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if ! .venv/bin/python -c 'import PyInstaller' 2>/dev/null; then
  scripts/setup.sh --package
fi
# This checkout's code, whatever the venv's editable install points at.
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 LITELLM_LOCAL_MODEL_COST_MAP=True

start=$(date +%s)
rm -rf build/pyinstaller dist/nanobot-desktop
.venv/bin/python -m PyInstaller packaging/nanobot-desktop.spec --noconfirm --log-level WARN \
  --distpath dist --workpath build/pyinstaller
echo "app: dist/nanobot-desktop ($(du -sh dist/nanobot-desktop | cut -f1), $(($(date +%s) - start)) s)"
[ "${1:-}" = "--app" ] && exit 0

if [ "$(uname -s)" = Linux ]; then
  rm -f dist/nanobot-desktop-*.tar.gz dist/nanobot-desktop_*.deb
  .venv/bin/python packaging/linux.py tarball dist/nanobot-desktop --out dist
  if command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
    .venv/bin/python packaging/linux.py deb dist/nanobot-desktop --out dist
  else
    echo "dpkg-deb/dpkg-shlibdeps not found (Debian: dpkg-dev): no .deb built" >&2
  fi
fi
echo "done in $(($(date +%s) - start)) s:"
ls -l dist | grep -v '^total'
