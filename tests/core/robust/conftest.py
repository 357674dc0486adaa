"""Fixtures of the damage-corpus tests."""

from __future__ import annotations

import logging

import pytest

from desktop.core.utils import validate


@pytest.fixture(autouse=True)
def fresh_notices(caplog: pytest.LogCaptureFixture) -> None:
    """Each test sees its own notices: the once-per-process memory is cleared, and the
    notice logger's warnings are captured."""
    validate.reset_notices()
    caplog.set_level(logging.WARNING, logger=validate.NOTICE_LOGGER)
