"""Damage corpus for the settings files: ``config.json`` and ``desktop.json`` beside it.

``config.json``: a bad field falls back to its default with a warning naming the field and the
file is copied aside byte-exact; the other settings are kept and a save writes a clean file.
Only a file that cannot be used at all (not JSON, nested beyond the parser, a folder), a bad
safety setting, or a workspace that is a file raise :class:`ConfigError` — never anything
else. ``desktop.json``: never raises at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.errors import ConfigError
from desktop.core.config.loader import config_origin, load_config, save_config
from desktop.core.config.prefs import load_prefs
from desktop.core.config.prefs_peek import peek_prefs
from desktop.core.config.schema import Config
from tests.core.robust.corpus import (
    BOMB,
    FRAGMENTS,
    SCRUBBED,
    UNPARSEABLE,
    aside_bytes,
    asides,
    make_fifo,
    nested_with,
)

CONFIG: dict[str, Any] = {
    "agents": {
        "defaults": {
            "model": "my-model",
            "provider": "custom",
            "maxTokens": 1000,
            "contextWindowTokens": 32_000,
            "temperature": 0.5,
            "maxToolIterations": 12,
            "maxToolResultChars": 5000,
            "maxConcurrentSubagents": 2,
            "reasoningEffort": "low",
            "timezone": "Europe/Berlin",
            "requestTimeoutS": 30.0,
            "streamIdleTimeoutS": 20.0,
            "dream": {"enabled": True, "intervalH": 3, "maxBatchSize": 5, "modelOverride": None},
        }
    },
    "providers": {"custom": {"apiKey": None, "apiBase": "http://127.0.0.1:9/v1"}},
    "channels": {"telegram": {"enabled": False, "allowFrom": ["me"], "token": ""}},
    "gateway": {"heartbeat": {"enabled": True, "intervalS": 1800}},
    "tools": {
        "restrictToWorkspace": True,
        "exec": {"timeout": 30, "pathAppend": "", "denyPatterns": ["rm"], "allowPatterns": []},
        "mcpServers": {
            "srv": {"command": "srv", "args": ["-x"], "env": {"A": "1"}, "toolTimeout": 10}
        },
    },
}
LEAVES: list[tuple[str, ...]] = [
    *(("agents", "defaults", k) for k in CONFIG["agents"]["defaults"] if k != "dream"),
    *(("agents", "defaults", "dream", k) for k in CONFIG["agents"]["defaults"]["dream"]),
    ("providers", "custom", "apiKey"),
    ("providers", "custom", "apiBase"),
    ("providers", "custom", "extraHeaders"),
    ("channels", "telegram", "enabled"),
    ("channels", "telegram", "allowFrom"),
    ("gateway", "heartbeat", "intervalS"),
    ("tools", "restrictToWorkspace"),
    ("tools", "exec", "timeout"),
    ("tools", "exec", "denyPatterns"),
    ("tools", "exec", "allowPatterns"),
    *(("tools", "mcpServers", "srv", k) for k in ("command", "args", "env", "type", "toolTimeout")),
    ("tools", "mcpServers", "srv"),
    ("tools", "mcpServers"),
    ("agents", "defaults"),
    ("providers",),
    ("channels",),
    ("tools",),
]
FAIL_CLOSED = {
    ("tools", "restrictToWorkspace"),
    ("tools", "exec", "denyPatterns"),
    ("channels", "telegram", "allowFrom"),
}
SENTINELS: dict[tuple[str, ...], Callable[[Config], bool]] = {
    ("agents", "defaults", "model"): lambda c: c.agents.defaults.model == "my-model",
    ("providers", "custom", "apiBase"): lambda c: (
        c.providers.custom.api_base == "http://127.0.0.1:9/v1"
    ),
    ("tools", "mcpServers", "srv", "command"): lambda c: (
        c.tools.mcp_servers["srv"].command == "srv"
    ),
    ("tools", "restrictToWorkspace"): lambda c: c.tools.restrict_to_workspace is True,
}


def _config_file(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "home" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _base(tmp_path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(CONFIG))
    data["agents"]["defaults"]["workspace"] = str(tmp_path / "ws")
    return data


@pytest.mark.parametrize("fragment", list(FRAGMENTS))
@pytest.mark.parametrize("leaf", LEAVES, ids=[".".join(p) for p in LEAVES])
def test_config_field_of_every_wrong_type(
    tmp_path: Path, leaf: tuple[str, ...], fragment: str
) -> None:
    """A bad field: its default, a warning naming it, a byte-exact copy; the rest is kept."""
    original = nested_with(_base(tmp_path), leaf, FRAGMENTS[fragment])
    path = _config_file(tmp_path, original)
    try:
        config = load_config(path, environ={})
    except ConfigError as exc:
        assert str(path) in str(exc)
        assert fragment in UNPARSEABLE or leaf in FAIL_CLOSED
        assert path.read_bytes() == original, "a refused file is never touched"
        return
    assert fragment not in UNPARSEABLE
    for where, check in SENTINELS.items():
        if where[: len(leaf)] != leaf:
            assert check(config), f"{'.'.join(where)} was lost"
    warnings = config_origin(config).warnings
    if warnings:
        assert aside_bytes(path) == original, "the file is kept byte-exact before any save"
    if fragment in SCRUBBED:
        assert any(leaf[-1] in w or "value" in w for w in warnings)
    save_config(config)
    again = load_config(path, environ={})
    assert config_origin(again).warnings == [], "a saved config reads back clean"
    assert len(asides(path)) <= 1


@pytest.mark.parametrize("leaf", sorted(FAIL_CLOSED))
@pytest.mark.parametrize("fragment", ["nan", "text", "object", "deep"])
def test_safety_settings_never_fall_back(
    tmp_path: Path, leaf: tuple[str, ...], fragment: str
) -> None:
    """A bad safety setting stops the load (its default would allow more), naming the field."""
    original = nested_with(_base(tmp_path), leaf, FRAGMENTS[fragment])
    if leaf == ("tools", "restrictToWorkspace") and fragment == "text":
        original = original.replace(b'"x"', b'"maybe"')
    path = _config_file(tmp_path, original)
    with pytest.raises(ConfigError, match="safety setting") as info:
        load_config(path, environ={})
    assert info.value.field and leaf[-1] in info.value.field
    assert path.read_bytes() == original


@pytest.mark.parametrize("leaf", sorted(FAIL_CLOSED))
def test_safety_settings_with_good_values_load(tmp_path: Path, leaf: tuple[str, ...]) -> None:
    """The guard does not get in the way of valid values."""
    value = "false" if leaf[-1] == "restrictToWorkspace" else '["a", "b"]'
    path = _config_file(tmp_path, nested_with(_base(tmp_path), leaf, value))
    assert config_origin(load_config(path, environ={})).warnings == []


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{" + b'"a": {' * BOMB, "nested too deeply"),
        (b"[" * BOMB, "nested too deeply"),
        (b"\xff\xfe{}", "UTF-8"),
        (b"[1, 2]", "object"),
        (b"{oops", "invalid JSON"),
    ],
    ids=["object_bomb", "array_bomb", "not_utf8", "array", "not_json"],
)
def test_config_files_that_cannot_be_used(tmp_path: Path, content: bytes, reason: str) -> None:
    """The whole file is unusable: a ConfigError saying why, the file untouched."""
    path = _config_file(tmp_path, content)
    with pytest.raises(ConfigError, match=reason):
        load_config(path, environ={})
    with pytest.raises(ConfigError):
        save_config(load_config(_config_file(tmp_path / "other", b"{}"), environ={}), path)
    assert path.read_bytes() == content


@pytest.mark.parametrize("shape", ["folder", "fifo"])
def test_config_path_that_is_not_a_file(tmp_path: Path, shape: str) -> None:
    """A folder or FIFO at the config path: a clear ConfigError, never a hang."""
    path = tmp_path / "config.json"
    if shape == "folder":
        path.mkdir()
    else:
        make_fifo(path)
    with pytest.raises(ConfigError, match=r"folder|regular file"):
        load_config(path, environ={})


def test_workspace_that_is_a_file(tmp_path: Path) -> None:
    """A workspace path naming a file is refused with the field named, from the file or
    from ``--workspace``."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    data = _base(tmp_path)
    data["agents"]["defaults"]["workspace"] = str(afile)
    path = _config_file(tmp_path, json.dumps(data).encode())
    with pytest.raises(ConfigError, match="is a file") as info:
        load_config(path, environ={})
    assert info.value.field == "agents.defaults.workspace"
    good = _config_file(tmp_path / "g", json.dumps(_base(tmp_path)).encode())
    with pytest.raises(ConfigError, match="is a file"):
        load_config(good, environ={}, workspace=afile)
    with pytest.raises(ConfigError, match="which is a file"):
        load_config(good, environ={}, workspace=afile / "below" / "ws")


