"""Versions of a chat (regenerate, edit and resend) against the real ``nanobot`` CLI.

The versions live inside the session file where nanobot 0.3.5 does not look (issue 21 item
5): nanobot must see only the version shown as the conversation, never send a kept version
to the model, and keep the versions when it saves its own turn in that file.
"""

from __future__ import annotations

from pathlib import Path

from desktop.core.session import edits
from desktop.core.session.manager import SessionManager
from desktop.core.session.versions import VERSIONS, VersionInfo, fork_points
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, texts

KEY = "cli:trip"


def _ours(shared: Shared) -> SessionManager:
    return SessionManager(shared.workspace, config_dir=shared.home / ".nanobot")


def _say(shared: Shared, program: str, text: str, answer: str) -> None:
    shared.server.push(Reply(answer))
    flag = "--session" if program == "nanobot-desktop" else "-s"
    shared.ok(program, "agent", flag, KEY, "-m", text)


def _contents(shared: Shared) -> list[str]:
    return [str(m.get("content")) for m in _ours(shared).get_or_create(KEY).messages]


def test_nanobot_sees_the_version_shown_and_keeps_the_others(shared: Shared) -> None:
    _say(shared, "nanobot-desktop", "Plan a day in Porto.", "Visit Ribeira.")
    _say(shared, "nanobot-desktop", "And dinner?", "Try francesinha.")
    # Regenerate (as the chat does): keep the conversation as a version, send the message again.
    rewind = edits.regenerate(_ours(shared), KEY)
    assert rewind.version == VersionInfo(2, 2, 2)
    _say(shared, "nanobot-desktop", "And dinner?", "Try bacalhau.")

    _say(shared, "nanobot", "Which dinner did you suggest?", "Bacalhau.")
    sent = shared.last_messages()
    assert "Try bacalhau." in texts(sent, "assistant")
    assert "Try francesinha." not in str(sent)  # a kept version never reaches the model
    assert VERSIONS not in str(sent)

    # nanobot saved its turn into the file and kept the versions
    session = _ours(shared).get_or_create(KEY)
    assert fork_points(session) == {2: VersionInfo(2, 2, 2)}
    assert _contents(shared)[-2:] == ["Which dinner did you suggest?", "Bacalhau."]
    edits.show_version(_ours(shared), KEY, 2, 0)
    assert _contents(shared) == [
        "Plan a day in Porto.",
        "Visit Ribeira.",
        "And dinner?",
        "Try francesinha.",
    ]

    # nanobot now continues the version shown
    _say(shared, "nanobot", "Remind me of dinner?", "Francesinha.")
    sent = shared.last_messages()
    assert "Try francesinha." in texts(sent, "assistant")
    assert "Bacalhau." not in str(sent) and "Try bacalhau." not in str(sent)
    # and the version nanobot wrote to before is still there, its own turn included
    edits.show_version(_ours(shared), KEY, 2, 1)
    assert _contents(shared)[2:] == [
        "And dinner?",
        "Try bacalhau.",
        "Which dinner did you suggest?",
        "Bacalhau.",
    ]


def test_a_version_of_the_first_message_survives_nanobot(shared: Shared) -> None:
    """An edit of the first message keeps the old version in the metadata line."""
    _say(shared, "nanobot-desktop", "Plan a day in Porto.", "Visit Ribeira.")
    edits.edit(_ours(shared), KEY, 0, "Plan a day in Porto.")
    _say(shared, "nanobot-desktop", "Plan a day in Lisbon.", "Visit Alfama.")
    _say(shared, "nanobot", "Where again?", "Alfama.")
    sent = shared.last_messages()
    assert "Visit Alfama." in texts(sent, "assistant") and "Porto" not in str(sent)
    edits.show_version(_ours(shared), KEY, 0, 0)
    assert _contents(shared) == ["Plan a day in Porto.", "Visit Ribeira."]
    session = _ours(shared).get_or_create(KEY)
    assert fork_points(session) == {0: VersionInfo(0, 1, 2)}
    path: Path = _ours(shared).path_for(KEY)
    assert path.read_text(encoding="utf-8").count("Visit Alfama.") == 1  # kept once: metadata
