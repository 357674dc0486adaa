#!/usr/bin/env bash
# Install nanobot Desktop for the current user (no root needed):
#   the app      ~/.local/opt/nanobot-desktop/
#   the command  ~/.local/bin/nanobot-desktop
#   the launcher ~/.local/share/applications/nanobot-desktop.desktop, icons in ~/.local/share/icons
#
#   ./install.sh               install (or update: the old copy is replaced)
#   ./install.sh --uninstall   remove all of it (also: ~/.local/opt/nanobot-desktop/uninstall.sh)
#
# Your settings, workspace and keys (~/.nanobot, the keyring) are never touched.
# NANOBOT_PREFIX replaces ~/.local for the app and the command; XDG_DATA_HOME is honoured.
set -euo pipefail

name=nanobot-desktop
prefix="${NANOBOT_PREFIX:-$HOME/.local}"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
app="$prefix/opt/$name"
bin="$prefix/bin/$name"
entry="$data/applications/$name.desktop"
here="$(cd "$(dirname "$0")" && pwd)"

refresh_caches() {
  command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
  command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
}

uninstall() {
  rm -f "$entry"
  find "$data/icons/hicolor" -path "*/apps/$name.*" -delete 2>/dev/null || true
  if [ -L "$bin" ]; then rm -f "$bin"; fi
  rm -rf "$app"
  refresh_caches
  echo "nanobot Desktop removed (your ~/.nanobot folder and keyring entries are kept)."
}

if [ "${1:-}" = "--uninstall" ]; then
  uninstall
  exit 0
fi
if [ ! -x "$here/$name/$name" ]; then
  echo "install.sh: run it from the unpacked archive (no $name/$name beside it)." >&2
  exit 1
fi

# The app: copied beside the old one, then swapped in, so a failed copy leaves the old one.
mkdir -p "$prefix/opt" "$prefix/bin" "$data/applications"
rm -rf "$app.new" "$app.old"
cp -a "$here/$name" "$app.new"
[ -e "$app" ] && mv "$app" "$app.old"
mv "$app.new" "$app"
rm -rf "$app.old"
ln -sfn "$app/$name" "$bin"

# The launcher entry points at the installed program by its full path.
exec_path="$app/$name"
case "$exec_path" in *" "*) exec_path="\"$exec_path\"" ;; esac
sed "s|^Exec=.*|Exec=$exec_path|" "$here/share/applications/$name.desktop" > "$entry.tmp"
mv "$entry.tmp" "$entry"
(cd "$here/share" && find icons -type f) | while read -r icon; do
  mkdir -p "$data/$(dirname "$icon")"
  cp "$here/share/$icon" "$data/$icon"
done

# The uninstaller stays with the app.
{
  echo '#!/usr/bin/env bash'
  echo "# Remove nanobot Desktop installed by install.sh (settings and keys are kept)."
  echo "set -euo pipefail"
  declare -f refresh_caches uninstall
  printf 'name=%q prefix=%q data=%q app=%q bin=%q entry=%q\n' \
    "$name" "$prefix" "$data" "$app" "$bin" "$entry"
  echo uninstall
} > "$app/uninstall.sh"
chmod 755 "$app/uninstall.sh"
refresh_caches

# Qt takes the X11, font and GL libraries from the system: say which are missing.
missing=$(LD_LIBRARY_PATH="$app/_internal" ldd "$app/_internal/PySide6/Qt/plugins/platforms/libqxcb.so" \
  "$app/_internal/libQt6Gui.so.6" 2>/dev/null | awk '/not found/ {print $1}' | sort -u || true)
echo "nanobot Desktop installed: $app"
echo "Start it from your application menu, or run: $bin"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "($prefix/bin is not on your PATH.)" ;; esac
if [ -n "$missing" ]; then
  echo
  echo "Missing system libraries (the window will not open without them):" $missing
  echo "On Debian/Ubuntu: sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 \\"
  echo "  libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 \\"
  echo "  libxcb-xinerama0 libxcb-xkb1 libegl1 libgl1 libfontconfig1 libdbus-1-3 libglib2.0-0"
fi
