"""Settings nanobot 0.3.5 does not know live in ``desktop.json`` (:mod:`desktop.core.config.product`).

nanobot drops them from ``config.json`` whenever it saves that file, so they are read from and
saved to ``desktop.json``; one still in ``config.json`` is moved there (once, by one process).
The interop tier (``tests/interop``) runs the real nanobot over the files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.errors import ConfigError
from desktop.core.config.loader import config_origin, load_config, save_config
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.prefs_peek import prefs_path
from desktop.core.config.product import PRODUCT_PATHS, SECTION
from tests.conftest import REPO, write_config


def _read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _config(tmp_path: Path, **exec_section: Any) -> Path:
    return write_config(
        tmp_path / "home" / "config.json",
        {
            "agents": {
                "defaults": {
                    "workspace": str(tmp_path / "ws"),
                    "model": "m",
                    "requestTimeoutS": 33.0,
                    "dream": {"intervalH": 3, "maxBatchSize": 7},
                }
            },
            "tools": {"exec": {"timeout": 30, **exec_section}},
        },
    )


def test_values_in_config_json_are_moved_to_desktop_json_once(tmp_path: Path) -> None:
    """An older config.json holds ``sandboxNetwork: false`` and two more of ours: loading
    moves them into desktop.json (its own keys kept), takes them out of config.json (its other
    keys kept), and the runtime's config has the values; a second load changes nothing."""
    path = _config(tmp_path, sandboxNetwork=False, sandboxRoBinds=["/opt"])
    prefs = prefs_path(path)
    prefs.write_text(json.dumps({"appearance": "dark"}), encoding="utf-8")
    config = load_config(path, environ={})
    assert config.tools.exec.sandbox_network is False
    assert config.agents.defaults.request_timeout_s == 33.0
    assert config.agents.defaults.dream.max_batch_size == 7
    assert config_origin(config).warnings == []
    on_disk = _read(path)
    assert on_disk["tools"]["exec"] == {"timeout": 30, "sandboxRoBinds": ["/opt"]}
    assert on_disk["agents"]["defaults"]["dream"] == {"intervalH": 3}
    assert "requestTimeoutS" not in on_disk["agents"]["defaults"]
    assert _read(prefs) == {
        "appearance": "dark",
        SECTION: {
            "agents": {"defaults": {"requestTimeoutS": 33.0, "dream": {"maxBatchSize": 7}}},
            "tools": {"exec": {"sandboxNetwork": False}},
        },
    }
    before = (path.read_bytes(), prefs.read_bytes())
    again = load_config(path, environ={})
    assert again.tools.exec.sandbox_network is False
    assert (path.read_bytes(), prefs.read_bytes()) == before


def test_saving_writes_them_to_desktop_json_only(tmp_path: Path) -> None:
    """A save puts every product setting into desktop.json and none into config.json."""
    path = _config(tmp_path)
    config = load_config(path, environ={})
    config.tools.exec.sandbox_network = False
    config.channels.max_inbound_kb = 64
    save_config(config)
    text = path.read_text(encoding="utf-8")
    for product_path in PRODUCT_PATHS:
        assert f'"{product_path[-1]}"' not in text, product_path
    extras = _read(prefs_path(path))[SECTION]
    assert extras["tools"]["exec"]["sandboxNetwork"] is False
    assert extras["channels"]["maxInboundKb"] == 64
    reloaded = load_config(path, environ={})
    assert reloaded.tools.exec.sandbox_network is False
    assert reloaded.channels.max_inbound_kb == 64


def test_a_value_put_into_config_json_later_wins(tmp_path: Path) -> None:
    """desktop.json says the network is on; config.json (edited by hand since) says off: the
    newer config.json value is used and moved."""
    path = _config(tmp_path, sandboxNetwork=False)
    prefs_path(path).write_text(
        json.dumps({SECTION: {"tools": {"exec": {"sandboxNetwork": True}}}}), encoding="utf-8"
    )
    assert load_config(path, environ={}).tools.exec.sandbox_network is False
    assert _read(prefs_path(path))[SECTION]["tools"]["exec"]["sandboxNetwork"] is False


def test_a_bad_safety_value_in_desktop_json_is_refused_naming_that_file(tmp_path: Path) -> None:
    """``sandboxNetwork: "maybe"`` must not fall back to its default (network on)."""
    path = _config(tmp_path)
    prefs = prefs_path(path)
    prefs.write_text(
        json.dumps({SECTION: {"tools": {"exec": {"sandboxNetwork": "maybe"}}}}), encoding="utf-8"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    assert caught.value.path == prefs and "configExtras.tools.exec" in str(caught.value)


def test_a_bad_plain_value_in_desktop_json_gets_its_default_and_the_file_a_copy(
    tmp_path: Path,
) -> None:
    path = _config(tmp_path)
    prefs = prefs_path(path)
    original = json.dumps({SECTION: {"agents": {"defaults": {"streamIdleTimeoutS": "soon"}}}})
    prefs.write_text(original, encoding="utf-8")
    config = load_config(path, environ={})
    assert config.agents.defaults.stream_idle_timeout_s == 60.0
    warnings = " ".join(config_origin(config).warnings)
    assert f"{prefs}: field '{SECTION}.agents.defaults.streamIdleTimeoutS'" in warnings
    copies = [p for p in prefs.parent.iterdir() if p.name.startswith("desktop.json.corrupt")]
    assert [c.read_text(encoding="utf-8") for c in copies] == [original]


def test_saving_the_preferences_keeps_what_the_config_wrote_meanwhile(tmp_path: Path) -> None:
    """The window's preferences were loaded before a config save wrote the product settings:
    saving the preferences afterwards keeps them (no stale copy wins)."""
    path = _config(tmp_path)
    store = PrefsStore(prefs_path(path))
    config = load_config(path, environ={})
    config.tools.exec.sandbox_network = False
    save_config(config)
    store.update(appearance="light")
    store.save()
    data = _read(prefs_path(path))
    assert data["appearance"] == "light"
    assert data[SECTION]["tools"]["exec"]["sandboxNetwork"] is False
    assert load_config(path, environ={}).tools.exec.sandbox_network is False


_LOAD = """
import sys
from pathlib import Path
from desktop.core.config.loader import load_config
config = load_config(Path(sys.argv[1]), environ={})
print(config.tools.exec.sandbox_network, config.agents.defaults.request_timeout_s)
"""


def test_two_processes_loading_at_once_move_the_values_once(tmp_path: Path) -> None:
    """Several processes start on the same old config.json at the same moment: each reads the
    values, and the files end up as one move leaves them."""
    path = _config(tmp_path, sandboxNetwork=False)
    prefs_path(path).write_text(json.dumps({"appearance": "dark"}), encoding="utf-8")
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _LOAD, str(path)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = [p.communicate(timeout=120) for p in processes]
    assert [p.returncode for p in processes] == [0, 0, 0, 0], results
    assert [out.split() for out, _ in results] == [["False", "33.0"]] * 4
    assert "sandboxNetwork" not in _read(path)["tools"]["exec"]
    assert _read(prefs_path(path)) == {
        "appearance": "dark",
        SECTION: {
            "agents": {"defaults": {"requestTimeoutS": 33.0, "dream": {"maxBatchSize": 7}}},
            "tools": {"exec": {"sandboxNetwork": False}},
        },
    }
