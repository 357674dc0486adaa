"""The sandbox's parts: settings, detection, the bwrap command line, the seccomp program,
and what ``exec`` does when there is no sandbox.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from desktop.core.config.schema import ExecToolConfig
from desktop.core.security import sandbox as sb
from desktop.core.security.sandbox import (
    SandboxStatus,
    build_argv,
    bus_addresses,
    prepare_workspace,
    protected_paths,
    reset_sandbox_status,
    sandbox_mode,
)
from desktop.core.security.seccomp import unix_socket_filter
from desktop.core.tools.base import ToolContext
from desktop.core.tools.shell import ExecTool
from tests.core.tools.exec_output import unframe
from tests.core.tools.sandbox_support import PY, require_sandbox, scene_root

LINUX = sys.platform.startswith("linux")


@pytest.fixture
def fresh_status() -> Iterator[None]:
    """Each test sees its own detection result; the real one is restored afterwards."""
    saved = sb.cached_sandbox_status()
    reset_sandbox_status()
    yield
    reset_sandbox_status(saved)


# --- settings -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "mode"),
    [
        ("", "auto"),
        ("auto", "auto"),
        (None, "auto"),
        ("bwrap", "required"),
        ("seatbelt", "required"),
        ("BWRAP", "required"),
        ("none", "off"),
        ("off", "off"),
    ],
)
def test_sandbox_mode(value: str | None, mode: str) -> None:
    assert sandbox_mode(value) == mode


def test_config_keys_are_nanobots_plus_the_network_switch() -> None:
    raw = {"sandbox": "bwrap", "sandboxRoBinds": ["/opt"], "sandboxNetwork": False}
    config = ExecToolConfig.model_validate(raw)
    assert config.sandbox == "bwrap" and config.sandbox_ro_binds == ["/opt"]
    assert config.sandbox_network is False
    dumped = config.model_dump(by_alias=True)
    assert dumped["sandboxRwBinds"] == [] and dumped["sandboxNetwork"] is False
    assert ExecToolConfig().sandbox == "" and ExecToolConfig().sandbox_network is True


def test_bus_addresses() -> None:
    paths, abstract, tcp = bus_addresses(
        "unix:path=/run/user/1000/bus,guid=abc;unix:abstract=/tmp/dbus-x;tcp:host=h,port=1"
    )
    assert paths == ["/run/user/1000/bus"] and abstract and tcp
    assert bus_addresses("unix:path=/a%20b/bus")[0] == ["/a b/bus"]
    assert bus_addresses(None) == ([], False, False)


# --- detection ----------------------------------------------------------------------------------


@pytest.mark.skipif(not LINUX, reason="Linux detection")
def test_missing_bwrap_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_status: None
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    status = sb.sandbox_status()
    assert not status.available and "not installed" in status.reason
    assert "apt install bubblewrap" in status.reason
    assert status.describe().startswith("Sandbox: unavailable — bubblewrap (bwrap) is not")
    assert "restart nanobot Desktop" in status.reason


@pytest.mark.skipif(not LINUX, reason="Linux detection")
def test_a_bwrap_that_cannot_sandbox_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_status: None
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'bubblewrap 0.0'; exit 0; }\n"
        "echo 'bwrap: No permissions to create new namespace' >&2; exit 1\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    status = sb.sandbox_status()
    assert not status.available
    assert "No permissions to create new namespace" in status.reason
    assert "user namespaces" in status.reason


def test_other_systems_say_there_is_no_sandbox_yet(
    monkeypatch: pytest.MonkeyPatch, fresh_status: None
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    status = sb.sandbox_status()
    assert not status.available and "no sandbox on macOS yet" in status.reason


@pytest.mark.skipif(not LINUX, reason="Linux detection")
def test_detection_runs_once(fresh_status: None) -> None:
    first = sb.sandbox_status()
    assert sb.cached_sandbox_status() is first and sb.sandbox_status() is first


def test_describe_lines() -> None:
    active = SandboxStatus(True, executable="/usr/bin/bwrap", socket_filter=True)
    assert active.describe() == "Sandbox: bubblewrap, active"
    missing = SandboxStatus(False, "bubblewrap (bwrap) is not installed — install it")
    assert missing.describe("required").endswith("Commands are refused until it works")
    assert missing.describe("off").startswith("Sandbox: off")


# --- what exec does without a sandbox -----------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
async def test_unavailable_sandbox_warns_once_and_runs(tmp_path: Path, fresh_status: None) -> None:
    reset_sandbox_status(SandboxStatus(False, "bubblewrap (bwrap) is not installed — install it"))
    tool, ctx = ExecTool(ExecToolConfig()), ToolContext(workspace=tmp_path)
    first = await tool.execute(ctx, command="echo one")
    assert first.text.startswith("[Warning: no sandbox — bubblewrap (bwrap) is not installed")
    assert unframe(first.text).endswith("one\n[exit code: 0]") and not first.is_error
    second = await tool.execute(ctx, command="echo two")
    assert unframe(second.text) == "two\n[exit code: 0]"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
async def test_required_sandbox_refuses_without_one(tmp_path: Path, fresh_status: None) -> None:
    reset_sandbox_status(SandboxStatus(False, "bubblewrap (bwrap) is not installed — install it"))
    result = await ExecTool(ExecToolConfig(sandbox="bwrap")).execute(
        ToolContext(workspace=tmp_path), command="echo never > ran.txt"
    )
    assert (
        result.is_error and "requires a sandbox" in result.text and "not installed" in result.text
    )
    assert not (tmp_path / "ran.txt").exists()
    off = await ExecTool(ExecToolConfig(sandbox="none")).execute(
        ToolContext(workspace=tmp_path), command="echo plain"
    )
    assert unframe(off.text) == "plain\n[exit code: 0]"  # switched off on purpose: no warning


# --- the bwrap command line ---------------------------------------------------------------------


def _pairs(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]


def _scene(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "history.jsonl").write_text("")
    (ws / "sessions").mkdir()
    config = tmp_path / "config.json"
    config.write_text("{}")
    return ws.resolve(), config


def test_argv_basics(tmp_path: Path) -> None:
    ws, _config = _scene(tmp_path)
    argv = build_argv("echo hi", executable="/usr/bin/bwrap", workspace=ws, cwd=ws, environ={})
    assert argv[:4] == ["/usr/bin/bwrap", "--ro-bind", "/", "/"]
    for flag in ("--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert "--unshare-net" not in argv
    assert _pairs(argv, "--cap-drop") == ["ALL"] and _pairs(argv, "--proc") == ["/proc"]
    assert "/tmp" in _pairs(argv, "--tmpfs") and _pairs(argv, "--bind")[0] == str(ws)
    assert argv[-4:] == ["--", "/bin/sh", "-c", "echo hi"]


def test_argv_protects_state_and_hides_the_config(tmp_path: Path) -> None:
    ws, config = _scene(tmp_path)
    protected = protected_paths(ws, (config,))
    argv = build_argv(
        "true", executable="bwrap", workspace=ws, cwd=ws, protected=protected, environ={}
    )
    binds = _pairs(argv, "--bind")
    ro = _pairs(argv, "--ro-bind")
    assert str(ws / "memory") in binds, "the folder of a protected file must be a mount point"
    assert str(ws / "memory" / "history.jsonl") in ro and str(ws / "sessions") in ro
    assert str(ws / "cron") not in ro, "missing paths are skipped"
    hide = argv.index(str(config))
    assert argv[hide - 2 : hide] == ["--ro-bind", "/dev/null"]
    assert argv.index(str(ws)) < argv.index(str(ws / "memory" / "history.jsonl"))


def test_argv_hides_runtime_folders_and_bus_sockets() -> None:
    # Outside /tmp (which the sandbox replaces wholesale), so each hiding rule must act.
    with scene_root() as root:
        ws, _config = _scene(root)
        runtime = root / "run"
        runtime.mkdir()
        sock_dir = root / "elsewhere"
        sock_dir.mkdir()
        (sock_dir / "bus").write_text("")  # stands in for the socket file
        home = root / "home"
        (home / ".local" / "share" / "keyrings").mkdir(parents=True)
        environ = {
            "XDG_RUNTIME_DIR": str(runtime),
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={sock_dir}/bus,guid=1",
            "HOME": str(home),
        }
        argv = build_argv("true", executable="bwrap", workspace=ws, cwd=ws, environ=environ)
        tmpfs = _pairs(argv, "--tmpfs")
        assert str(runtime) in tmpfs and str(home / ".local/share/keyrings") in tmpfs
        covered = argv.index(str(sock_dir / "bus"))
        assert argv[covered - 2 : covered] == ["--ro-bind", "/dev/null"]
        # A runtime folder that holds the workspace is not hidden (that would hide the work).
        inside = build_argv(
            "true",
            executable="bwrap",
            workspace=ws,
            cwd=ws,
            environ={"XDG_RUNTIME_DIR": str(root)},
        )
        assert str(root) not in _pairs(inside, "--tmpfs")


@pytest.mark.parametrize(
    ("address", "network", "socket_filter", "cut"),
    [
        ("unix:path=/nonexistent/bus", True, True, False),
        ("unix:path=/nonexistent/bus", False, True, True),
        ("unix:abstract=/tmp/dbus-x", True, True, False),
        ("unix:abstract=/tmp/dbus-x", True, False, True),
    ],
)
def test_network_switch_and_abstract_bus(
    tmp_path: Path, address: str, network: bool, socket_filter: bool, cut: bool
) -> None:
    argv = build_argv(
        "true",
        executable="bwrap",
        workspace=tmp_path,
        cwd=tmp_path,
        network=network,
        socket_filter=socket_filter,
        environ={"DBUS_SESSION_BUS_ADDRESS": address},
    )
    assert ("--unshare-net" in argv) is cut


def test_user_binds(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    argv = build_argv(
        "true",
        executable="bwrap",
        workspace=tmp_path,
        cwd=tmp_path,
        ro_binds=[str(extra), "relative/ignored", "/does/not/exist"],
        rw_binds=[str(extra)],
        environ={},
    )
    assert _pairs(argv, "--ro-bind").count(str(extra)) == 1 and str(extra) in _pairs(argv, "--bind")
    assert "relative/ignored" not in argv and "/does/not/exist" not in argv


def test_protected_paths_and_prepare(tmp_path: Path) -> None:
    paths = protected_paths(tmp_path, (tmp_path / "sessions", tmp_path / "cfg.json"))
    names = [p.name for p in paths]
    assert paths.count(tmp_path / "sessions") == 1 and "cron" in names and ".nanobot" in names
    assert "cfg.json" in names
    prepare_workspace(tmp_path)
    assert (tmp_path / "sessions").is_dir() and (tmp_path / "cron").is_dir()
    assert not (tmp_path / ".git").exists()


@pytest.mark.skipif(not LINUX, reason="Linux sandbox")
async def test_missing_cron_folder_cannot_be_planted(tmp_path: Path) -> None:
    """A fresh workspace has no cron/ yet; a command must not create jobs the app would run."""
    require_sandbox()
    ws = tmp_path / "ws"
    ws.mkdir()
    tool = ExecTool(ExecToolConfig(sandbox="bwrap"))
    result = await tool.execute(
        ToolContext(workspace=ws),
        # Through a variable: the safety rules cannot see the target, only the sandbox can.
        command='d=cron; mkdir -p $d; echo \'{"jobs": [{"id": "evil"}]}\' > $d/jobs.json',
    )
    assert "[exit code: 0]" not in result.text
    assert (ws / "cron").is_dir() and list((ws / "cron").iterdir()) == []


# --- the seccomp program ------------------------------------------------------------------------

ALLOW = 0x7FFF0000


def _run_bpf(program: bytes, nr: int, arch: int, arg0: int = 0) -> int:
    """A tiny classic-BPF interpreter for the opcodes the filter uses."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    code = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x35):
            hit = acc == k if op == 0x15 else acc >= k
            pc += 1 + (jt if hit else jf)
        elif op == 0x06:
            return cast("int", k)
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")


