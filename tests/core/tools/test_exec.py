"""The ``exec`` tool: real commands, process-group kills, environment, and the safety corpora.

The process tests run twice: inside the bubblewrap sandbox (``tools.exec.sandbox = "bwrap"``,
skipped where there is none) and without it (``"none"``). Processes are found by a unique
token in their command line, never by PIDs a command prints: inside the sandbox those are
PIDs of its own namespace, and signalling them on the host would hit unrelated processes.

Dangerous commands are only ever checked, never run: the corpus goes through
``check_command``, and the few that go through ``ExecTool`` do so with process spawning
replaced by a function that fails the test.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.commands import check_command, check_paths_in_command
from desktop.core.tools import shell_process
from desktop.core.tools.base import ToolContext
from desktop.core.tools.registry import ToolRegistry
from desktop.core.tools.shell import MAX_OUTPUT, ExecTool, child_env
from tests.core.tools.exec_output import unframe
from tests.core.tools.sandbox_support import (
    PY,
    kill_all,
    pids_with,
    require_sandbox,
    sleeper,
    wait_until,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell semantics")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    return ToolContext(workspace=ws)


@pytest.fixture(params=["sandboxed", "plain"])
def config(request: pytest.FixtureRequest) -> ExecToolConfig:
    """Exec settings for one mode: the sandbox required, or the sandbox off."""
    if request.param == "sandboxed":
        if not sys.platform.startswith("linux"):
            pytest.skip("the sandbox is Linux-only")
        require_sandbox()
        return ExecToolConfig(sandbox="bwrap")
    return ExecToolConfig(sandbox="none")


@pytest.fixture
def token() -> Iterator[str]:
    """A unique mark for the processes a test starts; they are all killed afterwards."""
    mark = "EXECTEST" + secrets.token_hex(6)
    yield mark
    kill_all(mark)


async def _started(token: str, count: int) -> None:
    """Wait until ``count`` sleepers carrying ``token`` run."""
    assert await wait_until(
        lambda: len(pids_with(token, sleepers_only=True)) >= count, within=30
    ), pids_with(token)


async def _all_gone(token: str) -> bool:
    # Well under the sleepers' own 120 s: a survivor cannot pass by ending on its own.
    return await wait_until(lambda: not pids_with(token), within=30)


# --- running commands --------------------------------------------------------------------------


async def test_echo_and_exit_code(ctx: ToolContext, config: ExecToolConfig) -> None:
    result = await ExecTool(config).execute(ctx, command="echo hello; echo oops >&2; exit 3")
    assert not result.is_error  # a non-zero exit is data for the model, not a tool failure
    assert unframe(result.text) == "hello\noops\n[exit code: 3]"


async def test_no_output(ctx: ToolContext, config: ExecToolConfig) -> None:
    result = await ExecTool(config).execute(ctx, command="true")
    assert unframe(result.text) == "(no output)\n[exit code: 0]"


async def test_cwd_is_the_workspace_and_working_dir_is_relative(
    ctx: ToolContext, ws: Path, config: ExecToolConfig
) -> None:
    (ws / "sub").mkdir()
    tool = ExecTool(config)
    assert unframe((await tool.execute(ctx, command="pwd")).text).startswith(str(ws.resolve()))
    result = await tool.execute(ctx, command="pwd", working_dir="sub")
    assert unframe(result.text).startswith(str((ws / "sub").resolve()))
    missing = await tool.execute(ctx, command="pwd", working_dir="nope")
    assert missing.is_error and "not a folder" in missing.text


async def test_output_truncated_keeping_head_and_tail(
    ctx: ToolContext, config: ExecToolConfig
) -> None:
    script = "print('a' * 6000 + 'MIDDLE' + 'b' * 20000 + 'END')"
    result = await ExecTool(config).execute(ctx, command=f"{PY} -c {shlex.quote(script)}")
    text = unframe(result.text)
    assert text.startswith("aaaa")
    assert "END\n[exit code: 0]" in text
    assert "MIDDLE" not in text
    assert "characters truncated" in text and "26,010" in text
    assert len(text) < MAX_OUTPUT + 200


# The timeout of the two tests below is waited out in full, so it is short: the tool takes
# whole seconds, and 2 s still leaves the sleepers several times what they need to start
# (inside the sandbox too) on a loaded machine before it strikes.
TIMEOUT = 2


async def test_timeout_kills_the_whole_process_group(
    ctx: ToolContext, config: ExecToolConfig, token: str
) -> None:
    command = f"{sleeper(token + '-bg', 120)} & echo started; {sleeper(token + '-fg', 120)}"
    started = time.monotonic()
    task = asyncio.create_task(ExecTool(config).execute(ctx, command=command, timeout=TIMEOUT))
    await _started(token + "-", 2)
    result = await task
    assert time.monotonic() - started < 25  # the sleepers would take 120 s
    assert result.is_error and f"timed out after {TIMEOUT}s" in result.text
    assert "started" in result.text
    assert await _all_gone(token), f"survived the timeout: {pids_with(token)}"


async def test_children_ignoring_sigterm_get_sigkill(
    ctx: ToolContext, config: ExecToolConfig, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The grace between SIGTERM and SIGKILL is waited out in full here (the deaf child keeps
    # the group alive): a short one still has only SIGKILL able to end that child.
    monkeypatch.setattr(shell_process, "KILL_GRACE", 0.2)
    command = f"(trap '' TERM; {sleeper(token + '-deaf', 120)}) & {sleeper(token + '-fg', 120)}"
    task = asyncio.create_task(ExecTool(config).execute(ctx, command=command, timeout=TIMEOUT))
    await _started(token + "-", 2)
    assert (await task).is_error
    assert await _all_gone(token), f"survived the timeout: {pids_with(token)}"


async def test_cancellation_kills_the_group_and_is_reraised(
    ctx: ToolContext, config: ExecToolConfig, token: str
) -> None:
    command = f"{sleeper(token + '-bg', 120)} & {sleeper(token + '-fg', 120)}"
    task = asyncio.create_task(ExecTool(config).execute(ctx, command=command, timeout=60))
    await _started(token + "-", 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _all_gone(token), f"survived the cancellation: {pids_with(token)}"


async def test_background_child_does_not_hold_the_call(
    ctx: ToolContext, config: ExecToolConfig, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unsandboxed, the child holds the pipe, and the output is read for DRAIN_AFTER_EXIT after
    # the shell exits: shortened, as what the shell printed is in the pipe before it exits.
    monkeypatch.setattr(shell_process, "DRAIN_AFTER_EXIT", 0.2)
    started = time.monotonic()
    result = await ExecTool(config).execute(ctx, command=f"{sleeper(token, 30)} & echo started")
    assert time.monotonic() - started < 5
    assert unframe(result.text) == "started\n[exit code: 0]"
    if config.sandbox == "bwrap":  # the PID namespace ends with the command
        assert await _all_gone(token)


async def test_registry_casts_and_runs_exec(ctx: ToolContext, config: ExecToolConfig) -> None:
    registry = ToolRegistry()
    registry.register(ExecTool(config))
    tool = registry.get("exec")
    assert tool is not None and tool.exclusive and not tool.read_only and not tool.concurrency_safe
    result = await registry.execute("exec", {"command": "echo hi", "timeout": "5"}, ctx)
    assert unframe(result.text) == "hi\n[exit code: 0]"
    too_long = await registry.execute("exec", {"command": "echo hi", "timeout": 601}, ctx)
    assert too_long.is_error and "timeout" in too_long.text


# --- environment -------------------------------------------------------------------------------


async def test_provider_keys_never_reach_the_child(
    ctx: ToolContext, config: ExecToolConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-LEAKCANARY-0123456789")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-LEAKCANARY")
    monkeypatch.setenv("SOME_TOKEN", "LEAKCANARY")
    result = await ExecTool(config).execute(ctx, command="env")
    assert "LEAKCANARY" not in result.text
    assert "OPENAI_API_KEY" not in result.text
    assert "PATH=" in result.text and "HOME=" in result.text


async def test_allowed_env_keys_and_path_append(
    ctx: ToolContext, config: ExecToolConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SETTING", "visible")
    monkeypatch.setenv("OTHER_SETTING", "hidden")
    config = config.model_copy(
        update={"allowed_env_keys": ["MY_SETTING"], "path_append": "/opt/extra/bin"}
    )
    result = await ExecTool(config).execute(ctx, command='echo "$MY_SETTING|$OTHER_SETTING|$PATH"')
    first = unframe(result.text).splitlines()[0]
    assert first.startswith("visible||") and first.endswith(os.pathsep + "/opt/extra/bin")


def test_child_env_is_an_allowlist() -> None:
    source = {"HOME": "/h", "PATH": "/bin", "LANG": "C", "OPENAI_API_KEY": "sk", "AWS_SECRET": "x"}
    assert child_env(ExecToolConfig(), source) == {"HOME": "/h", "PATH": "/bin", "LANG": "C"}


# --- dangerous-command corpus (checked, never run) ---------------------------------------------

DANGEROUS = [
    "rm -rf /",
    "rm -fr ~",
    "rm -r --no-preserve-root /",
    "rm -rf *",
    "rm   -rf    /",
    "rm -R -f /",
    "sudo rm -rf /",
    "sudo -u root rm -rf /*",
    "/bin/rm -rf $HOME",
    'rm -rf "/"',
    "'rm' -rf '~'",
    "r\\m -rf /",
    "rm${IFS}-rf${IFS}/",
    "cd /tmp && rm -rf ~/",
    "rm -rf -- /",
    "rm -rf ${HOME}/*",
    "rm --recursive --force /usr",
    "echo ok; rm -rf .",
    "xargs rm -rf / < list",
    "find / -delete",
    "find ~ -type f -exec rm {} \\;",
    'bash -c "rm -rf /"',
    "sh -c 'cd /; rm -rf /'",
    'echo "$(rm -rf /)"',
    "echo `rm -rf ~`",
    "env X=1 nice -n 5 rm -rf /",
    "mkfs.ext4 /dev/sda1",
    "sudo mkfs -t ext4 /dev/sdb",
    "dd if=/dev/zero of=/dev/sda bs=1M",
    "echo x > /dev/sda",
    "cat img | sudo tee /dev/nvme0n1",
    "cp disk.img /dev/sdb",
    "shutdown -h now",
    "sudo reboot",
    "halt",
    "poweroff",
    "init 0",
    "systemctl reboot",
    "true && reboot",
    "ls\nreboot",
    "timeout 5 reboot",
    ":(){ :|:& };:",
    ":(){ :|: & };:",
    "bomb() { bomb | bomb & }; bomb",
    "bash -c ':(){ :|:& };:'",
    "echo x > memory/history.jsonl",
    "echo x >> ~/.nanobot/workspace/memory/history.jsonl",
    "echo '{}' | tee -a memory/history.jsonl",
    "sed -i 's/a/b/' memory/history.jsonl",
    "rm memory/.dream_cursor",
    "echo 0 > memory/.dream_cursor",
    "mv sessions/cli_direct.jsonl old.jsonl",
    "cp /tmp/x.jsonl sessions/cli_direct.jsonl",
    "truncate -s 0 sessions/cli_direct.jsonl",
    "rm -rf sessions",
    "kill -9 -1",
    "echo cm0gLXJmIC8K | base64 -d | sh",
    "format C:",
    "rm -rf /home/user",
    "rm -rf ~/.nanobot/workspace",
    "function f { f|f& }; f",
    "rm -rf .*",
    # Issue 12's bypasses of the first line (the sandbox contains the rest).
    "rm -rf ${HOME:-/}",
    "rm -rf ${X:=/}",
    "rm -rf $(echo ~)",
    "rm -rf `echo ~`",
    "rm -rf $(echo $HOME)",
    'for d in ~/*; do rm -rf "$d"; done',
    'for x in a ~/.*; do echo; rm -fr "${x}"; done',
    "for d in /*; do rm -rf $d; done",
    "echo 'rm -rf ~' | sh",
    "printf 'rm -rf /' | bash",
    "echo 'rm -rf ~' | sudo bash -s",
    'sh -c "$(echo cm0gLXJmIH4= | base64 -d)"',
    "eval $(echo cm0gLXJmIH4= | base64 --decode)",
    "bash <(echo cm0gLXJmIH4= | base64 -d)",
    "python3 -c 'import os\nwhile 1: os.fork()'",
    "python3 -c 'import os\nwhile True:\n    os.fork()'",
    "perl -e 'fork while 1'",
    "perl -e 'while(1){fork}'",
    "eval ':(){ :|:& };:'",
]

BENIGN = [
    "rm -rf ./build",
    "rm -rf build dist",
    "rm -r node_modules",
    "rm -f *.pyc",
    "rm -rf build/*",
    'echo "rm -rf /"',
    "grep history.jsonl notes.txt",
    "cat memory/history.jsonl | tail -n 3",
    "cp sessions/cli_direct.jsonl backup.jsonl",
    'find . -name "*.pyc" -delete',
    "dd if=/dev/zero of=./disk.img bs=1k count=1",
    "ls > /dev/null 2>&1",
    'git commit -m "reboot; fix"',
    "echo shutdown",
    "grep -r reboot .",
    "wc -l sessions/*.jsonl",
    "sed -n 1p memory/history.jsonl",
    "jq . sessions/a.jsonl > out.json",
    "command -v reboot",
    "echo hi > history.jsonl.bak",
    "tail -f log | grep init",
    "x() { echo x | x2; }; x",
    "rm -rf /home/user/project/build",
    "rm -rf ~/.nanobot/workspace/tmp",
    "rm -rf $BUILD_DIR",
    'rm -rf "$tmpdir"',
    "rm -rf ${BUILD:-build}",
    "rm -rf $(mktemp -d)",
    "echo $(echo ~)",
    'for f in *.pyc; do rm "$f"; done',
    "for d in build dist; do rm -rf $d; done",
    "for f in /home/u/build/*; do rm -rf $f; done",
    "echo hello | sh",
    "cat install.sh | sh",
    "echo aGk= | base64 -d",
    "base64 -d x > y",
    "python3 -c 'import os; pid = os.fork()'",
    "git log | less",
]


@pytest.mark.parametrize("command", DANGEROUS)
def test_dangerous_commands_are_refused(command: str) -> None:
    assert check_command(command, allow_patterns=[], deny_patterns=[]) is not None


@pytest.mark.parametrize("command", BENIGN)
def test_benign_look_alikes_are_allowed(command: str) -> None:
    assert check_command(command, allow_patterns=[], deny_patterns=[]) is None


async def test_refusal_happens_before_any_process_starts(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_spawn(*args: object, **kwargs: object) -> None:
        raise AssertionError("a dangerous command reached the shell")

    monkeypatch.setattr(asyncio, "create_subprocess_shell", no_spawn)
    monkeypatch.setattr(asyncio, "create_subprocess_exec", no_spawn)
    for command in ("rm -rf /", ":(){ :|:& };:", "echo x > memory/history.jsonl", "sudo reboot"):
        result = await ExecTool().execute(ctx, command=command)
        assert result.is_error and "safety guard" in result.text


async def test_benign_look_alikes_really_run(
    ctx: ToolContext, ws: Path, config: ExecToolConfig
) -> None:
    (ws / "build").mkdir()
    (ws / "build" / "x.o").write_text("x")
    (ws / "notes.txt").write_text("see history.jsonl\n")
    tool = ExecTool(config)
    assert (
        unframe((await tool.execute(ctx, command="rm -rf ./build")).text)
        == "(no output)\n[exit code: 0]"
    )
    assert not (ws / "build").exists()
    assert (
        unframe((await tool.execute(ctx, command='echo "rm -rf /"')).text)
        == "rm -rf /\n[exit code: 0]"
    )
    assert unframe(
        (await tool.execute(ctx, command="grep history.jsonl notes.txt")).text
    ).startswith("see")


def test_user_patterns() -> None:
    deny = [r"\bgit\s+push\b"]
    assert check_command("git  push origin main", allow_patterns=[], deny_patterns=deny)
    assert check_command("git status", allow_patterns=[], deny_patterns=deny) is None
    # An allow pattern exempts from the built-in rules only on a full match...
    allow = [r"rm -rf \*"]
    assert check_command("rm -rf *", allow_patterns=allow, deny_patterns=[]) is None
    assert check_command("rm -rf * && reboot", allow_patterns=allow, deny_patterns=[])
    # ...never from a user deny pattern, and it is not an allowlist mode.
    assert check_command("rm -rf *", allow_patterns=allow, deny_patterns=[r"rm\s"])
    assert check_command("ls -la", allow_patterns=allow, deny_patterns=[]) is None
    # An invalid regex is matched literally instead of crashing.
    assert check_command("echo rm [", allow_patterns=[], deny_patterns=["rm ["])


def test_long_commands_are_checked_quickly() -> None:
    heredoc = "cat > f <<EOF\n" + "some text with rm and -rf words / here\n" * 3000 + "EOF"
    started = time.monotonic()
    assert check_command(heredoc, allow_patterns=[], deny_patterns=[]) is None
    assert check_command("sudo " + "-a " * 5000 + "x", allow_patterns=[], deny_patterns=[]) is None
    assert time.monotonic() - started < 5


# --- restrictToWorkspace ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "cat ../secret",
        "cat a/../../b",
        "cd .. && ls",
        "cat /etc/passwd",
        "ls ~",
        "ls ~root",
        "cat $HOME/.ssh/id_rsa",
        "cat ${HOME}/x",
        "echo x > /tmp/out",
        "cp x --target-directory=../y",
        "dd if=x of=/etc/x",
        "cat C:\\Windows\\win.ini",
        "ls /",
    ],
)
def test_paths_outside_the_workspace_are_refused(command: str, ws: Path) -> None:
    assert check_paths_in_command(command, ws) is not None


@pytest.mark.parametrize(
    "command",
    [
        "cat notes.txt",
        "ls -la",
        "ls > /dev/null 2>&1",
        "git log HEAD~1..HEAD",
        "/usr/bin/env python3 x.py",
        "echo hi | /bin/cat",
        "python3 -c 'print(1)'",
        "FOO=1 /bin/sh -c true",
        "cat {ws}/notes.txt",
        "echo 'unbalanced",
    ],
)
def test_paths_inside_the_workspace_are_allowed(command: str, ws: Path) -> None:
    assert check_paths_in_command(command.format(ws=ws), ws) is None


def test_symlink_out_of_the_workspace_is_refused(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    assert check_paths_in_command("cat link/file", ws) is not None
    assert check_paths_in_command(f"cat {ws}/link/file", ws) is not None


async def test_exec_applies_restrict_to_workspace(ws: Path, config: ExecToolConfig) -> None:
    ctx = ToolContext(workspace=ws, restrict_to_workspace=True)
    tool = ExecTool(config)
    refused = await tool.execute(ctx, command="cat /etc/hostname")
    assert refused.is_error and "outside the workspace" in refused.text
    outside_dir = await tool.execute(ctx, command="ls", working_dir="/")
    assert outside_dir.is_error and "outside the workspace" in outside_dir.text
    ok = await tool.execute(ctx, command="echo ok > out.txt && cat out.txt")
    assert unframe(ok.text) == "ok\n[exit code: 0]"


@pytest.mark.parametrize(
    "command",
    [
        "echo x>memory/history.jsonl",
        "rm -rf .git",
        "cp new.json {cfg}",
        "sed -i s/a/b/ {cfg}",
        "dd if=x of=sessions/a.jsonl",
        "sudo tee -a ./.git/config",
        "cat x 2> sessions/e.log",
        "FOO=1 mv sessions/x y",
        "ln -sf /dev/null memory/.cursor",
        "mv memory x",
        "rm -rf memory",
        "mv ./memory /tmp/m",
        "rm -r ../ws",
        "find ./sess* -delete",
        "find sessions/ -name '*.jsonl' -delete",
        "cat /dev/null > memory/hist*.jsonl",
        "rm -f sess*/*",
        "truncate -s0 mem*/history.jsonl",
    ],
)
async def test_writes_to_protected_paths_are_refused(
    command: str, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_spawn(*args: object, **kwargs: object) -> None:
        raise AssertionError("a protected write reached the shell")

    monkeypatch.setattr(asyncio, "create_subprocess_shell", no_spawn)
    monkeypatch.setattr(asyncio, "create_subprocess_exec", no_spawn)
    config = tmp_path / "config.json"
    (ws / "memory").mkdir()
    (ws / "memory" / "history.jsonl").write_text("{}\n")
    (ws / "sessions").mkdir()
    (ws / "sessions" / "a.jsonl").write_text("{}\n")
    ctx = ToolContext(workspace=ws, protected_paths=(config,))
    result = await ExecTool().execute(ctx, command=command.format(cfg=config))
    assert result.is_error and "protected" in result.text


@pytest.mark.parametrize(
    "command",
    [
        "cat memory/history.jsonl > out.txt",
        "cp {cfg} backup.json",
        "ls .git",
        "git status",
        "echo ok 2>/dev/null",
        "wc -l sessions/x.jsonl",
        "cat mem*/hist*.jsonl",
        "mkdir -p memory/notes",
        "mkdir -p memory",
        "mv notes.txt memory",
        "mv memory/MEMORY.md memory/MEMORY.bak",
        "rm -rf memory/tmp",
        "cp -r memory backup",
        "find . -name '*.pyc' -delete",
    ],
)
def test_reading_protected_paths_is_fine(command: str, ws: Path, tmp_path: Path) -> None:
    from desktop.core.security.commands import check_protected_writes

    (ws / "memory").mkdir()
    (ws / "memory" / "history.jsonl").write_text("{}\n")
    config = tmp_path / "config.json"
    protected = (ws / "sessions", ws / ".git", ws / "memory" / "history.jsonl", config)
    assert check_protected_writes(command.format(cfg=config), protected, cwd=ws) is None
