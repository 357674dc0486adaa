"""The DM pairing store (``pairing.json``): codes, expiry, approve/deny/revoke, the file's
format, a corrupt file kept aside, a file that cannot be read left alone, and two processes
changing it at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.channels.pairing.command import run
from desktop.core.channels.pairing.store import ALPHABET, PairingStore, normalize_code
from tests.conftest import REPO


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_code_shape_reuse_and_approve(tmp_path: Path) -> None:
    store = PairingStore(tmp_path)
    first, new = store.request("telegram", "42|alice")
    again, new_again = store.request("telegram", "42|alice")
    assert new and not new_again and again.code == first.code
    raw = first.code.replace("-", "")
    assert len(first.code) == 9 and first.code[4] == "-" and len(raw) == 8
    assert set(raw) <= set(ALPHABET)
    assert store.approve(first.code.lower().replace("-", "")) == first  # typed loosely
    assert store.approved() == {"telegram": ["42|alice"]}
    assert store.pending() == []
    assert store.approve(first.code) is None  # used up


def test_file_format_is_nanobot_s(tmp_path: Path) -> None:
    clock = Clock()
    store = PairingStore(tmp_path, clock=clock)
    request, _ = store.request("slack", "U1")
    approved, _ = store.request("telegram", "7")
    store.approve(approved.code)
    text = (tmp_path / "pairing.json").read_text(encoding="utf-8")
    expected = {
        "approved": {"telegram": ["7"]},
        "pending": {
            request.code: {
                "channel": "slack",
                "sender_id": "U1",
                "created_at": clock.now,
                "expires_at": clock.now + 600,
            }
        },
    }
    assert text == json.dumps(expected, indent=2, ensure_ascii=False)


def test_codes_expire_after_ten_minutes(tmp_path: Path) -> None:
    clock = Clock()
    store = PairingStore(tmp_path, clock=clock)
    old, _ = store.request("discord", "9")
    clock.now += 601
    assert store.pending() == []
    assert store.approve(old.code) is None
    fresh, new = store.request("discord", "9")
    assert new and fresh.code != old.code


def test_deny_and_revoke(tmp_path: Path) -> None:
    store = PairingStore(tmp_path)
    a, _ = store.request("telegram", "1")
    b, _ = store.request("telegram", "2")
    assert store.deny(a.code) == a and store.deny(a.code) is None
    store.approve(b.code)
    assert store.revoke("telegram", "2") and not store.revoke("telegram", "2")
    assert store.approved() == {}
    ok, text = run(tmp_path, "revoke telegram 2")
    assert not ok and "not a paired sender" in text


def test_entries_of_the_wrong_shape_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "pairing.json").write_text(
        json.dumps(
            {
                "approved": {"telegram": ["1", 2], "slack": None},
                "pending": {"X": {"channel": "", "sender_id": "1", "expires_at": 9e12}, "Y": 3},
            }
        ),
        encoding="utf-8",
    )
    store = PairingStore(tmp_path)
    assert store.approved() == {"telegram": ["1", "2"]}
    assert store.pending() == []


def test_a_corrupt_file_is_kept_aside_before_the_first_change(tmp_path: Path) -> None:
    path = tmp_path / "pairing.json"
    path.write_bytes(b'{"approved": {"telegram": ["1"]')  # cut off mid-write by someone
    store = PairingStore(tmp_path)
    assert store.approved() == {}  # read: treated as empty, nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairing.json"]
    request, _ = store.request("telegram", "5")
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("pairing.json.corrupt-")]
    assert len(kept) == 1
    assert kept[0].read_bytes() == b'{"approved": {"telegram": ["1"]'
    assert json.loads(path.read_text(encoding="utf-8"))["pending"][request.code]["sender_id"] == "5"


def test_a_file_that_cannot_be_read_is_never_replaced(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text('{"approved": {"telegram": ["1"]}, "pending": {}}', encoding="utf-8")
    (tmp_path / "pairing.json").symlink_to(target)
    store = PairingStore(tmp_path)
    with pytest.raises(OSError, match="symbolic link"):
        store.request("telegram", "5")
    ok, text = run(tmp_path, "approve ABCD-EFGH")
    assert not ok and "nothing was changed" in text
    assert (tmp_path / "pairing.json").is_symlink()
    assert target.read_text(encoding="utf-8") == '{"approved": {"telegram": ["1"]}, "pending": {}}'


def test_normalize_code() -> None:
    assert normalize_code(" abcd-efgh ") == "ABCD-EFGH"
    assert normalize_code("abcdefgh") == "ABCD-EFGH"
    assert normalize_code("nope") == "NOPE"


_APPROVER = """
import sys
from pathlib import Path
from desktop.core.channels.pairing.store import PairingStore
store = PairingStore(Path(sys.argv[1]))
for code in sys.argv[2:]:
    assert store.approve(code) is not None, code
"""


def test_two_processes_approving_at_once_lose_nothing(tmp_path: Path) -> None:
    store = PairingStore(tmp_path)
    codes = [store.request("telegram" if i % 2 else "slack", f"user{i}")[0].code for i in range(60)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    workers = [
        subprocess.Popen([sys.executable, "-c", _APPROVER, str(tmp_path), *codes[half::2]], env=env)
        for half in (0, 1)
    ]
    assert [w.wait(timeout=120) for w in workers] == [0, 0]
    approved = store.approved()
    assert sorted(approved["telegram"] + approved["slack"]) == sorted(f"user{i}" for i in range(60))
    assert store.pending() == []


def test_the_pair_command_line(tmp_path: Path) -> None:
    """``channels pair``: usage errors exit 2 and change nothing; a revoke names a sender
    whose display name has a space."""
    from tests.cli_runner import run_cli

    config = tmp_path / ".nanobot" / "config.json"
    config.parent.mkdir()
    config.write_text("{}", encoding="utf-8")
    store = PairingStore(config.parent)
    request, _ = store.request("telegram", "5|Ada Lovelace")
    store.approve(request.code)
    missing = run_cli(["channels", "pair", "approve"], tmp_path)
    assert missing.returncode == 2 and "channels pair approve CODE" in missing.stdout
    unknown = run_cli(["channels", "pair", "approve", "ZZZZ-ZZZZ"], tmp_path)
    assert unknown.returncode == 1 and "No pending pairing request" in unknown.stdout
    listed = run_cli(["channels", "pair"], tmp_path)
    assert listed.returncode == 0 and "telegram  5|Ada Lovelace" in listed.stdout
    revoked = run_cli(["channels", "pair", "revoke", "telegram", "5|Ada", "Lovelace"], tmp_path)
    assert revoked.returncode == 0, revoked.stdout + revoked.stderr
    assert store.approved() == {}
