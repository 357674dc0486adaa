"""Shared fixtures: an isolated home, a scripted OpenAI server, keyrings, config files."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import PySide6.QtCore  # noqa: F401  # before the check below replaces PySide6's own
import pytest

from desktop.core.config.provider_registry import PROVIDERS
from desktop.ui import qt_feature
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.real_keyring import real_keyring  # noqa: F401 - the fixture, for every test

# Suite-wide guards: no tasks, threads or widgets left behind; no blocking in the event loop.
# (pytester runs the guards' own tests.)
pytest_plugins = ["tests.guards.leaks", "tests.guards.blocking", "pytester", "tests.coverage_lane"]
if os.environ.get("NANOBOT_TEST_COSTS"):  # the per-test cost table (scripts/test_costs.py)
    pytest_plugins.append("tests.costs")

# PySide6 (here and in pytest-qt) asks of every module imported after it whether it uses
# PySide, reading its source through inspect and linecache: 2.4 s of CPU more for LiteLLM's
# and lark-oapi's imports, in each test process. The app puts its own cheaper check in first
# thing (desktop/ui/qt_feature.py); so do the test processes.
qt_feature.install()

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CLI = str(BIN / "nanobot-desktop")

# Variables that would let the real environment leak into tests.
_PROVIDER_ENV = {spec.env_key for spec in PROVIDERS if spec.env_key}


def _scrubbed(name: str) -> bool:
    """Config overrides and provider keys are removed; test switches are kept."""
    if name in _PROVIDER_ENV or name.startswith("AWS_"):  # AWS: Bedrock's credentials
        return True
    return name.startswith("NANOBOT_") and not name.startswith(
        ("NANOBOT_TEST_", "NANOBOT_DESKTOP_")
    )


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own HOME and no NANOBOT_* / provider key variables."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name in list(os.environ):
        if _scrubbed(name):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return home


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Swap the process keyring for an in-memory one."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    """Make the process keyring the 'fail' backend, as on a headless Linux box."""
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def scripted_server() -> Iterator[ScriptedOpenAIServer]:
    """A running scripted OpenAI-compatible server."""
    with ScriptedOpenAIServer() as server:
        yield server


def write_config(path: Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as JSON to ``path`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def custom_config(tmp_path: Path, api_base: str, **defaults: Any) -> Path:
    """A config that points the ``custom`` provider at ``api_base``; workspace under tmp."""
    data = {
        "agents": {
            "defaults": {
                "model": "any-name",
                "provider": "custom",
                "workspace": str(tmp_path / "workspace"),
                **defaults,
            }
        },
        "providers": {"custom": {"apiBase": api_base}},
    }
    return write_config(tmp_path / "config" / "config.json", data)


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for running the CLI in a subprocess: isolated HOME, no provider keys."""
    env = {k: v for k, v in os.environ.items() if not _scrubbed(k)}
    env.update(HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True", PYTHONUNBUFFERED="1")
    # The code under test, even when the installed script points at another checkout.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


# Lanes for pytest-xdist (scripts/test.sh: ``-n 3 --dist loadgroup``). Every test may run on
# either worker (each worker is its own process: its own HOME per test, ports from the OS, its
# own QApplication and qasync loop, its own Xvfb per X test through ``-displayfd``, unique
# keyring service names), except these, which share something expensive or system-wide and so
# run on one worker, one after the other: path prefix -> (group, why).
LANES: dict[str, tuple[str, str]] = {
    "tests/channels/matrix/": (
        "synapse",
        "one real Synapse per session (a session fixture); a second worker would start another",
    ),
    "tests/channels/conformance/synapse/": (
        "synapse",
        "the conformance suite's Matrix cases, on the same session-wide Synapse",
    ),
    "tests/e2e/": ("llama", "one llama.cpp server per session, with the model loaded"),
    "tests/packaging/test_frozen_app.py": (
        "frozen",
        "installs the .deb system-wide under CI (dpkg -i, one at a time); it waits for the build",
    ),
    "tests/test_install_scripts.py": (
        "frozen",
        "holds dpkg's lock for a moment: never while the .deb installs",
    ),
}
# Groups that start first (long and serial: the other worker works beside them) and last
# (before the GUI tier).
FIRST, LAST = ("synapse", "llama"), ("frozen",)


def _path(nodeid: str) -> str:
    nodeid = nodeid.replace("\\", "/")
    return nodeid if nodeid.startswith("tests/") else f"tests/{nodeid}"


def lane(nodeid: str) -> str | None:
    """The group the test ``nodeid`` runs in under xdist (``None``: any worker)."""
    path = _path(nodeid)
    return next((group for prefix, (group, _) in LANES.items() if path.startswith(prefix)), None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the tests: the GUI tests always last; under xdist the long lanes first.

    The GUI tier shares one qasync loop that stays installed as the running loop for the rest
    of the session (DESIGN §4); pytest-asyncio tests after it would find "another loop running".
    Under xdist every worker collects in this order and is handed tests in this order, so on
    every worker too the GUI tests come after all the others it runs.
    """
    distributed = hasattr(config, "workerinput")  # this process is an xdist worker

    def rank(item: pytest.Item) -> int:
        if _path(item.nodeid).startswith("tests/ui/"):
            return 4
        group = lane(item.nodeid)
        if group in LAST:
            return 3
        if distributed and group in FIRST:
            return FIRST.index(group)
        return 2

    items.sort(key=rank)  # stable: the collection order within each rank


def pytest_configure(config: pytest.Config) -> None:
    """Collect cyclic garbage less often in the test processes.

    A worker's heap is large (Qt, LiteLLM, thousands of test items) and Python's default
    thresholds (700, 10, 10) walk all of it in a full collection every ~70,000 allocations: on
    1,297 tests of the memory, settings-corpus and Settings-tab tiers that was 33 full
    collections and 16-18 s of a 66 s run in the collector. With these, 5 full collections and
    4-5 s; young cycles still go at every 20,000 allocations. Only the test processes: the
    product keeps Python's defaults.
    """
    del config
    gc.set_threshold(20_000, 20, 20)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist load``/``loadgroup``: one test at a time to whichever worker is free, in
    the collection order, except a :data:`LANES` group, which goes to one worker as a whole.

    (xdist's own ``loadgroup`` marks tests by renaming their node ids, which pytest 9.2's node
    ids ignore; the lanes are found from the path instead.)
    """
    if config.getvalue("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LaneScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return lane(nodeid) or nodeid

        def schedule(self) -> None:
            self.config.option.loadscopereorder = False  # keep the order above
            super().schedule()

    return LaneScheduling(config, log)
