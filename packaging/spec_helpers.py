"""What the PyInstaller spec collects, as plain functions (importable by the tests).

The spec (``nanobot-desktop.spec``) calls these; they only use PyInstaller's hook utilities and
the installed packages, so they run in the build environment, never in the frozen app.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import marshal
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import CodeType

import bytecode_scan
import cached_bytecode

ROOT = Path(__file__).resolve().parent.parent
APP_NAME = "nanobot-desktop"
DISPLAY_NAME = "nanobot Desktop"
BUNDLE_ID = "io.github.nanobot-desktop"

# Channel SDKs arrive later as optional extras: each is bundled when installed, skipped when
# not, so the spec needs no edit. (distribution name, import name, collect every submodule?)
# Submodules are collected for SDKs small enough that "everything" costs little and that
# import parts of themselves by name; lark-oapi has thousands of generated modules, so only
# what the channel code imports (found by the analysis) goes in.
CHANNEL_SDKS: tuple[tuple[str, str, bool], ...] = (
    ("python-telegram-bot", "telegram", True),
    ("matrix-nio", "nio", True),
    ("slack-sdk", "slack_sdk", True),
    ("discord.py", "discord", True),
    ("lark-oapi", "lark_oapi", False),
    ("dingtalk-stream", "dingtalk_stream", True),
    ("qq-botpy", "botpy", True),
    ("python-socketio", "socketio", True),
    ("wecom-aibot-sdk-python", "wecom_aibot_sdk", True),
)

# Packages compiled into the bundle here instead of going through PyInstaller's import analysis.
# With ``noarchive=True`` the analysis would put every module of theirs in ``_internal/`` as a
# ``.pyc`` file, which is what :func:`precompiled` writes too, so the app imports them the same
# way; but the analysis reads each module twice and disassembles it, and lark-oapi's 10,628
# generated modules were most of a build's CPU. What they import from outside themselves is
# handed to the analysis as hidden imports.
PRECOMPILED = ("lark_oapi",)

# Distributions whose metadata the code (ours or theirs) reads at run time:
# importlib.metadata.version() calls and entry-point discovery (keyring backends).
METADATA = ("litellm", "keyring", "mcp", "openai", "tiktoken", "pydantic",
            "httpx", "pygit2", "PySide6_Essentials", "jeepney", "SecretStorage")  # fmt: skip

# litellm: the proxy server (≈50 MB of sources, an admin UI, a database layer) and the
# contrib tree are never used by a client; what a client path imports from the proxy package
# (``litellm.proxy._types`` and a few helpers) is still found by the import analysis.
LITELLM_SKIP = ("litellm.proxy", "litellm.tests", "litellm.experimental_mcp_client")

# Left out of the bundle: test tooling and the local-model server the test extra installs,
# GUI toolkits we do not use, and Qt modules the app never loads.
EXCLUDES = (
    "tkinter", "_tkinter", "pytest", "_pytest", "pytestqt", "llama_cpp", "importlinter",
    "grimp", "IPython", "matplotlib", "PyQt5", "PyQt6", "PySide2", "numpy", "pandas",
    "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtPdf", "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets", "PySide6.QtSql", "PySide6.QtTest", "PySide6.QtDesigner",
    "PySide6.QtUiTools", "PySide6.QtXml", "PySide6.QtConcurrent", "PySide6.QtPrintSupport",
    "mcp_server_time", "mypy", "boto3", "botocore", "s3transfer",
    # litellm's Rust extension (11 MB) serves only requests that opt in; without it litellm
    # takes its Python path, which is what the source install uses too.
    "litellm.rust_bridge._native",
    # Collected, pkg_resources and setuptools bring PyInstaller runtime hooks that import them
    # before the app starts (~0.2 s of every start, more on a busy machine); nothing the app
    # runs needs them (litellm's tokenizer path falls back to pkg_resources only on a Python
    # without importlib.resources.files).
    "pkg_resources", "setuptools", "_distutils_hack",
)  # fmt: skip

# Linux: system libraries the app takes from the system (declared as dependencies of the
# .deb; the tarball's install.sh checks for them). Bundling them is what breaks frozen Qt
# apps on other distributions: an old libstdc++ or fontconfig beside the system's GL driver
# and font configuration. Only the Python runtime's own libraries are bundled from the
# build machine's /lib, with the interpreter built against them (libpython itself included:
# a distribution's own python3 keeps it in /usr/lib).
BUNDLED_SYSTEM_LIBS = ("libpython", "libssl.so", "libcrypto.so", "libffi.so", "libsqlite3.so",
                       "libbz2.so", "liblzma.so", "libz.so", "libexpat.so", "libreadline.so", "libtinfo.so",
                       "libncursesw.so", "libuuid.so", "libmpdec.so", "libgdbm.so")  # fmt: skip
SYSTEM_LIB_DIRS = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/")

# Parts of PySide6 the app never uses: Qt's own translations (the UI is not translated),
# embedded-device platforms (eglfs, linuxfb, vnc, Vulkan display) and their helpers, network
# information and TLS backends (QtNetwork only serves the single-instance socket).
# Qt's own translations for the languages the window ships (its standard buttons and dialogs:
# desktop/ui/i18n.py loads them); the rest of Qt's translations folder is left out.
QT_TRANSLATIONS_KEPT = ("PySide6/Qt/translations/qtbase_zh_CN.qm",)
QT_UNUSED = (
    "PySide6/Qt/translations/",
    "PySide6/Qt/plugins/egldeviceintegrations/",
    "PySide6/Qt/plugins/generic/",
    "PySide6/Qt/plugins/networkinformation/",
    "PySide6/Qt/plugins/tls/",
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/lib/libQt6EglFSDeviceIntegration.so",
    "PySide6/Qt/lib/libQt6EglFsKmsSupport.so",
    "libQt6EglFSDeviceIntegration.so",
    "libQt6EglFsKmsSupport.so",
)


def _everything(name: str) -> bool:
    return True


@dataclass
class Collected:
    """Hidden imports, data files and metadata for :class:`PyInstaller.building.build_main.Analysis`.

    ``packages`` are packages whose submodules (those the filter keeps) are still to be listed:
    :func:`submodules` lists all of them at the end, in one interpreter.
    """

    hiddenimports: list[str] = field(default_factory=list)
    datas: list[tuple[str, str]] = field(default_factory=list)
    packages: list[tuple[str, Callable[[str], bool]]] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)  # left to the analysis (PRECOMPILED)

    def add(self, other: Collected) -> None:
        """Merge ``other`` into this one."""
        self.hiddenimports += other.hiddenimports
        self.datas += other.datas
        self.packages += other.packages
        self.excludes += other.excludes


def _scan_package(name: str) -> tuple[list[str], list[str], str]:
    """In PyInstaller's isolated interpreter: import ``name``; if it is a package, its name and
    its direct modules, its direct subpackages, and the import error (empty when none)."""
    import importlib
    import pkgutil
    import sys

    try:
        importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - any failure: the package is left out, as PyInstaller does
        return [], [], f"{type(error).__name__}: {error}"
    paths = getattr(sys.modules.get(name), "__path__", None) or []
    if not paths:
        return ([name] if name in sys.modules else []), [], ""
    modules, packages = [name], []
    for info in pkgutil.iter_modules(paths, name + "."):
        (packages if info.ispkg else modules).append(info.name)
    return modules, packages, ""


def submodules(packages: list[tuple[str, Callable[[str], bool]]]) -> list[str]:
    """What PyInstaller's ``collect_submodules(package, filter)`` lists, for every package.

    Like it, each (sub)package is imported in an isolated interpreter to find its modules,
    and a subpackage that fails to import is left out with its modules; unlike it, one
    interpreter serves all the packages: ``collect_submodules`` starts one (≈0.3 s of CPU) per
    call and per ``is_package`` check, and imports the libraries the packages share again
    each time.
    """
    from PyInstaller import isolated
    from PyInstaller.utils.hooks import logger

    found: list[str] = []
    with isolated.Python() as child:
        for package, wanted in packages:
            todo = [package]
            while todo:
                modules, subpackages, error = child.call(_scan_package, todo.pop())
                if error and package.startswith("desktop"):
                    logger.warning("Failed to collect submodules of %r: %s", package, error)
                found += [name for name in modules if wanted(name)]
                todo += [name for name in subpackages if wanted(name)]
    return sorted(set(found))


# What PyInstaller's collect_data_files leaves out by default: modules and extensions.
_CODE_SUFFIXES = tuple(importlib.machinery.all_suffixes())


def data_files(module: str) -> list[tuple[str, str]]:
    """What PyInstaller's ``collect_data_files(module)`` lists, without pattern matching.

    Every file under the package's folder except modules, extensions and ``__pycache__``,
    with the folder it goes to. A plain walk: ``collect_data_files`` globs and matches each
    path against every pattern, 4 s of CPU for lark-oapi's 10,000 modules.
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return []
    datas: list[tuple[str, str]] = []
    for location in spec.submodule_search_locations:
        base = Path(location).parents[module.count(".")]
        for folder, subfolders, files in os.walk(location):
            subfolders.sort()
            here = Path(folder)
            for name in sorted(files):
                if name.endswith(_CODE_SUFFIXES) or (
                    here.name == "__pycache__" and name.endswith(".pyc")
                ):
                    continue
                datas.append((str(here / name), str(here.relative_to(base))))
    return datas


