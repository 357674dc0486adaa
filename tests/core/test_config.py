"""Config: nanobot compatibility, defaults, overrides, references, atomic and careful saves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop.core.config.errors import ConfigError
from desktop.core.config.loader import config_origin, config_to_json, load_config, save_config
from desktop.core.config.product import LOCK_NAME
from desktop.core.config.schema import Config
from tests.conftest import REPO, write_config

FIXTURE = REPO / "tests" / "fixtures" / "nanobot_0_3_5" / "config.json"


def _walk(data: object, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    if isinstance(data, dict):
        out: dict[tuple[str, ...], object] = {}
        for key, value in data.items():
            out.update(_walk(value, (*prefix, key)))
        return out or {prefix: {}}
    return {prefix: data}


def test_defaults_follow_nanobot(tmp_path: Path) -> None:
    """A missing file gives nanobot's defaults (and the issue's)."""
    config = load_config(tmp_path / "absent.json", environ={})
    d = config.agents.defaults
    assert (d.workspace, d.model, d.provider) == (
        "~/.nanobot/workspace",
        "anthropic/claude-opus-4-5",
        "auto",
    )
    assert (d.max_tokens, d.context_window_tokens, d.temperature, d.max_tool_iterations) == (
        8192,
        65536,
        0.1,
        200,
    )
    assert (d.dream.interval_h, d.dream.max_batch_size, d.dream.max_iterations) == (2, 20, 10)
    assert config.channels.send_progress is True and config.channels.send_tool_hints is False
    assert config.gateway.heartbeat.enabled is True and config.gateway.heartbeat.interval_s == 1800
    t = config.tools
    assert (t.web.search.api_key, t.web.search.max_results, t.exec.timeout) == ("", 5, 60)
    assert t.restrict_to_workspace is False and t.mcp_servers == {}
    assert d.timezone is None and d.effective_timezone  # system zone when unset
    assert not config_origin(config).existed
    assert config.workspace_path == Path.home() / ".nanobot" / "workspace"


def test_default_path_is_home_nanobot(tmp_path: Path) -> None:
    """Without a path the loader reads ~/.nanobot/config.json."""
    write_config(
        Path.home() / ".nanobot" / "config.json", {"agents": {"defaults": {"model": "x/y"}}}
    )
    config = load_config(environ={})
    assert config.agents.defaults.model == "x/y"
    assert config_origin(config).path == Path.home() / ".nanobot" / "config.json"


def test_original_nanobot_config_loads_and_round_trips(tmp_path: Path) -> None:
    """A config.json written by nanobot-ai 0.3.5 loads, and every key survives a save."""
    path = tmp_path / "config.json"
    path.write_bytes(FIXTURE.read_bytes())
    config = load_config(path, environ={})
    assert config.agents.defaults.context_window_tokens == 200000
    assert config.agents.defaults.timezone == "UTC"
    assert config.gateway.port == 18790
    save_config(config)
    before = _walk(json.loads(FIXTURE.read_text()))
    after = _walk(json.loads(path.read_text()))
    missing = {k: v for k, v in before.items() if after.get(k, "<absent>") != v}
    assert missing == {}
    # nanobot rejects unknown top-level keys: we must not add any.
    assert set(json.loads(path.read_text())) <= set(json.loads(FIXTURE.read_text()))


def test_saved_default_config_only_uses_nanobot_top_level_keys(tmp_path: Path) -> None:
    """Our own first-run file stays loadable by the original nanobot."""
    config = load_config(tmp_path / "new.json", environ={})
    save_config(config)
    nanobot_keys = set(json.loads(FIXTURE.read_text()))
    assert set(json.loads((tmp_path / "new.json").read_text())) <= nanobot_keys


def test_camel_case_on_disk_snake_case_accepted(tmp_path: Path) -> None:
    """snake_case keys load; the saved file is camelCase."""
    path = write_config(
        tmp_path / "c.json",
        {"agents": {"defaults": {"max_tokens": 1234, "context_window_tokens": 4096}}},
    )
    config = load_config(path, environ={})
    assert config.agents.defaults.max_tokens == 1234
    save_config(config)
    saved = json.loads(path.read_text())["agents"]["defaults"]
    assert saved["maxTokens"] == 1234 and saved["contextWindowTokens"] == 4096
    assert "max_tokens" not in saved


def test_unknown_keys_survive(tmp_path: Path) -> None:
    """Keys we do not model survive load/save at every level."""
    data = {
        "agents": {"defaults": {"futureKnob": {"a": [1, 2]}}, "other": 1},
        "providers": {
            "kilo": {"apiBase": "https://kilo"},
            "openai": {"apiBase": "https://x", "organization": "org"},
        },
        "tools": {"mcpServers": {"t": {"command": "x", "futureFlag": True}}},
    }
    path = write_config(tmp_path / "c.json", data)
    save_config(load_config(path, environ={}))
    saved = json.loads(path.read_text())
    assert saved["agents"]["defaults"]["futureKnob"] == {"a": [1, 2]}
    assert saved["agents"]["other"] == 1
    assert saved["providers"]["kilo"] == {"apiBase": "https://kilo"}
    assert saved["providers"]["openai"]["organization"] == "org"
    assert saved["tools"]["mcpServers"]["t"]["futureFlag"] is True


def test_env_overrides_nest_and_are_not_saved(tmp_path: Path) -> None:
    """NANOBOT_A__B__C overrides for the run, but the file keeps its own values."""
    path = write_config(
        tmp_path / "c.json", {"agents": {"defaults": {"model": "file/model", "maxTokens": 100}}}
    )
    env = {
        "NANOBOT_AGENTS__DEFAULTS__MODEL": "env/model",
        "NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS": "2048",
        "NANOBOT_TOOLS__RESTRICT_TO_WORKSPACE": "true",
        "NANOBOT_UNRELATED": "ignored",
    }
    config = load_config(path, environ=env)
    assert config.agents.defaults.model == "env/model"
    assert config.agents.defaults.max_tokens == 2048
    assert config.tools.restrict_to_workspace is True
    config.agents.defaults.temperature = 0.5  # a real change made by the user
    save_config(config)
    saved = json.loads(path.read_text())
    assert saved["agents"]["defaults"]["model"] == "file/model"
    assert saved["agents"]["defaults"]["maxTokens"] == 100
    assert saved["agents"]["defaults"]["temperature"] == 0.5
    assert saved["tools"]["restrictToWorkspace"] is False


def test_changed_value_under_env_override_is_saved(tmp_path: Path) -> None:
    """If the user changes an overridden value, their new value is what gets saved."""
    path = write_config(tmp_path / "c.json", {"agents": {"defaults": {"model": "file/model"}}})
    config = load_config(path, environ={"NANOBOT_AGENTS__DEFAULTS__MODEL": "env/model"})
    config.agents.defaults.model = "picked/in-settings"
    save_config(config)
    assert json.loads(path.read_text())["agents"]["defaults"]["model"] == "picked/in-settings"


def test_var_references_resolve_and_are_written_back(tmp_path: Path) -> None:
    """${VAR} resolves at load; the reference, not the secret, is saved."""
    path = write_config(
        tmp_path / "c.json",
        {"providers": {"openai": {"apiKey": "${MY_OPENAI}", "apiBase": "https://${HOST}/v1"}}},
    )
    config = load_config(
        path, environ={"MY_OPENAI": "sk-resolved-value-123", "HOST": "example.org"}
    )
    assert config.providers.openai.api_key == "sk-resolved-value-123"
    assert config.providers.openai.api_base == "https://example.org/v1"
    save_config(config)
    text = path.read_text()
    assert "sk-resolved-value-123" not in text
    saved = json.loads(text)["providers"]["openai"]
    assert saved["apiKey"] == "${MY_OPENAI}" and saved["apiBase"] == "https://${HOST}/v1"


def test_unset_reference_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    """A double-clicked app has no shell variables: an unset ${VAR} must not stop it."""
    path = write_config(
        tmp_path / "c.json", {"providers": {"openai": {"apiKey": "${NOT_SET_ANYWHERE}"}}}
    )
    config = load_config(path, environ={})
    assert config.providers.openai.api_key == ""
    assert any("NOT_SET_ANYWHERE" in w for w in config_origin(config).warnings)


def test_workspace_override_is_not_saved(tmp_path: Path) -> None:
    """--workspace applies to the run only."""
    path = write_config(
        tmp_path / "c.json", {"agents": {"defaults": {"workspace": "~/ws-in-file"}}}
    )
    config = load_config(path, environ={}, workspace=tmp_path / "other")
    assert config.workspace_path == tmp_path / "other"
    save_config(config)
    assert json.loads(path.read_text())["agents"]["defaults"]["workspace"] == "~/ws-in-file"


def test_invalid_json_names_file_and_line_and_is_never_overwritten(tmp_path: Path) -> None:
    """A syntax error is reported with its line; saving over the broken file is refused."""
    path = tmp_path / "config.json"
    broken = '{\n  "agents": {\n    "defaults": {\n      "model": "x",,\n    }\n  }\n}\n'
    path.write_text(broken)
    with pytest.raises(ConfigError) as info:
        load_config(path, environ={})
    assert info.value.line == 4 and str(path) in str(info.value) and "line 4" in str(info.value)
    with pytest.raises(ConfigError):
        save_config(Config(), path)
    assert path.read_text() == broken


def test_schema_error_names_field_and_line(tmp_path: Path) -> None:
    """A wrong type is a warning naming the field and its line; its default applies, the rest
    is kept, and the file is copied aside byte-exact before a save can replace the value."""
    path = tmp_path / "config.json"
    original = (
        '{\n  "agents": {\n    "defaults": {\n      "model": "m",\n      "maxTokens": "lots"\n'
        "    }\n  }\n}\n"
    )
    path.write_text(original)
    config = load_config(path, environ={})
    assert config.agents.defaults.model == "m"
    assert config.agents.defaults.max_tokens == Config().agents.defaults.max_tokens
    warning = config_origin(config).warnings[0]
    assert "agents.defaults.maxTokens" in warning and f"{path}, line 5" in warning
    copies = list(tmp_path.glob("config.json.corrupt-*"))
    assert len(copies) == 1 and copies[0].read_text() == original


def test_bad_timezone_falls_back_with_a_warning(tmp_path: Path) -> None:
    """Timezones must be IANA names; a bad one is dropped (system zone) with a warning."""
    path = write_config(tmp_path / "c.json", {"agents": {"defaults": {"timezone": "Mars/Olympus"}}})
    config = load_config(path, environ={})
    assert config.agents.defaults.timezone is None
    assert any("agents.defaults.timezone" in w for w in config_origin(config).warnings)
    good = write_config(
        tmp_path / "g.json", {"agents": {"defaults": {"timezone": "Europe/Berlin"}}}
    )
    assert load_config(good, environ={}).agents.defaults.effective_timezone == "Europe/Berlin"


def test_top_level_must_be_object(tmp_path: Path) -> None:
    """A JSON array is not a config."""
    path = tmp_path / "c.json"
    path.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="object"):
        load_config(path, environ={})


def test_save_is_atomic_and_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saves leave no temp files, create 0600 files, and a failed write keeps the old file."""
    path = write_config(tmp_path / "c.json", {"agents": {"defaults": {"model": "old"}}})
    config = load_config(path, environ={})
    config.agents.defaults.model = "new"
    save_config(config)
    assert json.loads(path.read_text())["agents"]["defaults"]["model"] == "new"
    # beside it: the settings nanobot does not know, and the lock their writers take
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json", "desktop.json", LOCK_NAME]
    assert (path.stat().st_mode & 0o777) == 0o600
    assert ((tmp_path / "desktop.json").stat().st_mode & 0o777) == 0o600

    def boom(*_a: object, **_k: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    config.agents.defaults.model = "newer"
    with pytest.raises(OSError):
        save_config(config)
    assert json.loads(path.read_text())["agents"]["defaults"]["model"] == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json", "desktop.json", LOCK_NAME]


def test_first_save_creates_the_file(tmp_path: Path) -> None:
    """Missing file → defaults; the first save writes a full template."""
    path = tmp_path / "sub" / "config.json"
    config = load_config(path, environ={})
    save_config(config)
    data = json.loads(path.read_text())
    assert data["agents"]["defaults"]["model"] == "anthropic/claude-opus-4-5"
    assert "custom" in data["providers"] and "telegram" in data["channels"]
    assert config_origin(config).existed


def test_config_to_json_does_not_mutate(tmp_path: Path) -> None:
    """Producing the JSON twice gives the same result."""
    path = write_config(tmp_path / "c.json", {"providers": {"openai": {"apiKey": "${K}"}}})
    config = load_config(path, environ={"K": "sk-abcdefgh12345"})
    assert config_to_json(config) == config_to_json(config)
    assert config.providers.openai.api_key == "sk-abcdefgh12345"


def test_an_unset_timezone_is_left_out_of_the_file(tmp_path: Path) -> None:
    """nanobot 0.3.5 refuses ``"timezone": null``; a missing key means the system zone to both."""
    path = save_config(Config(), tmp_path / "c.json")
    assert "timezone" not in json.loads(path.read_text())["agents"]["defaults"]
    assert load_config(path, environ={}).agents.defaults.timezone is None
    config = load_config(path, environ={})
    config.agents.defaults.timezone = "Europe/Berlin"
    save_config(config)
    assert json.loads(path.read_text())["agents"]["defaults"]["timezone"] == "Europe/Berlin"


def test_a_bad_env_override_is_reported_as_the_override_and_the_file_is_left_alone(
    tmp_path: Path,
) -> None:
    """``NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS=lots`` does not fit: the warning names the
    variable (not a line of config.json), the file's own value applies, the good overrides
    still do, and no ``config.json.corrupt-*`` copy is made of the valid file."""
    path = write_config(
        tmp_path / "config.json",
        {"agents": {"defaults": {"model": "file/model", "maxTokens": 100, "temperature": 0.3}}},
    )
    env = {
        "NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS": "lots",
        "NANOBOT_AGENTS__DEFAULTS__TEMPERATURE": '{"not": "a number"}',
        "NANOBOT_AGENTS__DEFAULTS__MODEL": "env/model",
    }
    config = load_config(path, environ=env)
    assert config.agents.defaults.max_tokens == 100 and config.agents.defaults.temperature == 0.3
    assert config.agents.defaults.model == "env/model"
    warnings = config_origin(config).warnings
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("environment override NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS: ")
    assert warnings[1].startswith("environment override NANOBOT_AGENTS__DEFAULTS__TEMPERATURE: ")
    assert all("it is ignored (config.json's own value" in w for w in warnings)
    assert not any("line" in w or "kept in" in w for w in warnings)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"], "no corrupt copy"
    save_config(config)
    saved = json.loads(path.read_text())["agents"]["defaults"]
    assert (saved["model"], saved["maxTokens"]) == ("file/model", 100)


def test_a_bad_env_override_beside_a_bad_file_value(tmp_path: Path) -> None:
    """The file's own bad value is still the file's: reported with its line and kept aside;
    the bad override only by its name."""
    path = write_config(
        tmp_path / "config.json", {"agents": {"defaults": {"maxToolIterations": "many"}}}
    )
    config = load_config(path, environ={"NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS": "lots"})
    warnings = config_origin(config).warnings
    assert any(
        w.startswith("environment override NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS") for w in warnings
    )
    assert any("line" in w and "maxToolIterations" in w for w in warnings)
    assert any(p.name.startswith("config.json.corrupt-") for p in tmp_path.iterdir())


def test_a_bad_env_override_of_a_safety_setting_is_refused_by_name(tmp_path: Path) -> None:
    path = write_config(tmp_path / "config.json", {"tools": {"restrictToWorkspace": True}})
    with pytest.raises(ConfigError) as refused:
        load_config(path, environ={"NANOBOT_TOOLS__RESTRICT_TO_WORKSPACE": "sometimes"})
    assert "environment override NANOBOT_TOOLS__RESTRICT_TO_WORKSPACE" in str(refused.value)
    assert refused.value.line is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]
