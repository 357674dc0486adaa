"""A tiny seccomp filter for the ``exec`` sandbox: no Unix sockets, io_uring or kernel keyring.

Why: abstract Unix sockets (``@/tmp/dbus-…``, ``@/tmp/.X11-unix/X0``) live in the network
namespace, not in the file system, so hiding folders cannot hide them; sharing the network
(the default) would leave the session bus, the keyring behind it and the X server reachable.
Path sockets on read-only mounts (``/run/docker.sock``, the system bus) stay connectable too.
Refusing ``socket(AF_UNIX, …)`` closes the whole class while IP networking keeps working.
``socketpair`` (anonymous, connected pairs: pipes for Python's ``multiprocessing``) stays
allowed. ``io_uring_setup`` is refused because io_uring can create and connect sockets
without the ``socket`` system call ever being seen by seccomp. ``keyctl``, ``add_key`` and
``request_key`` are refused too: the kernel's per-user keyring is shared by every process of
the user, namespaces or not, and holds secrets of its own.

The program is classic BPF assembled here (no libseccomp needed) for the CPU architectures
listed in :data:`_ARCHES`; elsewhere :func:`unix_socket_filter` returns ``None`` and the
sandbox cuts the network instead when the session bus is abstract.
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import struct
from dataclasses import dataclass

# BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
# Offsets in struct seccomp_data: nr (int), arch (u32), instruction pointer (u64), args[6].
_OFF_NR, _OFF_ARCH, _OFF_ARG0_LOW = 0, 4, 16  # little-endian: the low word of args[0] first
_AF_UNIX = 1
_X32_BIT = 0x40000000


@dataclass(frozen=True)
class _Arch:
    """System call numbers of one ABI (``AUDIT_ARCH_*`` value and the calls we filter)."""

    audit: int
    socket: int
    keyring: tuple[int, int, int]  # add_key, request_key, keyctl
    io_uring_setup: int = 425
    socketcall: int | None = None  # i386 multiplexer: its arguments are behind a pointer
    x32: bool = False  # x86-64 also carries the x32 ABI, marked by bit 30 of the number


_X86_64 = _Arch(0xC000003E, 41, (248, 249, 250), x32=True)
_I386 = _Arch(0x40000003, 359, (286, 287, 288), socketcall=102)
_AARCH64 = _Arch(0xC00000B7, 198, (217, 218, 219))
_ARM = _Arch(0x40000028, 281, (309, 310, 311))
_RISCV64 = _Arch(0xC00000F3, 198, (217, 218, 219))

# Host machine → every ABI its kernel accepts (native first, then compat ABIs).
_ARCHES: dict[str, tuple[_Arch, ...]] = {
    "x86_64": (_X86_64, _I386),
    "amd64": (_X86_64, _I386),
    "aarch64": (_AARCH64, _ARM),
    "arm64": (_AARCH64, _ARM),
    "riscv64": (_RISCV64,),
}


def _ret_errno(code: int) -> int:
    return _RET_ERRNO | (code & 0xFFFF)


def _assemble(program: list[tuple[int, str | int, str | int, int] | str]) -> bytes:
    """Encode ``(code, jt, jf, k)`` instructions; strings are labels, jump targets may name them.

    Raises:
        ValueError: A jump goes backwards or further than 255 instructions.
    """
    positions: dict[str, int] = {}
    index = 0
    for item in program:
        if isinstance(item, str):
            positions[item] = index
        else:
            index += 1
    out = bytearray()
    index = 0
    for item in program:
        if isinstance(item, str):
            continue
        code, jt, jf, k = item
        offsets = []
        for target in (jt, jf):
            offset = positions[target] - index - 1 if isinstance(target, str) else target
            if not 0 <= offset <= 255:
                raise ValueError(f"BPF jump out of range: {offset}")
            offsets.append(offset)
        out += struct.pack("=HBBI", code, offsets[0], offsets[1], k)
        index += 1
    return bytes(out)


@functools.cache
def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The filter program for this machine, or ``None`` where the ABIs are not known here.

    Args:
        machine: ``platform.machine()`` value to build for (default: this machine).

    Returns:
        Raw ``struct sock_filter`` array for ``bwrap --seccomp FD``: ``socket(AF_UNIX, …)``
        and the i386 ``socketcall`` multiplexer fail with ``EACCES``, the keyring calls with
        ``EPERM``, ``io_uring_setup`` and system calls of an unexpected ABI with ``ENOSYS``.
    """
    arches = _ARCHES.get((machine or platform.machine()).lower())
    if not arches:
        return None
    deny = _ret_errno(errno.EACCES)
    nosys = _ret_errno(errno.ENOSYS)
    program: list[tuple[int, str | int, str | int, int] | str] = [(_LD_W_ABS, 0, 0, _OFF_ARCH)]
    for i, arch in enumerate(arches):
        program.append((_JEQ_K, f"arch{i}", 0, arch.audit))
    program.append((_RET_K, 0, 0, nosys))
    for i, arch in enumerate(arches):
        program += [f"arch{i}", (_LD_W_ABS, 0, 0, _OFF_NR)]
        if arch.x32:
            program.append((_JGE_K, "nosys", 0, _X32_BIT))
        program.append((_JEQ_K, "nosys", 0, arch.io_uring_setup))
        program += [(_JEQ_K, "eperm", 0, nr) for nr in arch.keyring]
        if arch.socketcall is not None:
            program.append((_JEQ_K, "deny", 0, arch.socketcall))
        program += [
            (_JEQ_K, 0, "allow", arch.socket),
            (_LD_W_ABS, 0, 0, _OFF_ARG0_LOW),  # the kernel reads the family as an int
            (_JEQ_K, "deny", "allow", _AF_UNIX),
        ]
    program += [
        "allow",
        (_RET_K, 0, 0, _RET_ALLOW),
        "deny",
        (_RET_K, 0, 0, deny),
        "nosys",
        (_RET_K, 0, 0, nosys),
        "eperm",
        (_RET_K, 0, 0, _ret_errno(errno.EPERM)),
    ]
    return _assemble(program)


def filter_fd(program: bytes) -> int:
    """A file descriptor holding ``program`` at offset 0, for ``bwrap --seccomp FD``.

    The descriptor is close-on-exec; pass it with ``pass_fds`` and close it after the spawn.
    """
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("nanobot-exec-seccomp", os.MFD_CLOEXEC)
        try:
            os.write(fd, program)
            os.lseek(fd, 0, os.SEEK_SET)
        except BaseException:
            os.close(fd)
            raise
        return fd
    read, write = os.pipe()  # pragma: no cover - Linux always has memfd_create
    try:
        os.write(write, program)  # a few hundred bytes: far below the pipe buffer
    finally:
        os.close(write)
    return read


__all__ = ["filter_fd", "unix_socket_filter"]
