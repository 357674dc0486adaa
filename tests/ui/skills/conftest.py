"""Skills-tab fixtures: a workspace with skills of every kind, and the tab."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.ui.services import AppServices
from desktop.ui.skills import SkillsTab
from tests.ui.conftest import run_async

MISSING_BIN = "nanobot-test-no-such-binary"
MISSING_ENV = "NANOBOT_TEST_UNSET_VARIABLE"


def write_skill(ws: Path, name: str, text: str) -> Path:
    """Write ``skills/<name>/SKILL.md``."""
    path = ws / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


NOTES = """---
name: notes
description: Keep project notes in notes/ as markdown.
always: true
---

# Notes

1. Write notes to `notes/<topic>.md`.
"""

NEEDS = f"""---
name: needs-tools
description: Needs a program and a variable that are not here.
metadata: {{"nanobot": {{"requires": {{"bins": ["{MISSING_BIN}"], "env": ["{MISSING_ENV}"]}}}}}}
---

# Needs tools
"""

BROKEN = """---
name: broken
description: [unclosed
---

# Broken
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace with an always-on skill, an unavailable one and a broken one."""
    monkeypatch.delenv(MISSING_ENV, raising=False)
    ws = tmp_path / "ws"
    write_skill(ws, "notes", NOTES)
    write_skill(ws, "needs-tools", NEEDS)
    write_skill(ws, "broken", BROKEN)
    return ws


@pytest.fixture
def services(workspace: Path, tmp_path: Path) -> AppServices:
    """AppServices on the test workspace."""
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    return AppServices(config, tmp_path / "config.json", SecretStore())


@pytest.fixture
def tab(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> Iterator[SkillsTab]:
    """A shown Skills tab at 1024×700 with its list loaded."""
    widget = SkillsTab(services)
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    run_async(qtbot, qloop, widget.refreshed_once())
    yield widget
    run_async(qtbot, qloop, widget.aclose())
    widget.close()
    widget.deleteLater()
