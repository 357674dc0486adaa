"""Desktop preferences in desktop.json: defaults, round trip, unknown keys, corrupt files."""

from __future__ import annotations

import asyncio
import json
import logging
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from desktop.core.config.prefs import DesktopPrefs, PrefsStore, load_prefs, prefs_path, save_prefs
from desktop.core.config.prefs_peek import peek_prefs, peek_text


def test_defaults_when_missing(tmp_path: Path) -> None:
    """No file: the documented defaults and no warning."""
    prefs = load_prefs(tmp_path / "desktop.json")
    assert prefs.appearance == "system"
    assert prefs.close_to_tray is True
    assert prefs.approval_mode == "ask"
    assert prefs.always_allowed_tools == []
    assert prefs.start_at_login is False
    assert prefs.reminders_paused is False
    assert prefs.window_geometry is None
    assert prefs.load_warning is None
    assert not (tmp_path / "desktop.json").exists()


def test_path_is_beside_the_config(tmp_path: Path, isolated_env: Path) -> None:
    """desktop.json sits in the config folder (default ~/.nanobot)."""
    assert prefs_path(tmp_path / "cfg" / "config.json") == tmp_path / "cfg" / "desktop.json"
    assert prefs_path() == isolated_env / ".nanobot" / "desktop.json"


def test_round_trip_camel_case_and_unknown_keys(tmp_path: Path) -> None:
    """Values survive a save/load; keys are camelCase; keys we do not know are kept."""
    path = tmp_path / "desktop.json"
    path.write_text(
        json.dumps({"appearance": "dark", "futureOption": {"x": 1}, "closeToTray": False})
    )
    prefs = load_prefs(path)
    assert prefs.appearance == "dark" and prefs.close_to_tray is False
    prefs.always_allowed_tools = ["exec", "mcp_time_get_current_time"]
    prefs.window_geometry = "AdnQywAD"
    save_prefs(prefs, path)
    data = json.loads(path.read_text())
    assert data["futureOption"] == {"x": 1}
    assert data["alwaysAllowedTools"] == ["exec", "mcp_time_get_current_time"]
    assert data["windowGeometry"] == "AdnQywAD"
    assert "always_allowed_tools" not in data
    again = load_prefs(path)
    assert again.always_allowed_tools == ["exec", "mcp_time_get_current_time"]
    assert again.model_extra == {"futureOption": {"x": 1}}


def test_approval_timeout_round_trip(tmp_path: Path) -> None:
    """approvalTimeoutMinutes: 10 by default, whole minutes kept, ``null`` means never; a value
    out of range gets the default (with a warning) and the other settings are kept."""
    path = tmp_path / "desktop.json"
    assert load_prefs(path).approval_timeout_minutes == 10
    prefs = load_prefs(path)
    prefs.approval_timeout_minutes = 25
    save_prefs(prefs, path)
    assert json.loads(path.read_text())["approvalTimeoutMinutes"] == 25
    assert load_prefs(path).approval_timeout_minutes == 25
    prefs.approval_timeout_minutes = None
    save_prefs(prefs, path)
    assert json.loads(path.read_text())["approvalTimeoutMinutes"] is None
    assert load_prefs(path).approval_timeout_minutes is None
    for bad in (0, -5, 100_000, "soon"):
        path.write_text(json.dumps({"approvalTimeoutMinutes": bad, "appearance": "dark"}))
        loaded = load_prefs(path)
        assert loaded.approval_timeout_minutes == 10, bad
        assert loaded.appearance == "dark" and loaded.load_warning
    with pytest.raises(ValidationError):
        prefs.approval_timeout_minutes = 0


def test_snake_case_is_accepted(tmp_path: Path) -> None:
    """A hand-written snake_case key is read (and written back camelCase)."""
    path = tmp_path / "desktop.json"
    path.write_text(json.dumps({"approval_mode": "autonomous"}))
    prefs = load_prefs(path)
    assert prefs.approval_mode == "autonomous"


