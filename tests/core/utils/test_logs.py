"""The app's log (:func:`desktop.core.utils.logs.setup_logging`): a frame that websockets logs
at DEBUG, cut short so that a secret in it is cut too (and so no longer matches the redaction),
never reaches the log file, even at DEBUG; the app's own DEBUG lines do."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.utils.logs import setup_logging
from desktop.core.utils.redact import register_secret


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    ws_level = logging.getLogger("websockets").level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)
    logging.getLogger("websockets").setLevel(ws_level)


def test_cut_websocket_frames_never_reach_the_log(tmp_path: Path, restore_logging: None) -> None:
    secret = "wecom-secret-" + "q7Zr" * 8
    register_secret(secret)
    path = setup_logging(tmp_path, level=logging.DEBUG)
    frame = '{"cmd": "aibot_subscribe", "body": {"secret": "' + secret[:20]  # cut, as it logs
    logging.getLogger("websockets.client").debug("> TEXT %s [120 bytes]", frame)
    logging.getLogger("desktop.core.channels.wecom").debug("subscribed")
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = path.read_text(encoding="utf-8")
    assert "subscribed" in text
    assert secret[:20] not in text and "aibot_subscribe" not in text
