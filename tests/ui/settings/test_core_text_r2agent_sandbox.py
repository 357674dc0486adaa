"""The sandbox's status reason and notes in the window's language (issue #25 §6).

The real detection (:func:`sandbox_status`) on machines made with ``PATH``: no ``bwrap`` at
all; a ``bwrap`` that cannot create a sandbox (it fails the probe, with and without a message);
an old ``bwrap`` that works, without ``prlimit``, with the session bus on TCP (every note). What
Settings › Tools says (:func:`sandbox_words`) and the window's banner
(:func:`sandbox_banner_text`) keep the English, are bracketed under the pseudo-locale but for
data (``bwrap``'s own error, the install command), and read Chinese with ``zh_CN``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.security.sandbox import (
    SandboxStatus,
    cached_sandbox_status,
    reset_sandbox_status,
    sandbox_status,
)
from desktop.core.security.sandbox_status import install_hint
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language
from desktop.ui.settings.tools_page import sandbox_words
from desktop.ui.shell import sandbox_banner_text
from tests.ui.i18n.pseudo import _english, pseudo_locale

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox is Linux-only"
)

REFUSED = "bwrap: Creating new namespace failed: Operation not permitted"
Detect = Callable[[str | None], SandboxStatus]


@pytest.fixture
def detect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Detect]:
    """Detect the sandbox anew with ``bwrap`` being this script (``None``: no ``bwrap``)."""
    saved = cached_sandbox_status()
    count = iter(range(100))

    def run(script: str | None) -> SandboxStatus:
        folder = tmp_path / f"bin-{next(count)}"
        folder.mkdir()
        if script is not None:
            program = folder / "bwrap"
            program.write_text("#!/bin/sh\n" + script)
            program.chmod(0o755)
        monkeypatch.setenv("PATH", str(folder))
        reset_sandbox_status(None)
        return sandbox_status()

    yield run
    reset_sandbox_status(saved)


def _refusing(message: str, code: int = 1) -> str:
    return (
        'case "$1" in --version) echo "bubblewrap 0.6.1";; --help) echo "usage: bwrap";;\n'
        f"*) {message} exit {code};; esac\n"
    )


OLD_WORKING = 'case "$1" in --version) echo "bubblewrap 0.6.1";; --help) echo "usage";; esac\n'


def _command() -> str:
    hint = install_hint()
    assert isinstance(hint, Phrase)
    return str(hint.fields.get("command", ""))


def test_why_the_sandbox_is_missing_is_shown_in_the_window_language(
    qtbot: QtBot, detect: Detect
) -> None:
    missing = detect(None)
    refused = detect(_refusing(f"echo '{REFUSED}' >&2;"))
    silent = detect(_refusing("", 3))
    for status in (missing, refused, silent):
        assert not status.available and isinstance(status.reason, Phrase)
    # (a) the English as before.
    assert missing.reason == f"bubblewrap (bwrap) is not installed; {install_hint()}"
    assert refused.reason.startswith(
        f"bwrap is installed but cannot create a sandbox here ({REFUSED}); the kernel or a "
    )
    assert silent.reason.startswith(
        "bwrap is installed but cannot create a sandbox here (exit code 3)"
    )
    shown = [
        (sandbox_words, status, mode)
        for status in (missing, refused, silent)
        for mode in ("auto", "required")
    ]
    data = frozenset({_command(), REFUSED})
    # (b) the pseudo-locale: only data is left outside the brackets.
    with pseudo_locale():
        texts = [words(status, mode) for words, status, mode in shown]  # type: ignore[arg-type]
        texts += [
            sandbox_banner_text(r, s.reason) for s in (missing, refused) for r in (False, True)
        ]
        left = {t: _english(t, data) for t in texts}
    assert {t: w for t, w in left.items() if w} == {}
    # (c) Chinese.
    try:
        install_language("zh_CN")
        assert sandbox_words(missing, "auto").startswith(
            "沙箱：不可用——未安装 bubblewrap（bwrap）；请安装它（"
        )
        assert "退出码 3" in sandbox_words(silent, "auto")
        assert REFUSED in sandbox_banner_text(False, refused.reason)
        assert sandbox_banner_text(False, refused.reason).startswith(
            "命令在沙箱外运行：已安装 bwrap，但"
        )
    finally:
        install_language("en")


def test_the_notes_of_a_working_sandbox_are_shown_in_the_window_language(
    qtbot: QtBot, detect: Detect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "tcp:host=127.0.0.1,port=1")
    status = detect(OLD_WORKING)
    assert status.available
    assert status.notes == (
        "the session bus listens on TCP: turn the network off to keep it out of reach",
        "no prlimit (util-linux): the file size, CPU and per-process limits are off",
        "bubblewrap older than 0.8: the private /tmp has no size limit",
    )
    assert all(isinstance(note, Phrase) for note in status.notes)
    with pseudo_locale():
        text = sandbox_words(status, "auto")
    assert text.count("⟦") == 6 and _english(text, frozenset()) == ""
    try:
        install_language("zh_CN")
        assert sandbox_words(status, "auto").endswith(
            "会话总线在 TCP 上监听：请关闭网络，使其无法被访问；没有 prlimit（util-linux）："
            "文件大小、CPU 和单进程限制均未启用；bubblewrap 版本低于 0.8：私有 /tmp 没有大小限制）"
        )
    finally:
        install_language("en")
