"""The bwrap mounts for the home folder, the config folder and the extra folders (no sandbox
is started here: the command lines are read; ``test_sandbox_home.py`` runs them for real)."""

from __future__ import annotations

from pathlib import Path

from desktop.core.security.limits import Limits
from desktop.core.security.sandbox import build_argv
from desktop.core.security.sandbox_view import HomeView


def _argv(workspace: Path, view: HomeView | None, **options: object) -> list[str]:
    return build_argv(
        "true",
        executable="/usr/bin/bwrap",
        workspace=workspace,
        cwd=workspace,
        environ={"HOME": view.home if view else "/nonexistent"},
        home=view,
        **options,  # type: ignore[arg-type]
    )


def _mounts(argv: list[str]) -> list[tuple[str, ...]]:
    """The mount options in order: ``("--tmpfs", path)``, ``("--bind", src, dest)``…"""
    out: list[tuple[str, ...]] = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--bind", "--ro-bind"):
            out.append(tuple(argv[i : i + 3]))
            i += 3
        elif argv[i] == "--tmpfs":
            out.append(tuple(argv[i : i + 2]))
            i += 2
        else:
            i += 1
    return out


def test_the_scratch_folder_covers_the_home_and_the_workspace_comes_after(tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "scratch"
    workspace = home / ".nanobot" / "workspace"
    for folder in (workspace, scratch):
        folder.mkdir(parents=True)
    mounts = _mounts(
        _argv(workspace, HomeView(str(home), str(scratch), hidden=(str(home / ".nanobot"),)))
    )
    cover = ("--bind", str(scratch), str(home))
    ws = ("--bind", str(workspace), str(workspace))
    assert mounts.index(cover) < mounts.index(ws)
    assert ("--tmpfs", str(home / ".nanobot")) not in mounts  # out of sight with the home


def test_a_visible_home_still_hides_the_config_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = home / ".nanobot" / "workspace"
    workspace.mkdir(parents=True)
    view = HomeView(str(home), None, visible=True, hidden=(str(home / ".nanobot"),))
    mounts = _mounts(_argv(workspace, view))
    assert not any(m[-1] == str(home) for m in mounts)
    hidden = ("--tmpfs", str(home / ".nanobot"))
    assert mounts.index(hidden) < mounts.index(("--bind", str(workspace), str(workspace)))


def test_no_cover_when_the_home_is_the_workspace_or_inside_it(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "home").mkdir(parents=True)
    for home in (workspace, workspace / "home"):
        mounts = _mounts(_argv(workspace, HomeView(str(home), None)))
        assert not any(m[-1] == str(home) for m in mounts if m[0] == "--tmpfs")


def test_without_a_scratch_folder_the_home_is_a_sized_tmpfs(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    argv = _argv(workspace, HomeView(str(home)), limits=Limits(tmp_size=1 << 20), sized_tmpfs=True)
    assert argv[argv.index(str(home)) - 3 : argv.index(str(home)) + 1] == [
        "--size",
        str(1 << 20),
        "--tmpfs",
        str(home),
    ]
    assert argv[argv.index("/tmp") - 3 : argv.index("/tmp")] == ["--size", str(1 << 20), "--tmpfs"]


def test_listed_folders_and_what_stays_hidden_inside_them(tmp_path: Path) -> None:
    """A listed folder is bound read-only or writable; a keyring folder or the config folder
    inside a larger listed folder is hidden again after it; missing folders are skipped."""
    home, scratch, workspace = tmp_path / "home", tmp_path / "scratch", tmp_path / "ws"
    keyrings = home / ".local" / "share" / "keyrings"
    for folder in (keyrings, home / "projects", home / ".nanobot", scratch, workspace):
        folder.mkdir(parents=True)
    view = HomeView(
        str(home),
        str(scratch),
        hidden=(str(home / ".nanobot"),),
        folders=(("~", False), ("~/projects", True), ("~/missing", True)),
    )
    argv = build_argv(
        "true",
        executable="/usr/bin/bwrap",
        workspace=workspace,
        cwd=workspace,
        environ={"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")},
        home=view,
    )
    mounts = _mounts(argv)
    shown = ("--ro-bind", str(home), str(home))
    writable = ("--bind", str(home / "projects"), str(home / "projects"))
    assert mounts.index(("--bind", str(scratch), str(home))) < mounts.index(shown)
    assert mounts.index(shown) < mounts.index(writable)
    assert mounts.index(("--tmpfs", str(keyrings))) > mounts.index(shown)
    assert mounts.index(("--tmpfs", str(home / ".nanobot"))) > mounts.index(shown)
    assert not any("missing" in part for m in mounts for part in m)


def test_a_config_folder_that_is_the_home_folder_does_not_hide_it(tmp_path: Path) -> None:
    """``--config ~/config.json``: showing the home folder must not be undone by hiding the
    config folder (the config file itself stays covered by the protected paths)."""
    home, workspace = tmp_path / "home", tmp_path / "home" / "ws"
    workspace.mkdir(parents=True)
    view = HomeView(str(home), None, visible=True, hidden=(str(home),))
    assert not any(m[-1] == str(home) for m in _mounts(_argv(workspace, view)))
