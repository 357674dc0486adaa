"""The app's own files in the workspace are out of reach of ``exec``, existing or not yet.

Issue #20: a Dream proposal, pins, the usage ledger, the lock files and Dream's state are
state the model must not write. Through the real ``exec`` tool in the real bubblewrap sandbox
(on the disposable scene of ``sandbox_support``), a Python program (whose writes the command
guard cannot see) tries to overwrite, replace, remove and create each of them, and to put a
folder or a link where a missing one belongs. Files that do not exist yet are created empty
before the command and bound read-only; the readers take such an empty file for "nothing".
The files the agent is meant to edit stay writable.
"""

from __future__ import annotations

import base64
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.config.schema import ExecToolConfig
from desktop.core.memory.dream_state import read_failures
from desktop.core.memory.pins import PinStore
from desktop.core.memory.proposal import ProposalStore
from desktop.core.memory.store import MemoryStore
from desktop.core.tools.shell import ExecTool
from tests.core.tools.sandbox_support import PY, Scene, make_scene, require_sandbox, scene_root

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

EXISTING = {
    "memory/.dream_proposal.json": '{"version": 1, "files": []}\n',
    "memory/.pins.json": '{"version": 1, "pins": []}\n',
}
MISSING = (
    "memory/.dream_state",
    "memory/.dream_proposal.json.lock",
    "memory/history.jsonl.lock",
    "cron.lock",
    "usage/ledger-2026-05.jsonl",
    "usage/.ledger.lock",
)
# For every path: overwrite, replace by rename, remove, and (when it is not there) a folder or
# a link in its place. Each success prints WROTE.
ATTACK = """
import os
for path in {paths!r}:
    tries = [
        lambda: open(path, "w").write('{{"planted": true}}'),
        lambda: (open(path + ".x", "w").write("{{}}"), os.replace(path + ".x", path)),
        lambda: os.unlink(path),
        lambda: os.mkdir(path),
        lambda: os.symlink("/etc/passwd", path),
    ]
    for n, attempt in enumerate(tries):
        try:
            attempt()
        except OSError:
            pass
        else:
            print("WROTE", path, n)
print("DONE")
"""


@pytest.fixture
def scene(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    require_sandbox()
    with scene_root() as root:
        yield make_scene(root, monkeypatch)


def _python(source: str) -> str:
    """A command running ``source`` with Python, hidden from the command guard."""
    encoded = base64.b64encode(source.encode()).decode()
    return f"{PY} -c \"import base64; exec(base64.b64decode('{encoded}'))\""


async def _exec(scene: Scene, command: str) -> str:
    tool = ExecTool(ExecToolConfig(sandbox="bwrap"))
    result = await tool.execute(scene.ctx(), command=command, timeout=60)
    return result.text


async def test_exec_cannot_write_or_create_the_apps_state(scene: Scene) -> None:
    ws = scene.ws
    for name, text in EXISTING.items():
        (ws / name).write_text(text)
    paths = [str(ws / name) for name in (*EXISTING, *MISSING)]

    output = await _exec(scene, _python(ATTACK.format(paths=paths)))

    assert "DONE" in output and "WROTE" not in output, output
    for name, text in EXISTING.items():
        assert (ws / name).read_text() == text, name
    for name in MISSING:
        target = ws / name
        if name.startswith("usage/"):  # the whole folder is read-only: nothing appears in it
            assert not target.exists() and not target.is_symlink(), name
            continue
        assert target.is_file() and not target.is_symlink(), name  # the empty placeholder
        assert target.read_bytes() == b"", name
    assert list((ws / "usage").iterdir()) == []


async def test_the_placeholders_mean_nothing_to_the_readers(scene: Scene) -> None:
    """After a command, the empty files the sandbox made read as "nothing": no proposal, no
    pins, no failures, no warnings, nothing set aside."""
    ws = scene.ws
    last = MemoryStore(ws).append_history("- an entry")
    (ws / "memory" / ".cursor").unlink()
    output = await _exec(scene, "true")
    assert "[exit code: 0]" in output or output.strip() == "", output
    for name in (".dream_proposal.json", ".pins.json", ".dream_state", ".cursor"):
        assert (ws / "memory" / name).read_bytes() == b"", name
    proposals, pins = ProposalStore(ws), PinStore(ws)
    assert proposals.load() is None and proposals.warning is None
    assert pins.load() == [] and pins.warning is None
    assert read_failures(ws / "memory" / ".dream_state") == {}
    store = MemoryStore(ws)
    assert store.append_history("- a new entry") == last + 1  # an empty .cursor is no cursor
    assert not list(ws.rglob("*.corrupt-*"))


async def test_exec_still_edits_the_files_meant_for_it(scene: Scene) -> None:
    """Not a blanket: MEMORY.md and SOUL.md can be appended to and replaced (sed -i renames),
    and new notes can be created, in memory/ as elsewhere."""
    ws = scene.ws
    output = await _exec(
        scene,
        "printf -- '- likes tea\\n' >> memory/MEMORY.md && sed -i 's/soul/Soul/' SOUL.md "
        "&& echo note > memory/notes.md && mkdir -p skills/x && echo s > skills/x/SKILL.md",
    )
    assert "[exit code: 0]" in output, output
    assert (ws / "memory" / "MEMORY.md").read_text() == "# Memory\n- likes tea\n"
    assert (ws / "SOUL.md").read_text() == "Soul\n"
    assert (ws / "memory" / "notes.md").read_text() == "note\n"
    assert (ws / "skills" / "x" / "SKILL.md").read_text() == "s\n"


@pytest.mark.parametrize(
    "command",
    [
        "echo '{}' > memory/.dream_proposal.json",
        "cp /dev/null memory/.pins.json",
        "echo x >> usage/ledger-2026-05.jsonl",
        "rm -f memory/.dream_proposal.json.lock",
        "mv memory/history.jsonl.lock x",
    ],
)
async def test_the_command_guard_refuses_visible_writes(scene: Scene, command: str) -> None:
    output = await _exec(scene, command)
    assert "command refused" in output and "protected" in output, output


def test_the_placeholders_are_made_without_a_command(tmp_path: Path) -> None:
    """The preparation alone (no sandbox needed): nothing existing is touched, a folder link on
    the way is not followed."""
    from desktop.core.security.sandbox import prepare_workspace

    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / ".pins.json").write_text("PINS")
    prepare_workspace(ws)
    assert (ws / "memory" / ".pins.json").read_text() == "PINS"
    assert (ws / "memory" / ".dream_proposal.json").read_bytes() == b""
    assert (ws / "usage").is_dir() and (ws / "cron").is_dir()
    assert (ws / "memory" / ".dream_proposal.json").stat().st_mode & 0o777 == 0o600

    other = tmp_path / "other"
    other.mkdir()
    ws2 = tmp_path / "ws2"
    ws2.mkdir()
    (ws2 / "memory").symlink_to(other, target_is_directory=True)
    prepare_workspace(ws2)
    assert list(other.iterdir()) == []