def test_file_is_private(tmp_path: Path) -> None:
    """The file is readable by the user only (it lists allowed tools)."""
    path = tmp_path / "desktop.json"
    save_prefs(DesktopPrefs(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"appearance": "purple"}', "appearance"),
        ('{"closeToTray": "sometimes"}', "closeToTray"),
    ],
)
def test_corrupt_file_is_set_aside(
    tmp_path: Path, content: str, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An unusable file is copied aside, defaults are used, and a warning says so."""
    path = tmp_path / "desktop.json"
    path.write_text(content)
    with caplog.at_level(logging.WARNING):
        prefs = load_prefs(path)
    assert prefs.model_dump() == DesktopPrefs().model_dump()
    assert prefs.load_warning is not None and reason in prefs.load_warning
    copies = list(tmp_path.glob("desktop.json.corrupt-*"))
    assert len(copies) == 1 and copies[0].read_text() == content
    assert path.read_text() == content  # untouched until the next save
    assert copies[0].name in prefs.load_warning
    assert any("desktop settings file" in r.getMessage() for r in caplog.records)


def test_empty_file_means_defaults(tmp_path: Path) -> None:
    """An empty file is not corruption."""
    path = tmp_path / "desktop.json"
    path.write_text("  \n")
    assert load_prefs(path).load_warning is None
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_store_update_notifies_changed_keys(tmp_path: Path) -> None:
    """update() validates, applies, and tells listeners which keys changed."""
    store = PrefsStore(tmp_path / "desktop.json")
    seen: list[set[str]] = []
    unsubscribe = store.subscribe(seen.append)
    assert store.update(appearance="dark", close_to_tray=True) == {"appearance"}
    assert seen == [{"appearance"}]
    assert store.update(appearance="dark") == set()
    assert seen == [{"appearance"}]  # nothing changed, nobody told
    unsubscribe()
    store.update(appearance="light")
    assert len(seen) == 1


def test_store_update_rejects_bad_values_atomically(tmp_path: Path) -> None:
    """A bad value changes nothing, not even the valid values given with it."""
    store = PrefsStore(tmp_path / "desktop.json")
    with pytest.raises(ValidationError):
        store.update(appearance="dark", approval_mode="yolo")
    assert store.prefs.appearance == "system"
    assert store.prefs.approval_mode == "ask"
    with pytest.raises(AttributeError):
        store.update(no_such_pref=True)


def test_store_listener_failure_is_contained(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A failing listener is logged; the others still run."""
    store = PrefsStore(tmp_path / "desktop.json")
    seen: list[set[str]] = []

    def broken(_: set[str]) -> None:
        raise RuntimeError("boom")

    store.subscribe(broken)
    store.subscribe(seen.append)
    store.update(reminders_paused=True)
    assert seen == [{"reminders_paused"}]
    assert "preferences listener failed" in caplog.text


def test_store_asave_writes_in_a_thread(tmp_path: Path) -> None:
    """asave() writes the current values (a snapshot) to disk."""
    path = tmp_path / "sub" / "desktop.json"
    store = PrefsStore(path)
    store.update(start_at_login=True, always_allowed_tools=["exec"])
    asyncio.run(store.asave())
    data = json.loads(path.read_text())
    assert data["startAtLogin"] is True and data["alwaysAllowedTools"] == ["exec"]
    assert not list(path.parent.glob(".desktop.json.*.tmp"))


def test_store_reports_the_load_warning(tmp_path: Path) -> None:
    """The store exposes why the file was not used."""
    path = tmp_path / "desktop.json"
    path.write_text("{")
    assert "invalid JSON" in (PrefsStore(path).warning or "")


def test_peek_reads_raw_values_without_validation(tmp_path: Path) -> None:
    """The first window reads geometry and theme without pydantic; bad input gives nothing."""
    path = tmp_path / "desktop.json"
    assert peek_prefs(path) == {}
    path.write_text('{"appearance": "dark", "windowGeometry": "AAA", "closeToTray": 3}')
    raw = peek_prefs(path)
    assert peek_text(raw, "appearance", ("system", "light", "dark")) == "dark"
    assert peek_text(raw, "windowGeometry") == "AAA"
    assert peek_text(raw, "closeToTray") is None
    path.write_text('{"appearance": "purple"}')
    assert peek_text(peek_prefs(path), "appearance", ("system", "light", "dark")) is None
    path.write_text("{broken")
    assert peek_prefs(path) == {}
    path.write_text("[]")
    assert peek_prefs(path) == {}
