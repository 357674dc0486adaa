"""CI must not skip the Email tests silently: ``NANOBOT_TEST_REQUIRE_DOVECOT=1`` turns a
missing Dovecot (or a non-root user) into a failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.channels.email.conftest import require_dovecot


def test_a_missing_dovecot_skips_unless_it_is_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no dovecot binary on this PATH
    monkeypatch.delenv("NANOBOT_TEST_REQUIRE_DOVECOT", raising=False)
    with pytest.raises(pytest.skip.Exception, match="dovecot is not installed"):
        require_dovecot()
    monkeypatch.setenv("NANOBOT_TEST_REQUIRE_DOVECOT", "1")
    with pytest.raises(pytest.fail.Exception, match="NANOBOT_TEST_REQUIRE_DOVECOT=1"):
        require_dovecot()
