"""A faster reading of modules' bytecode for PyInstaller's import analysis.

modulegraph finds a module's imports and global names by walking every instruction of its code
(and of every function and class in it) through :func:`dis.get_instructions`, which builds a
full :class:`dis.Instruction` (with positions, labels and a printable argument) for each one:
~8 million instructions for this app, about half of a build's CPU once the modules come from
their cached bytecode (cached_bytecode.py). Of those it reads six kinds: ``LOAD_CONST`` (an
import's level and names), ``IMPORT_NAME``, and ``STORE_NAME``/``STORE_GLOBAL``/``DELETE_NAME``/
``DELETE_GLOBAL`` (the module's global names).

:func:`instructions` reads the raw code units (``co_code``: opcode, argument, inline caches
skipped, ``EXTENDED_ARG`` folded in as :mod:`dis` does) and yields just those six, with their
argument's value, in the same order and with the same end-of-block markers as modulegraph's
own ``iterate_instructions``. What modulegraph does with them is unchanged: the two instructions
before an ``IMPORT_NAME`` are still its two ``LOAD_CONST``s, as the compiler always emits them
there. :func:`install` puts it in place only on the CPython versions whose code layout it knows
(3.11 and 3.12; anything else keeps PyInstaller's).

Used by ``nanobot-desktop.spec``; tested against ``dis`` in ``tests/packaging/test_cached_bytecode.py``.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Iterator
from types import CodeType
from typing import Any, NamedTuple

WANTED = (
    "LOAD_CONST",
    "IMPORT_NAME",
    "STORE_NAME",
    "STORE_GLOBAL",
    "DELETE_NAME",
    "DELETE_GLOBAL",
)
SUPPORTED = ((3, 11), (3, 12))

_CONST = dis.opmap["LOAD_CONST"]
_NAMES = {dis.opmap[name]: name for name in WANTED if name != "LOAD_CONST"}
_EXTENDED_ARG = dis.EXTENDED_ARG
# Inline cache entries after each opcode (3.11+): skipped, as dis skips them.
_CACHES: list[int] = list(getattr(dis, "_inline_cache_entries", [0] * 256))


class Instruction(NamedTuple):
    """The two fields of :class:`dis.Instruction` modulegraph reads."""

    opname: str
    argval: Any


def supported(version: tuple[int, ...] = tuple(sys.version_info[:2])) -> bool:
    """Whether :func:`instructions` knows this Python's code layout."""
    return version in SUPPORTED and hasattr(dis, "_inline_cache_entries")


def instructions(code: CodeType) -> Iterator[Instruction | None]:
    """The instructions of ``code`` that modulegraph reads, then ``None``, then the same for
    each code object among its constants (depth first), like modulegraph's
    ``util.iterate_instructions`` with everything else left out."""
    raw = code.co_code
    consts, names = code.co_consts, code.co_names
    extended = 0
    index, end = 0, len(raw)
    while index < end:
        op = raw[index]
        arg = raw[index + 1] | extended
        index += 2 + 2 * _CACHES[op]
        if op == _EXTENDED_ARG:
            extended = arg << 8
            continue
        extended = 0
        if op == _CONST:
            yield Instruction("LOAD_CONST", consts[arg])
        elif op in _NAMES:
            yield Instruction(_NAMES[op], names[arg])
    yield None
    for constant in consts:
        if isinstance(constant, CodeType):
            yield from instructions(constant)


def install(util: Any | None = None) -> bool:
    """Make modulegraph read bytecode with :func:`instructions` (when :func:`supported`).

    Args:
        util: ``PyInstaller.lib.modulegraph.util`` (imported when None). modulegraph calls
            ``util.iterate_instructions`` through the module, so replacing it there suffices.

    Returns:
        Whether it was installed.
    """
    if not supported():
        return False
    if util is None:
        from PyInstaller.lib.modulegraph import util as imported

        util = imported
    util.iterate_instructions = instructions
    return True
