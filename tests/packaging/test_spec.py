"""What the PyInstaller spec collects and the Windows/macOS files it makes (no build needed)."""

from __future__ import annotations

import ast
import importlib
import struct
import sys
from pathlib import Path

import pytest

from desktop import __version__
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "packaging"))
pytest.importorskip("PyInstaller", reason="the package extra is not installed")

from typing import cast

import platform_files
import spec_helpers


def test_version_is_the_package_version() -> None:
    assert spec_helpers.project_version() == __version__


def test_optional_sdk_bundled_only_when_installed() -> None:
    """An SDK that is installed brings its modules and metadata; a missing one, nothing."""
    present = spec_helpers.optional_package("croniter", "croniter", all_submodules=True)
    assert "croniter" in present.hiddenimports
    assert any("croniter" in source and "dist-info" in source for source, _ in present.datas)
    absent = spec_helpers.optional_package("no-such-sdk", "no_such_sdk_xyz", all_submodules=True)
    assert absent.hiddenimports == [] and absent.datas == []


def test_every_channel_sdk_is_listed() -> None:
    modules = {module for _dist, module, _all in spec_helpers.CHANNEL_SDKS}
    assert modules == {"telegram", "nio", "slack_sdk", "discord", "lark_oapi", "dingtalk_stream",
                       "botpy", "socketio", "wecom_aibot_sdk"}  # fmt: skip


def test_app_data_goes_where_resources_looks() -> None:
    targets = {target for _source, target in spec_helpers.app_data().datas}
    assert targets == {"desktop/_data/templates", "desktop/_data/skills", "desktop/_data/resources"}


@pytest.mark.parametrize(
    ("dest", "source", "kept"),
    [
        ("libX11.so.6", "/lib/x86_64-linux-gnu/libX11.so.6", False),
        ("libfontconfig.so.1", "/usr/lib/x86_64-linux-gnu/libfontconfig.so.1", False),
        ("libstdc++.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6", False),
        ("libssl.so.3", "/lib/x86_64-linux-gnu/libssl.so.3", True),
        ("libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", True),
        ("libzstd.so.1", "/lib/x86_64-linux-gnu/libzstd.so.1", False),
        ("libpython3.11.so.1.0", "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0", True),
        # Debian's own python3 keeps its shared library among the system's
        ("libpython3.11.so.1.0", "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", True),
        (
            "PySide6/Qt/lib/libQt6Gui.so.6",
            "/venv/site-packages/PySide6/Qt/lib/libQt6Gui.so.6",
            True,
        ),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/venv/PySide6/plugins/libqxcb.so", True),
        ("PySide6/Qt/plugins/platforms/libqvnc.so", "/venv/PySide6/plugins/libqvnc.so", False),
        ("PySide6/Qt/translations/qt_de.qm", "/venv/PySide6/Qt/translations/qt_de.qm", False),
        (  # Qt's own dialogs in the window's Chinese
            "PySide6/Qt/translations/qtbase_zh_CN.qm",
            "/venv/PySide6/Qt/translations/qtbase_zh_CN.qm",
            True,
        ),
    ],
)
def test_keep_binary(dest: str, source: str, kept: bool) -> None:
    assert spec_helpers.keep_binary(dest, source, platform="linux") is kept


def test_system_libraries_kept_on_other_platforms() -> None:
    assert spec_helpers.keep_binary("libX11.so.6", "/usr/lib/libX11.so.6", platform="darwin")


def _ico_entries(data: bytes) -> list[tuple[int, bytes]]:
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind) == (0, 1)
    entries = []
    for index in range(count):
        width, _h, _c, _r, _p, _b, size, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * index
        )
        entries.append((width or 256, data[offset : offset + size]))
    return entries


def _icns_entries(data: bytes) -> dict[bytes, bytes]:
    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    entries, offset = {}, 8
    while offset < len(data):
        kind, length = (
            data[offset : offset + 4],
            struct.unpack(">I", data[offset + 4 : offset + 8])[0],
        )
        entries[kind] = data[offset + 8 : offset + length]
        offset += length
    return entries