def _errno(value: int) -> int:
    return 0x00050000 | value


@pytest.mark.parametrize(
    ("machine", "arch", "socket_nr", "keyctl_nr"),
    [
        ("x86_64", 0xC000003E, 41, 250),
        ("aarch64", 0xC00000B7, 198, 219),
        ("riscv64", 0xC00000F3, 198, 219),
    ],
)
def test_filter_program(machine: str, arch: int, socket_nr: int, keyctl_nr: int) -> None:
    program = unix_socket_filter(machine)
    assert program is not None and len(program) % 8 == 0
    assert _run_bpf(program, socket_nr, arch, 1) == _errno(errno.EACCES)  # AF_UNIX
    assert _run_bpf(program, socket_nr, arch, 1 | (1 << 32)) == _errno(errno.EACCES)
    assert _run_bpf(program, socket_nr, arch, 2) == ALLOW  # AF_INET
    assert _run_bpf(program, socket_nr, arch, 10) == ALLOW  # AF_INET6
    assert _run_bpf(program, 425, arch) == _errno(errno.ENOSYS)  # io_uring_setup
    for nr in (keyctl_nr - 2, keyctl_nr - 1, keyctl_nr):  # add_key, request_key, keyctl
        assert _run_bpf(program, nr, arch) == _errno(errno.EPERM)
    assert _run_bpf(program, 0, arch) == ALLOW
    assert _run_bpf(program, 0, 0x12345678) == _errno(errno.ENOSYS)  # an unknown ABI