def test_env_override_that_is_a_bomb_is_text(tmp_path: Path) -> None:
    """An environment override that json cannot read is taken as plain text."""
    path = _config_file(tmp_path, json.dumps(_base(tmp_path)).encode())
    config = load_config(path, environ={"NANOBOT_AGENTS__DEFAULTS__MODEL": "[" * BOMB})
    assert config.agents.defaults.model == "[" * BOMB


# -- desktop.json ----------------------------------------------------------------------------

PREFS = {
    "appearance": "dark",
    "closeToTray": False,
    "approvalMode": "autonomous",
    "alwaysAllowedTools": ["exec"],
    "startAtLogin": True,
    "remindersPaused": True,
    "windowGeometry": "AAAA",
    "futureKey": {"kept": True},
}


@pytest.mark.parametrize("fragment", list(FRAGMENTS))
@pytest.mark.parametrize("field", [k for k in PREFS if k != "futureKey"])
def test_prefs_field_of_every_wrong_type(tmp_path: Path, field: str, fragment: str) -> None:
    """A bad preference gets its default; every other one is kept; never raises."""
    original = nested_with(PREFS, (field,), FRAGMENTS[fragment])
    path = tmp_path / "desktop.json"
    path.write_bytes(original)
    prefs = load_prefs(path)
    assert isinstance(peek_prefs(path), dict)
    if fragment in UNPARSEABLE:
        assert prefs.load_warning and aside_bytes(path) == original
        return
    dumped = prefs.model_dump(by_alias=True)
    for key, value in PREFS.items():
        if key != field:
            assert dumped[key] == value, key
    if prefs.load_warning:
        assert aside_bytes(path) == original and "desktop.json" in prefs.load_warning


