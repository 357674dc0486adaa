"""Shipped data in a frozen app: found in the bundle's desktop/_data, never guessed beside it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.utils import resources


@pytest.fixture
def bundle(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A frozen app's ``_internal`` whose ``desktop`` package importlib.resources reports."""
    package = tmp_path / "_internal" / "desktop"
    package.mkdir(parents=True)
    (tmp_path / "_internal" / "templates").mkdir()  # what a source-checkout guess would find
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(resources, "files", lambda name: package)
    resources.data_root.cache_clear()
    yield package
    resources.data_root.cache_clear()  # the next test sees the real location again


def test_frozen_app_reads_its_bundled_data(bundle: Path) -> None:
    identity = bundle / "_data" / "templates" / "agent" / "identity.md"
    identity.parent.mkdir(parents=True)
    identity.write_text("bundled identity", encoding="utf-8")
    assert resources.data_path("templates") == bundle / "_data" / "templates"
    assert resources.read_template("agent", "identity.md") == "bundled identity"


def test_frozen_app_without_its_data_says_so(bundle: Path) -> None:
    """A bundle built without desktop/_data is a packaging bug: no guess beside the bundle."""
    with pytest.raises(FileNotFoundError, match="missing from the bundle"):
        resources.data_path("templates")