def test_filter_covers_compat_abis() -> None:
    program = unix_socket_filter("x86_64")
    assert program is not None
    i386, x32_socket = 0x40000003, 0x40000000 | 41
    assert _run_bpf(program, 359, i386, 1) == _errno(errno.EACCES)
    assert _run_bpf(program, 102, i386) == _errno(errno.EACCES)  # socketcall
    assert _run_bpf(program, 288, i386) == _errno(errno.EPERM)  # keyctl
    assert _run_bpf(program, x32_socket, 0xC000003E, 1) == _errno(errno.ENOSYS)
    arm = unix_socket_filter("aarch64")
    assert arm is not None and _run_bpf(arm, 281, 0x40000028, 1) == _errno(errno.EACCES)
    assert unix_socket_filter("sparc64") is None


@pytest.mark.skipif(not LINUX, reason="Linux sandbox")
async def test_unix_sockets_refused_inet_and_socketpair_work(tmp_path: Path) -> None:
    require_sandbox()
    script = (
        "import socket\n"
        "try:\n    socket.socket(socket.AF_UNIX)\n    print('UNIX-OPEN')\n"
        "except PermissionError:\n    print('UNIX-REFUSED')\n"
        "socket.socket(socket.AF_INET).close()\n"
        "a, b = socket.socketpair()\na.sendall(b'x')\nprint('PAIR', b.recv(1))\n"
    )
    (tmp_path / "probe.py").write_text(script)
    result = await ExecTool(ExecToolConfig(sandbox="bwrap")).execute(
        ToolContext(workspace=tmp_path), command=f"{PY} probe.py"
    )
    assert unframe(result.text) == "UNIX-REFUSED\nPAIR b'x'\n[exit code: 0]"