def test_icons_for_windows_and_macos(tmp_path: Path) -> None:
    """The .ico and .icns hold the project's PNGs at the sizes each format names."""
    ico, icns = platform_files.write_icons(tmp_path)
    entries = _ico_entries(ico.read_bytes())
    assert [size for size, _ in entries] == list(platform_files.ICO_SIZES)
    for size, png in entries:
        assert platform_files.png_size(png) == (size, size)
    icns_entries = _icns_entries(icns.read_bytes())
    for kind, size in platform_files.ICNS_TYPES:
        assert platform_files.png_size(icns_entries[kind]) == (size, size)


def test_ico_refuses_oversized_images() -> None:
    with pytest.raises(ValueError):
        platform_files.ico_bytes([platform_files.png(512)])


def test_windows_version_resource() -> None:
    """The version file is one expression of PyInstaller's version classes, with our values."""
    text = platform_files.windows_version_info(
        "0.1.0", name="nanobot-desktop", description="nanobot Desktop", exe="nanobot-desktop.exe"
    )
    tree = ast.parse(text, mode="eval")
    calls = {cast(ast.Name, node.func).id for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert calls == {"VSVersionInfo", "FixedFileInfo", "StringFileInfo", "StringTable",
                     "StringStruct", "VarFileInfo", "VarStruct"}  # fmt: skip
    pairs = {
        cast(ast.Constant, node.args[0]).value: cast(ast.Constant, node.args[1]).value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and cast(ast.Name, node.func).id == "StringStruct"
    }
    assert pairs["ProductVersion"] == "0.1.0" and pairs["OriginalFilename"] == "nanobot-desktop.exe"
    assert "filevers=(0, 1, 0, 0)" in text


def test_mac_info_plist() -> None:
    plist = platform_files.mac_info_plist("0.1.0")
    assert plist["CFBundleShortVersionString"] == "0.1.0"
    assert plist["CFBundleExecutable"] == "nanobot-desktop"
    assert plist["NSHighResolutionCapable"] is True


def test_frozen_start_layout() -> None:
    """What the frozen app's start time depends on (#26, bench/frozen.py measures it): the
    modules are loose .pyc files (no archive to decompress them from), and pkg_resources and
    setuptools stay out (PyInstaller's runtime hooks for them import them before every start).
    """
    spec = ast.parse((REPO / "packaging" / "nanobot-desktop.spec").read_text(encoding="utf-8"))
    analysis = next(
        node
        for node in ast.walk(spec)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Analysis"
    )
    options = {k.arg: k.value for k in analysis.keywords}
    assert isinstance(options["noarchive"], ast.Constant) and options["noarchive"].value is True
    assert {"pkg_resources", "setuptools"} <= set(spec_helpers.EXCLUDES)


def test_submodules_as_pyinstaller_lists_them() -> None:
    """One interpreter for all the packages lists what ``collect_submodules`` lists for each,
    filters included (the spec's lists stay the same while the build starts fewer)."""
    collect_submodules = importlib.import_module("PyInstaller.utils.hooks").collect_submodules

    def no_tests(name: str) -> bool:
        return ".tests" not in name

    expected = set(collect_submodules("jeepney", filter=no_tests))
    expected |= set(collect_submodules("croniter"))
    found = spec_helpers.submodules([("jeepney", no_tests), ("croniter", lambda _name: True)])
    assert set(found) == expected
    assert "jeepney.io.asyncio" in found and "croniter.tests" in found
    assert not any(".tests" in name for name in found if name.startswith("jeepney"))


def test_submodules_skip_a_package_that_fails_to_import(tmp_path: Path) -> None:
    """As in ``collect_submodules(on_error="ignore")``: a subpackage whose import fails is left
    out with its modules; the rest is listed."""
    package = tmp_path / "s34_probe"
    (package / "broken").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "fine.py").write_text("", encoding="utf-8")
    (package / "broken" / "__init__.py").write_text("raise ImportError('no')\n", encoding="utf-8")
    (package / "broken" / "inner.py").write_text("", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        found = spec_helpers.submodules([("s34_probe", lambda _name: True)])
    finally:
        sys.path.remove(str(tmp_path))
    assert found == ["s34_probe", "s34_probe.fine"]


@pytest.mark.parametrize("module", ["docx", "pptx", "certifi", "litellm.litellm_core_utils"])
def test_data_files_as_pyinstaller_lists_them(module: str) -> None:
    collect_data_files = importlib.import_module("PyInstaller.utils.hooks").collect_data_files

    pytest.importorskip(module)
    expected = sorted(collect_data_files(module))
    assert expected, f"{module} has no data files to compare"
    assert sorted(spec_helpers.data_files(module)) == expected


@pytest.mark.parametrize("cached", [False, True], ids=["from-source", "from-cached-pyc"])
def test_a_precompiled_package_imports_from_its_pyc_files_alone(
    tmp_path: Path, cached: bool
) -> None:
    """A package of :data:`spec_helpers.PRECOMPILED` goes in as ``.pyc`` files where the bundle
    keeps modules (no source beside them); an interpreter imports it from there, and what it
    imports from outside itself is handed to the analysis (what is not installed is not).
    The same whether its code comes from its source or from its valid cached bytecode."""
    package = tmp_path / "src" / "s37_sdk"
    (package / "api" / "v1").mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from .api.v1.model import Model\nimport yaml\n", encoding="utf-8"
    )
    (package / "api" / "__init__.py").write_text("", encoding="utf-8")
    (package / "api" / "v1" / "__init__.py").write_text("", encoding="utf-8")
    (package / "api" / "v1" / "model.py").write_text(
        "from email.utils import decode_rfc2231\n"
        "from s37_sdk.api import v1\n"
        "def f():\n    from no_such_adapter_s37 import request\n"
        "class Model:\n    def fail(self):\n        raise ValueError('from the model')\n",
        encoding="utf-8",
    )
    (package / "table.json").write_text("{}", encoding="utf-8")
    if cached:  # as pip leaves an installed package: __pycache__ beside every module
        import compileall

        assert compileall.compile_dir(str(package), quiet=1)
        assert len(list(package.rglob("__pycache__/*.pyc"))) == 4
    sys.path.insert(0, str(tmp_path / "src"))
    try:
        collected = spec_helpers.precompiled("s37-sdk", "s37_sdk", tmp_path / "out")
    finally:
        sys.path.remove(str(tmp_path / "src"))
        for name in [n for n in sys.modules if n.startswith("s37_sdk")]:
            del sys.modules[name]
    assert collected.excludes == ["s37_sdk"]
    assert collected.hiddenimports == ["email.utils", "yaml"]
    bundle = tmp_path / "bundle"  # where COLLECT puts each data file: its folder, then its name
    for source, folder in collected.datas:
        (bundle / folder).mkdir(parents=True, exist_ok=True)
        (bundle / folder / Path(source).name).write_bytes(Path(source).read_bytes())
    shipped = sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file())
    assert shipped == [
        "s37_sdk/__init__.pyc",
        "s37_sdk/api/__init__.pyc",
        "s37_sdk/api/v1/__init__.pyc",
        "s37_sdk/api/v1/model.pyc",
        "s37_sdk/table.json",
    ]
    probe = (
        f"import sys; sys.path.insert(0, {str(bundle)!r})\n"
        "import s37_sdk, traceback\n"
        "try:\n    s37_sdk.Model().fail()\n"
        "except ValueError:\n    print(traceback.format_exc().replace(chr(10), ' | '))\n"
        "print(s37_sdk.__spec__.loader.__class__.__name__)\n"
    )
    import subprocess

    result = subprocess.run(
        [sys.executable, "-I", "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    shown, loader = result.stdout.splitlines()
    assert 'File "s37_sdk/api/v1/model.py", line 7, in fail' in shown  # as the bundle names it
    assert loader == "SourcelessFileLoader"