def project_version(root: Path = ROOT) -> str:
    """``__version__`` from ``desktop/__init__.py`` (read, not imported)."""
    text = (root / "desktop" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if not found:
        raise ValueError("no __version__ in desktop/__init__.py")
    return found.group(1)


def installed(module: str) -> bool:
    """Whether ``module`` can be imported in the build environment."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def metadata_of(*distributions: str) -> list[tuple[str, str]]:
    """``copy_metadata`` for each installed distribution (missing ones are skipped)."""
    from PyInstaller.utils.hooks import copy_metadata

    datas: list[tuple[str, str]] = []
    for name in distributions:
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        datas += copy_metadata(name)
    return datas


def optional_package(distribution: str, module: str, *, all_submodules: bool) -> Collected:
    """Everything an optional SDK needs when it is installed; nothing when it is not."""
    if not installed(module):
        return Collected()
    collected = Collected(hiddenimports=[module], datas=data_files(module))
    if all_submodules:
        collected.packages.append((module, _everything))
    collected.datas += metadata_of(distribution)
    return collected


def _imports(code: CodeType, source: bytes) -> set[str]:
    """The absolute module names a module's code imports (relative imports left out): read
    from its bytecode (bytecode_scan.py), or from its source on a Python that scanner does not
    know."""
    names: set[str] = set()
    if bytecode_scan.supported():
        # An IMPORT_NAME's two instructions before it push its level and its names.
        before: list[object] = [None, None]
        for instruction in bytecode_scan.instructions(code):
            if instruction is None:
                continue
            if instruction.opname == "IMPORT_NAME" and before[0] == 0 and instruction.argval:
                names.add(instruction.argval)
            before = [before[1], instruction.argval]
        return names
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _renamed(code: CodeType, filename: str) -> CodeType:
    """``code`` (and every function and class in it) with ``filename`` as its file name."""
    consts = tuple(
        _renamed(const, filename) if isinstance(const, CodeType) else const
        for const in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


def _pyc(code: object, source: bytes) -> bytes:
    """A ``.pyc`` file's bytes (PEP 552): an unchecked hash-based one, as no source is beside it."""
    flags = 0b01  # hash-based; the "check source" bit unset
    header = importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def precompiled(distribution: str, module: str, out: Path) -> Collected:
    """An installed package compiled into ``out`` for the bundle (see :data:`PRECOMPILED`).

    Each of its modules becomes ``<module path>.pyc`` under ``out`` (``noarchive``'s layout);
    the package is excluded from the analysis, and the modules it imports from outside itself
    are hidden imports, so the analysis still brings them and what they need. Its data files
    and metadata come too. Nothing when it is not installed.
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return Collected()
    collected = Collected(excludes=[module], datas=data_files(module))
    outside: set[str] = set()
    for location in spec.submodule_search_locations:
        base = Path(location).parents[module.count(".")]
        for folder, subfolders, files in os.walk(location):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            here = Path(folder)
            relative = here.relative_to(base)
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                path = here / name
                source = path.read_bytes()
                shown = (relative / name).as_posix()  # the file name tracebacks show
                # Its cached bytecode when valid (cached_bytecode.py), else compiled here.
                code = cached_bytecode.cached_code(str(path))
                if code is None:
                    code = compile(source, shown, "exec", dont_inherit=True)
                outside.update(n for n in _imports(code, source) if n.split(".")[0] != module)
                target = out / relative / f"{name[:-3]}.pyc"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(_pyc(_renamed(code, shown), source))
                collected.datas.append((str(target), str(relative)))
    # Optional parts it imports only when used (lark-oapi's Flask adapter): left out, as the
    # analysis leaves out what is not installed.
    collected.hiddenimports = sorted(name for name in outside if installed(name))
    collected.datas += metadata_of(distribution)
    return collected


def channel_sdks(workdir: Path | None = None) -> Collected:
    """The installed channel SDKs (see :data:`CHANNEL_SDKS`); those in :data:`PRECOMPILED` are
    compiled into ``workdir`` when one is given."""
    collected = Collected()
    for distribution, module, everything in CHANNEL_SDKS:
        if module in PRECOMPILED and workdir is not None:
            collected.add(precompiled(distribution, module, workdir / "precompiled"))
        else:
            collected.add(optional_package(distribution, module, all_submodules=everything))
    return collected


def litellm() -> Collected:
    """litellm's lazily imported modules, its tokenizer files and local cost map."""
    from PyInstaller.utils.hooks import collect_data_files

    def wanted(name: str) -> bool:
        return not name.startswith(LITELLM_SKIP)

    return Collected(
        packages=[("litellm", wanted)],
        # The tokenizers (tiktoken encodings, Anthropic's tokenizer) and the JSON tables
        # (model cost map, provider endpoints); the proxy's admin UI is left out.
        datas=collect_data_files("litellm", excludes=["proxy/**", "**/__pycache__"]),
    )


# read_file's document readers (desktop/core/tools/documents.py): imported lazily, so named
# here; python-docx and python-pptx ship XML templates and schemas beside their code.
DOCUMENT_LIBS: tuple[tuple[str, str], ...] = (
    ("pypdf", "pypdf"),
    ("python-docx", "docx"),
    ("openpyxl", "openpyxl"),
    ("python-pptx", "pptx"),
)


# Math in answers (desktop/ui/chat/math_render.py, imported lazily): ziamath draws with the
# STIX font it ships as a data file.
MATH_LIBS: tuple[tuple[str, str], ...] = (
    ("ziamath", "ziamath"),
    ("ziafont", "ziafont"),
    ("latex2mathml", "latex2mathml"),
    ("mdit-py-plugins", "mdit_py_plugins"),
)


def document_readers() -> Collected:
    """The PDF and Office libraries with their data files (see :data:`DOCUMENT_LIBS`), and
    the math renderer's (:data:`MATH_LIBS`)."""
    collected = Collected()
    for distribution, module in DOCUMENT_LIBS + MATH_LIBS:
        collected.add(optional_package(distribution, module, all_submodules=True))
    return collected


def app_data(root: Path = ROOT) -> Collected:
    """``templates/``, ``skills/`` and ``resources/`` where the wheel puts them.

    ``desktop/core/utils/resources.py`` finds them under ``desktop/_data/`` through
    ``importlib.resources``, in the wheel and in the frozen app alike.
    """
    return Collected(
        datas=[
            (str(root / name), f"desktop/_data/{name}")
            for name in ("templates", "skills", "resources")
        ]
    )


def keep_binary(dest: str, source: str, platform: str = sys.platform) -> bool:
    """Whether a file PyInstaller found goes into the bundle (see :data:`QT_UNUSED`,
    :data:`QT_TRANSLATIONS_KEPT` and :data:`BUNDLED_SYSTEM_LIBS`)."""
    normalized = dest.replace("\\", "/")
    if normalized in QT_TRANSLATIONS_KEPT:
        return True
    if normalized.startswith(QT_UNUSED):
        return False
    if platform.startswith("linux") and source.startswith(SYSTEM_LIB_DIRS):
        return Path(source).name.startswith(BUNDLED_SYSTEM_LIBS)
    return True


def prune(toc: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """``toc`` without the entries :func:`keep_binary` rejects."""
    return [entry for entry in toc if keep_binary(entry[0], entry[1])]


def everything(root: Path = ROOT, workdir: Path | None = None) -> Collected:
    """All of it: the app, litellm, keyring, pygit2, Qt extras, MCP, channel SDKs, metadata.

    ``workdir``: where the packages of :data:`PRECOMPILED` are compiled (PyInstaller's work
    folder); without one they go through the analysis like the others.
    """
    collected = Collected(
        hiddenimports=[
            # The Secret Service backend and its D-Bus library (keyring finds backends via
            # entry points; PyInstaller's keyring hook adds the backends and keyring's metadata).
            "keyring.backends.SecretService",
            "secretstorage",
            "jeepney.io.asyncio",
            "jeepney.io.blocking",
            # The SVG icon engine and image formats for the window and tray icons.
            "PySide6.QtSvg",
            "PySide6.QtNetwork",
            # tiktoken registers its encodings through this namespace package.
            "tiktoken_ext",
            "tiktoken_ext.openai_public",
        ],
        packages=[
            # Our own modules, including those imported by name (settings pages, warm-up).
            ("desktop", _everything),
            # The MCP SDK: clients for stdio and HTTP servers.
            ("mcp", lambda name: not name.startswith("mcp.cli")),
            ("mcp_types", _everything),
        ],
    )
    collected.add(app_data(root))
    collected.add(litellm())
    collected.add(channel_sdks(workdir))
    collected.add(document_readers())
    from PyInstaller.utils.hooks import collect_data_files

    # The Public Suffix List file the email channel's DKIM/SPF alignment reads.
    collected.datas += collect_data_files("publicsuffixlist", includes=["*.dat"])
    collected.datas += metadata_of(*METADATA)
    collected.hiddenimports += submodules(collected.packages)
    return collected
