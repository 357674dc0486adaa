"""config.json rewritten by the real nanobot 0.3.5: none of our settings is lost.

nanobot saves ``config.json`` from its own schema (``nanobot onboard --refresh``, its WebUI,
``nanobot provider login``), dropping every key it does not know. Ours that it does not know
live in ``desktop.json`` (:mod:`desktop.core.config.product`), which nanobot never touches.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop.core.config.loader import config_origin, load_config, save_config
from desktop.core.config.prefs_peek import prefs_path
from desktop.core.config.product import PRODUCT_PATHS
from tests.interop.conftest import Shared


def _leaves(node: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """Every non-null leaf of a JSON object by its path (lists are leaves)."""
    if isinstance(node, dict):
        found: dict[tuple[str, ...], Any] = {}
        for key, value in node.items():
            found.update(_leaves(value, (*path, key)))
        return found
    return {} if node is None else {path: node}


def _read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_sandbox_network_off_survives_nanobot_rewriting_the_config(shared: Shared) -> None:
    """The person turns the sandbox's network off in our Settings (a config save), then runs
    ``nanobot onboard --refresh``, which rewrites config.json: when ours starts again the
    network is still off (it used to come back on, silently)."""
    config = load_config(shared.config, environ={})
    config.tools.exec.sandbox_network = False
    config.agents.defaults.request_timeout_s = 42.0
    save_config(config)

    shared.ok("nanobot", "onboard", "--refresh")
    assert "timezoneMode" in _read(shared.config)["agents"]["defaults"]  # nanobot rewrote it

    again = load_config(shared.config, environ={})
    assert again.tools.exec.sandbox_network is False
    assert again.agents.defaults.request_timeout_s == 42.0
    assert config_origin(again).warnings == []


def test_an_old_config_with_our_keys_is_moved_before_nanobot_can_drop_them(
    shared: Shared,
) -> None:
    """A config.json an older nanobot Desktop wrote holds ``sandboxNetwork: false``: the first
    start of ours moves it to desktop.json, so nanobot's next rewrite loses nothing."""
    data = _read(shared.config)
    data.setdefault("tools", {}).setdefault("exec", {})["sandboxNetwork"] = False
    shared.config.write_text(json.dumps(data), encoding="utf-8")

    assert load_config(shared.config, environ={}).tools.exec.sandbox_network is False
    shared.ok("nanobot", "onboard", "--refresh")
    assert load_config(shared.config, environ={}).tools.exec.sandbox_network is False
    assert "sandboxNetwork" not in _read(shared.config).get("tools", {}).get("exec", {})


def test_nanobot_keeps_every_setting_we_write_to_config_json(shared: Shared) -> None:
    """Our save of a config with every setting changed from its default: nanobot's rewrite
    keeps every value we put into config.json (a key it does not know belongs in
    ``PRODUCT_PATHS``), and ours reads the same config back."""
    config = load_config(shared.config, environ={})
    defaults = config.agents.defaults
    defaults.request_timeout_s, defaults.stream_idle_timeout_s = 11.0, 12.0
    defaults.dream.max_batch_size, defaults.dream.max_iterations = 3, 4
    defaults.dream.token_budget = 5_000
    config.channels.max_inbound_kb = 99
    config.tools.exec.sandbox_network = False
    config.tools.exec.path_append = "/opt/bin"
    config.gateway.heartbeat.interval_s = 900
    save_config(config)
    ours = _leaves(_read(shared.config))
    extras = _read(prefs_path(shared.config))["configExtras"]
    assert set(_leaves(extras)) == set(PRODUCT_PATHS)

    shared.ok("nanobot", "onboard", "--refresh")
    theirs = _leaves(_read(shared.config))
    lost = {".".join(p): v for p, v in ours.items() if theirs.get(p) != v}
    assert lost == {}, f"nanobot 0.3.5 dropped or changed these: {lost}"
    reread = _leaves(load_config(shared.config, environ={}).model_dump(by_alias=True))
    changed = {p: v for p, v in _leaves(config.model_dump(by_alias=True)).items() if reread[p] != v}
    assert changed == {}, "ours reads back what it saved (plus what nanobot added)"
