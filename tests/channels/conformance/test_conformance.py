"""The conformance suite for the channels whose local servers run in any xdist worker (Matrix,
on the shared Synapse, runs in ``synapse/test_matrix.py``, in Synapse's lane)."""

from __future__ import annotations

import pytest

from tests.channels.conformance.cases import (  # noqa: F401 - collected here, per channel
    test_allow_from,
    test_approvals,
    test_connect,
    test_media_in,
    test_media_out,
    test_receive,
    test_reconnect,
    test_reply_format,
    test_restart_without_duplicates,
    test_split,
)

CHANNELS = [
    "telegram",
    "slack",
    "discord",
    "feishu",
    "dingtalk",
    "qq",
    "mochat",
    "whatsapp",
    "email",
    "signal",
    "napcat",
    "websocket",
    "mattermost",
    "msteams",
    "wecom",
    "weixin",
    "whatsapp-linked",
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every case once per channel; the id is the channel's name."""
    if "channel" in metafunc.fixturenames:
        metafunc.parametrize("channel", CHANNELS, ids=CHANNELS)