# --- kernel interfaces a root-owned sandbox must not reach ----------------------------------

_KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219}


@pytest.mark.skipif(not LINUX, reason="Linux sandbox")
@pytest.mark.parametrize("mode", ["bwrap", "none"])
async def test_kernel_keyring_is_out_of_reach(tmp_path: Path, mode: str) -> None:
    """keyctl(KEYCTL_GET_KEYRING_ID, @u): the user's kernel keyring holds secrets too."""
    import platform

    nr = _KEYCTL.get(platform.machine())
    if nr is None:
        pytest.skip("no keyctl number for this CPU in the test")
    if mode == "bwrap":
        require_sandbox()
    script = (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        f"r = libc.syscall({nr}, 0, -4, 0)\n"
        "print('KEYRING', r if r >= 0 else 'refused', ctypes.get_errno())\n"
    )
    (tmp_path / "keys.py").write_text(script)
    result = await ExecTool(ExecToolConfig(sandbox=mode)).execute(
        ToolContext(workspace=tmp_path), command=f"{PY} keys.py"
    )
    assert ("KEYRING refused" in result.text) is (mode == "bwrap"), result.text


@pytest.mark.skipif(not LINUX, reason="Linux sandbox")
async def test_kernel_settings_are_read_only(tmp_path: Path) -> None:
    """/proc/sys is read-only: as root, writable sysctls would be a way out (core_pattern).

    The probe writes the hostname sysctl, which is harmless even if it worked: the sandbox
    has its own UTS namespace.
    """
    require_sandbox()
    result = await ExecTool(ExecToolConfig(sandbox="bwrap")).execute(
        ToolContext(workspace=tmp_path),
        command=(
            "echo sandbox-probe > /proc/sys/kernel/hostname; cat /proc/sys/kernel/hostname; "
            "grep -E ' /proc/sys ' /proc/self/mountinfo"
        ),
    )
    assert "sandbox-probe" not in result.text, result.text
    assert " /proc/sys ro," in result.text, result.text


@pytest.mark.parametrize(
    ("os_release", "command"),
    [
        ('ID=debian\nVERSION_ID="12"\n', "sudo apt install bubblewrap"),
        ("ID=ubuntu\nID_LIKE=debian\n", "sudo apt install bubblewrap"),
        ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', "sudo apt install bubblewrap"),
        ('ID="fedora"\n', "sudo dnf install bubblewrap"),
        ('ID=rocky\nID_LIKE="rhel centos fedora"\n', "sudo dnf install bubblewrap"),
        ("ID=manjaro\nID_LIKE=arch\n", "sudo pacman -S bubblewrap"),
        ('ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n', "sudo zypper install bubblewrap"),
        ("ID=alpine\n", "sudo apk add bubblewrap"),
    ],
)
def test_install_hint_names_this_distributions_command(
    tmp_path: Path, os_release: str, command: str
) -> None:
    path = tmp_path / "os-release"
    path.write_text(os_release)
    assert sb.install_hint(path) == f"install it ({command}), then restart nanobot Desktop"


def test_install_hint_lists_the_common_ones_when_unknown(tmp_path: Path) -> None:
    assert sb.install_hint(tmp_path / "missing") == sb.INSTALL_HINT
    (tmp_path / "other").write_text("ID=plan9\n")
    assert "apt install" in sb.install_hint(tmp_path / "other")