@pytest.mark.parametrize(
    "content",
    [b"", b"{oops", b"\xff", b"[1]", b"[" * BOMB, b"\xef\xbb\xbf{}"],
    ids=["empty", "not_json", "not_utf8", "array", "bomb", "bom"],
)
def test_prefs_whole_file_shapes(tmp_path: Path, content: bytes) -> None:
    """Unusable files give the defaults with a warning; the window's peek never raises."""
    path = tmp_path / "desktop.json"
    path.write_bytes(content)
    prefs = load_prefs(path)
    assert peek_prefs(path) == {} or content.endswith(b"{}")
    assert prefs.approval_mode == "ask"
    if content.strip() and not content.endswith(b"{}"):
        assert prefs.load_warning and aside_bytes(path) == content


@pytest.mark.parametrize("shape", ["folder", "fifo"])
def test_prefs_path_that_is_not_a_file(tmp_path: Path, shape: str) -> None:
    """A folder or FIFO at ``desktop.json``: defaults, a warning, moved aside for the save."""
    path = tmp_path / "desktop.json"
    if shape == "folder":
        path.mkdir()
    else:
        make_fifo(path)
    assert peek_prefs(path) == {}
    prefs = load_prefs(path)
    assert prefs.load_warning and len(asides(path)) == 1
    from desktop.core.config.prefs import save_prefs

    save_prefs(prefs, path)
    assert load_prefs(path).load_warning is None
