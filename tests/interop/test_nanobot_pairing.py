"""DM pairing against nanobot-ai 0.3.5's own store (``nanobot.pairing``, run by its Python in
a subprocess with the shared HOME): one ``~/.nanobot/pairing.json``, written byte for byte as
0.3.5 writes it; a code issued by us is approved by 0.3.5, and a code issued by 0.3.5 is
approved by ``nanobot-desktop channels pair approve``."""

from __future__ import annotations

import json

from desktop.core.channels.pairing import PairingStore
from tests.interop.conftest import Shared


def _nanobot_python(shared: Shared, code: str) -> str:
    """Run ``code`` in 0.3.5's interpreter with the shared HOME; its stdout."""
    done = shared.nanobot_python(code)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_code_we_issue_is_approved_by_nanobot_and_the_file_is_byte_identical(
    shared: Shared,
) -> None:
    store = PairingStore(shared.home / ".nanobot")
    request, _ = store.request("telegram", "42|ada")
    store.request("slack", "U0BOB")
    path = shared.home / ".nanobot" / "pairing.json"
    ours = path.read_bytes()
    # 0.3.5 reads our file and writes it back unchanged (same keys, order, indent, numbers).
    _nanobot_python(shared, "from nanobot.pairing.store import _load, _save; _save(_load())")
    assert path.read_bytes() == ours
    said = _nanobot_python(
        shared,
        "import json; from nanobot.pairing import approve_code, is_approved; "
        f"print(json.dumps([approve_code({request.code!r}), is_approved('telegram', '42|ada')]))",
    )
    assert json.loads(said) == [["telegram", "42|ada"], True]
    assert store.approved() == {"telegram": ["42|ada"]}
    assert [r.sender for r in store.pending()] == ["U0BOB"]


def test_a_code_nanobot_issues_is_approved_by_our_command(shared: Shared) -> None:
    code = _nanobot_python(
        shared, "from nanobot.pairing import generate_code; print(generate_code('discord', '77'))"
    )
    listed = shared.ok("nanobot-desktop", "channels", "pair", "list")
    assert code in listed and "discord" in listed, listed
    said = shared.ok("nanobot-desktop", "channels", "pair", "approve", code)
    assert "Approved: 77" in said, said
    approved = _nanobot_python(
        shared,
        "from nanobot.pairing import is_approved, list_pending; "
        "print(is_approved('discord', '77'), len(list_pending()))",
    )
    assert approved == "True 0"
    revoked = shared.ok("nanobot-desktop", "channels", "pair", "revoke", "discord", "77")
    assert "Revoked" in revoked
    assert (
        _nanobot_python(
            shared, "from nanobot.pairing import is_approved; print(is_approved('discord', '77'))"
        )
        == "False"
    )
