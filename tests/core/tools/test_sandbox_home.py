"""The sandbox's scratch home folder: the person's own secrets are out of a command's sight.

The tools are the ones the app builds (``assembly.worker_tools`` on a loaded config), run in
the real bubblewrap sandbox, on a home folder of the test's own (``HOME`` points at it) that
holds the secrets an attacker read: an SSH key, cloud credentials, ``.netrc``, the GitHub CLI's
token, a GnuPG key. The workspace lives inside that home, as nanobot's default
``~/.nanobot/workspace`` does. Settings (``desktop.json``) can show the home folder or
single folders again.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import worker_tools
from desktop.core.config.loader import load_config
from desktop.core.config.prefs import load_prefs
from desktop.core.config.schema import Config
from desktop.core.security.paths import default_protected_paths
from desktop.core.tools.base import ToolContext
from tests.core.tools.exec_output import unframe
from tests.core.tools.sandbox_support import require_sandbox, scene_root

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

SECRET_FILES = (
    ".ssh/id_rsa",
    ".aws/credentials",
    ".netrc",
    ".config/gh/hosts.yml",
    ".gnupg/x",
)


@dataclass
class Home:
    """A home folder with secrets, a config folder and a workspace inside it."""

    home: Path
    config_file: Path
    workspace: Path
    canaries: dict[str, str]

    @property
    def config_dir(self) -> Path:
        return self.config_file.parent

    def config(self) -> Config:
        return load_config(self.config_file)

    def settings(self, sandbox: dict[str, Any]) -> None:
        """Write the ``sandbox`` section of ``desktop.json`` (as the Settings page does)."""
        (self.config_dir / "desktop.json").write_text(json.dumps({"sandbox": sandbox}))

    async def run(self, command: str, **arguments: Any) -> str:
        """Run ``command`` with the app's tools; the result's text, unframed."""
        config = self.config()
        ctx = ToolContext(
            workspace=self.workspace,
            protected_paths=default_protected_paths(self.workspace, self.config_file),
        )
        result = await worker_tools(config).execute(
            "exec", {"command": command, "timeout": 60, **arguments}, ctx
        )
        return unframe(result.text)


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    with scene_root() as root:
        folder = root / "home"
        canaries = {}
        for name in SECRET_FILES:
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            canaries[name] = f"CANARY-{secrets.token_hex(8)}"
            path.write_text(f"{canaries[name]}\n")
        (folder / ".local" / "share" / "keyrings").mkdir(parents=True)
        (folder / ".local" / "share" / "keyrings" / "login.keyring").write_text("KEYRING\n")
        (folder / ".local" / "share" / "notes.txt").write_text("shared notes\n")
        config_dir = folder / ".nanobot"
        workspace = config_dir / "workspace"
        workspace.mkdir(parents=True)
        (config_dir / "whatsapp-auth").mkdir()
        (config_dir / "whatsapp-auth" / "neonize.db").write_text("WHATSAPP-SESSION\n")
        config_file = config_dir / "config.json"
        config_file.write_text(
            json.dumps(
                {
                    "agents": {"defaults": {"workspace": str(workspace)}},
                    "tools": {"exec": {"sandbox": "bwrap"}},
                }
            )
        )
        monkeypatch.setenv("HOME", str(folder))
        monkeypatch.setenv("XDG_DATA_HOME", str(folder / ".local" / "share"))
        yield Home(folder, config_file, workspace.resolve(), canaries)


def _reads(home: Home) -> str:
    paths = " ".join(f"~/{name}" for name in SECRET_FILES)
    return f"cat {paths} 2>&1; grep -rs CANARY ~ /var/tmp 2>/dev/null | head; echo DONE"


async def test_commands_cannot_read_the_home_folders_secrets(home: Home) -> None:
    """By default none of the five secrets is readable, by path or by a search of ``~``."""
    require_sandbox()
    text = await home.run(_reads(home))
    assert text.endswith("DONE\n[exit code: 0]"), text
    for name, canary in home.canaries.items():
        assert canary not in text, f"~/{name} was readable:\n{text}"


async def test_the_workspace_inside_the_home_stays_visible_and_writable(home: Home) -> None:
    """The workspace is where it was (``~/.nanobot/workspace``); the rest of the config
    folder (keys, chat-channel logins, desktop.json) is not there."""
    require_sandbox()
    home.settings({})
    text = await home.run(
        "pwd; echo made > made.txt; cat made.txt; ls -A ~/.nanobot; "
        "cat ~/.nanobot/whatsapp-auth/neonize.db ~/.nanobot/desktop.json 2>&1 | grep -c 'No such'"
    )
    assert text.splitlines()[:3] == [str(home.workspace), "made", "workspace"], text
    assert text.endswith("2\n[exit code: 0]"), text
    assert (home.workspace / "made.txt").read_text() == "made\n"


async def test_the_scratch_home_keeps_what_tools_put_in_it(home: Home) -> None:
    """``~`` is writable and kept between commands (pip's cache, ``git config --global``),
    in the config folder's ``sandbox-homes/``, never in the real home folder."""
    require_sandbox()
    first = await home.run(
        "git config --global user.name Sandboxed && mkdir -p ~/.cache/pip && "
        "echo cached > ~/.cache/pip/entry && echo ok"
    )
    assert first.endswith("ok\n[exit code: 0]"), first
    again = await home.run("git config --global user.name; cat ~/.cache/pip/entry")
    assert again.startswith("Sandboxed\ncached\n"), again
    assert not (home.home / ".gitconfig").exists() and not (home.home / ".cache").exists()
    [scratch] = (home.config_dir / "sandbox-homes").iterdir()
    assert (scratch / ".cache" / "pip" / "entry").read_text() == "cached\n"
    assert oct(scratch.stat().st_mode & 0o777) == "0o700"


async def test_home_visible_when_the_setting_is_on(home: Home) -> None:
    """ "Let commands see my home folder": every secret is readable, nothing writable; the
    config folder stays hidden even so."""
    require_sandbox()
    home.settings({"homeVisible": True})
    text = await home.run(_reads(home))
    for name, canary in home.canaries.items():
        assert canary in text, f"~/{name} not shown:\n{text}"
    write = await home.run("touch ~/new-file; ls -A ~/.nanobot")
    assert "Read-only file system" in write and write.endswith("workspace\n[exit code: 0]")
    assert not (home.home / "new-file").exists()


async def test_listed_folders_are_shown_read_only_or_writable(home: Home) -> None:
    """Folders listed in Settings appear (read-only unless writable); the rest stays hidden,
    and the keyring folder inside a larger listed folder stays hidden too."""
    require_sandbox()
    (home.home / "projects").mkdir()
    home.settings(
        {
            "folders": [
                {"path": "~/.aws"},
                {"path": str(home.home / "projects"), "writable": True},
                {"path": "~/.local"},
            ]
        }
    )
    text = await home.run(_reads(home))
    assert home.canaries[".aws/credentials"] in text
    for name in (".ssh/id_rsa", ".netrc", ".config/gh/hosts.yml", ".gnupg/x"):
        assert home.canaries[name] not in text, f"~/{name} was readable:\n{text}"
    writes = await home.run(
        "echo new > ~/projects/out.txt && echo PROJECT-OK; touch ~/.aws/x 2>&1; "
        "cat ~/.local/share/notes.txt; cat ~/.local/share/keyrings/login.keyring 2>&1"
    )
    assert "PROJECT-OK" in writes and "Read-only file system" in writes, writes
    assert "shared notes" in writes and "KEYRING" not in writes, writes
    assert (home.home / "projects" / "out.txt").read_text() == "new\n"
    assert not (home.home / ".aws" / "x").exists()


async def test_a_working_folder_in_the_hidden_home_is_explained(home: Home) -> None:
    require_sandbox()
    (home.home / "elsewhere").mkdir()
    text = await home.run("ls", working_dir=str(home.home / "elsewhere"))
    assert "in your home folder, which commands do not see" in text
    assert "Settings → Tools & safety" in text
    home.settings({"folders": [{"path": "~/elsewhere"}]})
    assert (await home.run("pwd", working_dir="~/elsewhere")).startswith(
        str(home.home / "elsewhere")
    )


def test_the_settings_live_in_desktop_json_with_safe_defaults(home: Home) -> None:
    """Stored in ``desktop.json`` (nanobot's config.json never sees them); a value that does
    not fit falls back to the closed default and the others are kept."""
    home.settings({"homeVisible": "yes please", "folders": [{"path": "/srv", "writable": 3}]})
    prefs = load_prefs(home.config_dir / "desktop.json").sandbox
    assert prefs.home_visible is False
    assert prefs.limits.processes == 256 and prefs.limits.memory_mb == 2048
    assert "sandbox" not in json.loads(home.config_file.read_text())
    assert os.environ["HOME"] == str(home.home)
