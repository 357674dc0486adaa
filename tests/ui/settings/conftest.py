"""Settings-tab fixtures: a config file on disk, AppServices with an in-memory keyring."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from tests.conftest import write_config
from tests.fakes.memory_keyring import MemoryKeyring

# Keys nanobot Desktop does not know, at several depths: they must survive every save.
UNKNOWN = {
    "agents": {"defaults": {"futureOption": {"nested": [1, 2, 3]}}},
    "providers": {"openai": {"organization": "org-123"}},
    "tools": {"exec": {"futureFlag": True}},
    "channels": {"telegram": {"futureChannelKey": "x"}},
}


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` merged in (dicts recursively)."""
    out = dict(base)
    for key, value in extra.items():
        out[key] = (
            deep_merge(out[key], value)
            if isinstance(value, dict) and isinstance(out.get(key), dict)
            else value
        )
    return out


@pytest.fixture
def config_data(tmp_path: Path) -> dict[str, Any]:
    """A nanobot-style config with unknown keys."""
    return deep_merge(
        {
            "agents": {
                "defaults": {"model": "gpt-4o-mini", "workspace": str(tmp_path / "workspace")}
            },
            "providers": {"openai": {}},
        },
        UNKNOWN,
    )


@pytest.fixture
def config_path(tmp_path: Path, config_data: dict[str, Any]) -> Path:
    """``config.json`` on disk."""
    return write_config(tmp_path / "nanobot" / "config.json", config_data)


@pytest.fixture
def keyring_service() -> str:
    """A unique keyring service name per test."""
    return f"nanobot-desktop-test-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def services(
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    config_path: Path,
    keyring_service: str,
) -> AppServices:
    """AppServices over the config file, keys in the in-memory keyring."""
    return AppServices(
        load_config(config_path), config_path, SecretStore(keyring_service, timeout=5)
    )


@pytest.fixture
def make_tab(qtbot: QtBot, services: AppServices) -> Iterator[Callable[[], SettingsTab]]:
    """Build (and later close) a SettingsTab at 1024×700."""
    tabs: list[SettingsTab] = []

    def build() -> SettingsTab:
        tab = SettingsTab(services)
        qtbot.addWidget(tab)
        tab.resize(1024, 700)
        tab.show()
        tabs.append(tab)
        return tab

    yield build
    for tab in tabs:
        future = asyncio.ensure_future(tab.aclose())
        qtbot.waitUntil(future.done, timeout=30_000)


def on_disk(path: Path) -> dict[str, Any]:
    """The config file as JSON."""
    return cast("dict[str, Any]", json.loads(path.read_text(encoding="utf-8")))
