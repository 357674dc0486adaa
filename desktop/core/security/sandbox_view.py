"""What of the person's own files a sandboxed command sees: a scratch home, extra folders.

By default the person's home folder is replaced by a scratch folder of the sandbox's own
(``HOME`` keeps its path, so ``~`` still works): ``~/.ssh``, cloud credentials, ``.netrc``,
tokens and mail are out of sight, and what tools keep in ``~`` (pip and npm caches, ``--user``
installs, ``git config --global``) lands in the scratch folder, kept per workspace between
commands (:meth:`~desktop.core.config.sandbox_settings.SandboxPlaces.scratch_home`; without
one, a ``tmpfs`` that ends with the command). The workspace stays visible and writable where
it is, also when it lives inside the home folder (``~/.nanobot/workspace``): bubblewrap mounts
it over the scratch folder at its own path. The config folder (keys, other workspaces'
sessions, chat-channel logins) is hidden in every case.

The person may let commands see their home folder (read-only) and list extra folders, each
read-only or writable (Settings → Tools & safety; ``desktop.json``). Runtime folders and
keyring data stay hidden inside a folder shown that way, unless listed themselves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class HomeView:
    """How one command sees the home folder and the folders around it.

    Attributes:
        home: The person's home folder (``$HOME``).
        scratch: Folder shown in its place (``None``: a private ``tmpfs``).
        visible: Show the real home folder (read-only) instead.
        hidden: Folders hidden in every case (the config folder).
        folders: Extra folders as ``(path, writable)``.
    """

    home: str
    scratch: str | None = None
    visible: bool = False
    hidden: tuple[str, ...] = ()
    folders: tuple[tuple[str, bool], ...] = field(default=())


def inside(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it (both absolute, normalised)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def real_folder(raw: str, home: str) -> str | None:
    """``raw`` (``~`` for ``home``) as a real, existing absolute path, else ``None``."""
    text = str(raw).strip()
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    text = os.path.expandvars(text)
    if not text or not os.path.isabs(text) or not os.path.exists(text):
        return None
    return os.path.realpath(text)


def home_hidden(view: HomeView | None, workspace: str) -> str | None:
    """The real home folder when the command must not see it (``None``: it is shown)."""
    if view is None or view.visible or not view.home:
        return None
    home = os.path.realpath(view.home)
    if home == "/" or inside(home, workspace):
        return None  # a home that is the root or lies in the workspace: nothing to hide
    return home


def view_args(
    view: HomeView | None, workspace: str, tmp_size: int | None
) -> tuple[list[str], list[str]]:
    """Mounts that replace the home folder and hide the config folder, and the extra folders.

    Returns:
        ``(cover, folders)``: the first go before the extra binds (and the workspace), the
        second are the extra folders' binds.
    """
    if view is None:
        return [], []
    cover: list[str] = []
    home = home_hidden(view, workspace)
    if home is not None:
        if view.scratch is not None:
            cover += ["--bind", os.path.realpath(view.scratch), home]
        else:
            cover += (["--size", str(tmp_size)] if tmp_size else []) + ["--tmpfs", home]
    for folder in rehide(view, workspace, home):
        cover += ["--tmpfs", folder]
    binds: list[str] = []
    for raw, writable in view.folders:
        path = real_folder(raw, view.home)
        if path is not None:
            binds += ["--bind" if writable else "--ro-bind", path, path]
    return cover, binds


def rehide(view: HomeView, workspace: str, home: str | None) -> list[str]:
    """The always-hidden folders that need a mount of their own: not the root or a folder
    inside the workspace, not one already out of sight with the home folder (a workspace
    inside a hidden folder is mounted back over it)."""
    out: list[str] = []
    real_home = os.path.realpath(view.home) if view.home else ""
    for raw in view.hidden:
        folder = os.path.realpath(raw)
        if folder == "/" or inside(folder, workspace):
            continue  # hiding it would hide the workspace's files (its own guards apply)
        if real_home and inside(real_home, folder):
            continue  # a config folder that is the home folder: only its files are covered
        if home is not None and inside(folder, home):
            continue  # out of sight with the home folder
        out.append(folder)
    return out


def hidden_again(view: HomeView | None, workspace: str, secret: list[str]) -> list[str]:
    """Hidden folders (``secret``, and the config folder) that an extra folder shows as part
    of a larger one: they are hidden again after the extra binds (listed exactly, a folder is
    shown as the person asked)."""
    if view is None or not view.folders:
        return []
    shown = [p for raw, _w in view.folders if (p := real_folder(raw, view.home)) is not None]
    out: list[str] = []
    for folder in [*secret, *(os.path.realpath(h) for h in view.hidden)]:
        if inside(folder, workspace) or folder in shown or folder in out:
            continue
        if any(inside(folder, p) for p in shown):
            out.append(folder)
    return out


def sees(view: HomeView | None, workspace: str, path: str, extra: list[str]) -> bool:
    """Whether a command would see ``path`` (for a working folder outside the workspace)."""
    home = home_hidden(view, workspace)
    real = os.path.realpath(path)
    if inside(real, workspace) or home is None or not inside(real, home):
        return True
    shown = [real_folder(raw, view.home) for raw, _w in view.folders] if view else []
    shown += [os.path.realpath(p) for p in extra]
    return any(p is not None and inside(real, p) for p in shown)


__all__ = [
    "HomeView",
    "hidden_again",
    "home_hidden",
    "inside",
    "real_folder",
    "rehide",
    "sees",
    "view_args",
]
