"""Session operations behind the chat's daily-driver features (issue 9 B): regenerate, edit and
fork, automatic titles, export, search with snippets. Real files, real SessionManager; titles
through the real provider on the scripted server."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.providers.switchable import SwitchableProvider
from desktop.core.session import versions
from desktop.core.session.access import SessionAccess
from desktop.core.session.edits import EARLIER_SUFFIX, EARLIER_VERSIONS, FORKED_FROM, RewindError
from desktop.core.session.export import FORMATS, export_format, to_json, to_markdown
from desktop.core.session.manager import PENDING, SessionManager
from desktop.core.session.search import snippet
from desktop.core.session.titles import AUTO_TITLE, clean_title
from desktop.core.session.versions import VERSIONS, VersionError, VersionInfo
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = "desktop:chat1"


def conversation() -> list[dict[str, Any]]:
    return [
        {
            "role": "user",
            "content": "What is the capital of France?",
            "timestamp": "2024-05-01T10:00:00",
        },
        {"role": "assistant", "content": "Paris.", "timestamp": "2024-05-01T10:00:05"},
        {"role": "user", "content": "cron prompt", "cron_job": "j1", "display": "Stretch!"},
        {"role": "assistant", "content": "Time to stretch."},
        {"role": "user", "content": "And of Italy?", "media": ["/tmp/a.png"]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "web_search", "arguments": '{"q": "capital of Italy"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "Rome is the capital."},
        {"role": "assistant", "content": "Rome, with ``` backticks."},
    ]


@pytest.fixture
def manager(tmp_path: Path) -> SessionManager:
    sessions = SessionManager(tmp_path / "ws")
    session = sessions.get_or_create(KEY)
    session.messages = conversation()
    session.last_consolidated = 6
    sessions.save(session)
    return SessionManager(tmp_path / "ws")  # a fresh manager reads the file


def reread(manager: SessionManager, key: str) -> Any:
    return SessionManager(manager.workspace, config_dir=manager.config_dir).get_or_create(key)


def _files(manager: SessionManager) -> list[Path]:
    return sorted(manager.directory.glob("*.jsonl"))


async def test_regenerate_keeps_the_old_answer_as_a_version_of_the_same_chat(
    manager: SessionManager,
) -> None:
    access = SessionAccess(manager)
    before = _files(manager)
    rewind = await access.regenerate(KEY)
    assert rewind.message["content"] == "And of Italy?"
    assert rewind.message["media"] == ["/tmp/a.png"]
    assert rewind.earlier_key == "" and rewind.version == VersionInfo(4, 2, 2)
    assert _files(manager) == before  # no second chat in the list
    live = reread(manager, KEY)
    assert [m["content"] for m in live.messages] == [
        "What is the capital of France?",
        "Paris.",
        "cron prompt",
        "Time to stretch.",
    ]
    assert live.last_consolidated == 4  # never past the end
    # the old answer sits on the message before the fork, where nanobot does not look
    record = live.messages[3][VERSIONS]
    assert record["current"] == 1 and record["versions"][1] is None
    assert record["versions"][0]["messages"] == conversation()[4:]  # nothing lost
    assert EARLIER_VERSIONS not in live.metadata
    # nanobot's format: first line metadata, one message per line, plain JSON
    lines = manager.path_for(KEY).read_text().splitlines()
    assert json.loads(lines[0])["_type"] == "metadata" and len(lines) == 1 + 4
    assert [s.key for s in manager.summaries()] == [KEY]


async def test_versions_switch_back_and_forth_without_losing_a_message(
    manager: SessionManager,
) -> None:
    access = SessionAccess(manager)
    await access.regenerate(KEY)
    session = manager.get_or_create(KEY)  # the new answer arrives as a turn would add it
    session.begin_turn("And of Italy?", media=["/tmp/a.png"])
    session.finish_turn([{"role": "assistant", "content": "Rome (second answer)."}])
    manager.save(session)
    second = [m["content"] for m in reread(manager, KEY).messages]
    snapshot = await access.load(KEY)
    assert snapshot.versions == {4: VersionInfo(4, 2, 2)}
    info = await access.show_version(KEY, 4, 0)
    assert info == VersionInfo(4, 1, 2)
    first = reread(manager, KEY)
    assert first.messages[:3] == conversation()[:3]
    assert {k: v for k, v in first.messages[3].items() if k != VERSIONS} == conversation()[3]
    assert [m["content"] for m in first.messages[4:]] == [m["content"] for m in conversation()[4:]]
    assert (await access.load(KEY)).versions == {4: VersionInfo(4, 1, 2)}
    await access.show_version(KEY, 4, 1)
    assert [m["content"] for m in reread(manager, KEY).messages] == second
    with pytest.raises(VersionError):
        await access.show_version(KEY, 4, 7)
    with pytest.raises(VersionError):
        await access.show_version(KEY, 2, 0)  # no versions there


async def test_edit_forks_at_the_chosen_message(manager: SessionManager) -> None:
    access = SessionAccess(manager)
    rewind = await access.edit(KEY, 0, "What is the capital of France?")
    assert rewind.index == 0
    live = reread(manager, KEY)
    assert live.messages == []
    # a fork at the first message is kept in the metadata (no message before it)
    assert live.metadata[VERSIONS]["versions"][0]["messages"] == conversation()
    with pytest.raises(RewindError):
        await access.edit(KEY, 0, "never said")


async def test_editing_the_first_message_retitles_an_automatically_titled_chat(
    manager: SessionManager,
) -> None:
    session = manager.get_or_create(KEY)
    session.metadata.update({"title": "French capital", AUTO_TITLE: True})
    manager.save(session)
    access = SessionAccess(manager)
    await access.edit(KEY, 0, "What is the capital of France?")
    live = reread(manager, KEY)
    assert "title" not in live.metadata and AUTO_TITLE not in live.metadata  # due again
    session = manager.get_or_create(KEY)
    session.begin_turn("What is the capital of Spain?")
    session.finish_turn([{"role": "assistant", "content": "Madrid."}])
    session.metadata.update({"title": "Spanish capital", AUTO_TITLE: True})
    manager.save(session)
    await access.show_version(KEY, 0, 0)
    assert reread(manager, KEY).title == "French capital"  # the title went with its version
    await access.show_version(KEY, 0, 1)
    assert reread(manager, KEY).title == "Spanish capital"


async def test_a_title_the_person_chose_stays_through_edits(manager: SessionManager) -> None:
    session = manager.get_or_create(KEY)
    session.metadata["title"] = "My trip"
    manager.save(session)
    await SessionAccess(manager).edit(KEY, 0, "What is the capital of France?")
    assert reread(manager, KEY).title == "My trip"


async def test_edit_with_a_stale_ordinal_finds_the_message_by_text(manager: SessionManager) -> None:
    rewind = await SessionAccess(manager).edit(KEY, 5, "And of Italy?")
    assert rewind.index == 4  # the reminder's prompt is not one of the person's messages


async def test_a_pending_turn_is_cleared_and_closed_in_the_kept_version(
    manager: SessionManager,
) -> None:
    session = manager.get_or_create(KEY)
    session.begin_turn("unanswered")
    manager.save(session)
    rewind = await SessionAccess(manager).regenerate(KEY)
    assert rewind.message["content"] == "unanswered"
    live = reread(manager, KEY)
    assert PENDING not in live.metadata and len(live.messages) == len(conversation())
    kept = live.messages[-1][VERSIONS]["versions"][0]["messages"]
    assert kept[0]["content"] == "unanswered" and kept[-1]["role"] == "assistant"


async def test_a_retry_after_a_regenerate_keeps_the_versions(manager: SessionManager) -> None:
    """The regenerated turn failed (pending); Retry takes the pending message out and sends
    it again: the kept version is on the message before it, so it survives."""
    access = SessionAccess(manager)
    await access.regenerate(KEY)
    session = manager.get_or_create(KEY)
    session.begin_turn("And of Italy?")
    manager.save(session)
    assert (await access.take_pending(KEY)) is not None
    assert (await access.load(KEY)).versions == {4: VersionInfo(4, 2, 2)}


async def test_a_version_too_large_to_keep_inline_becomes_a_distinct_chat(
    manager: SessionManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(versions, "MAX_MESSAGE_BYTES", 200)
    rewind = await SessionAccess(manager).regenerate(KEY)
    assert rewind.version is None and rewind.earlier_key
    live = reread(manager, KEY)
    assert live.metadata[EARLIER_VERSIONS][0]["key"] == rewind.earlier_key
    assert VERSIONS not in live.messages[3]
    earlier = reread(manager, rewind.earlier_key)
    assert earlier.messages == conversation()  # nothing lost
    # named apart from the chat (not another "… (earlier version)")
    assert earlier.title.startswith("What is the capital of France? (version of ")
    assert not earlier.title.endswith(EARLIER_SUFFIX)
    assert earlier.metadata[FORKED_FROM]["key"] == KEY


async def test_a_damaged_version_is_kept_and_not_shown(manager: SessionManager) -> None:
    session = manager.get_or_create(KEY)
    anchor = dict(session.messages[3])
    anchor[VERSIONS] = {"current": 1, "versions": [{"messages": [{"role": 7}]}, None]}
    session.messages[3] = anchor
    manager.save(session)
    access = SessionAccess(manager)
    with pytest.raises(VersionError, match="damaged"):
        await access.show_version(KEY, 4, 0)
    assert reread(manager, KEY).messages[3][VERSIONS]["versions"][0] == {"messages": [{"role": 7}]}
    # a regenerate adds its version beside the damaged one, dropping nothing
    await access.regenerate(KEY)
    record = reread(manager, KEY).messages[3][VERSIONS]
    assert record["versions"][0] == {"messages": [{"role": 7}]}
    assert len(record["versions"]) == 3 and record["current"] == 2


def test_clean_title() -> None:
    assert clean_title('Title: "Capitals of Europe."') == "Capitals of Europe"
    assert clean_title("<think>hmm</think>\n\n**Paris trivia**\nmore") == "Paris trivia"
    assert clean_title("") is None and clean_title(None) is None
    # markdown inside the title is not shown as asterisks in the chat list
    assert clean_title("Here is a **summary** of `a.py`") == "Here is a summary of a.py"
    assert clean_title("**Title: Trip to _Rome_**") == "Trip to Rome"
    assert clean_title("[Rust](https://x.y) lifetimes, 2*3*4") == "Rust lifetimes, 2*3*4"
    assert clean_title("snake_case_names explained") == "snake_case_names explained"
    long = clean_title("word " * 40)
    assert long is not None and len(long) <= 61 and long.endswith("…")


async def test_auto_title_through_the_provider_tagged_title(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer
) -> None:
    sessions = SessionManager(tmp_path / "ws")
    session = sessions.get_or_create(KEY)
    session.messages = conversation()[:2]
    sessions.save(session)
    provider = SwitchableProvider(make_provider(scripted_server.url))
    seen: list[str] = []
    provider.add_usage_listener(lambda source, _model, _usage: seen.append(source))
    scripted_server.push(Reply("Title: French capital."))
    access = SessionAccess(sessions)
    assert await access.auto_title(KEY, provider) == "French capital"
    request = scripted_server.chat_requests()[0].body
    assert request["max_tokens"] <= 32 and "Paris." in request["messages"][-1]["content"]
    assert seen == ["title"]
    saved = reread(sessions, KEY)
    assert saved.metadata["title"] == "French capital" and saved.metadata[AUTO_TITLE] is True
    # already titled (by the person or before): no second call
    assert await access.auto_title(KEY, provider) is None
    assert len(scripted_server.chat_requests()) == 1


async def test_auto_title_never_overwrites_a_rename_made_meanwhile(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer
) -> None:
    sessions = SessionManager(tmp_path / "ws")
    session = sessions.get_or_create(KEY)
    session.messages = conversation()[:2]
    sessions.save(session)
    access = SessionAccess(sessions)
    gate = threading.Event()

    def answer_late(_body: dict[str, Any]) -> Reply:  # the server thread waits for the rename
        gate.wait(10)
        return Reply("Model title")

    scripted_server.route = answer_late
    provider = SwitchableProvider(make_provider(scripted_server.url))
    task = asyncio.ensure_future(access.auto_title(KEY, provider))
    deadline = asyncio.get_running_loop().time() + 10
    while not scripted_server.chat_requests():
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.005)
    await access.rename(KEY, "My own title")
    gate.set()
    assert await task is None
    assert reread(sessions, KEY).title == "My own title"


def test_export_markdown_and_json(manager: SessionManager) -> None:
    session = manager.get_or_create(KEY)
    md = to_markdown(session)
    assert md.startswith("# What is the capital of France?")
    assert "### You · 2024-05-01 10:00" in md and "Paris." in md
    assert "### Reminder" in md and "Stretch!" in md and "cron prompt" not in md
    assert "**Tool call:** `web_search`" in md and "Rome is the capital." in md
    assert "````\nRome" not in md and "Rome, with ``` backticks." in md
    data = json.loads(to_json(session))
    assert data["key"] == KEY and data["messages"] == conversation()


async def test_search_hits_say_where(manager: SessionManager) -> None:
    hits = await SessionAccess(manager).search_hits("ROME")
    assert len(hits) == 1
    hit = hits[0]
    assert hit.key == KEY and hit.message_index == 7
    assert hit.snippet[hit.start : hit.start + hit.length].casefold() == "rome"
    assert await SessionAccess(manager).search_hits("nothing like this") == []
    title_only = await SessionAccess(manager).search_hits("capital of France")
    assert title_only[0].message_index == 0


def test_snippet_cuts_at_words() -> None:
    text = " ".join(f"w{i}" for i in range(60)) + " NEEDLE " + " ".join(f"v{i}" for i in range(60))
    line, start = snippet(text, text.index("NEEDLE"), 6)
    assert line.startswith("…") and line.endswith("…")
    assert line[start : start + 6] == "NEEDLE"
    assert len(line) < 110


def test_export_format_accepts_the_menu_names_and_names_a_bad_one() -> None:
    assert [export_format(name) for name in ("md", "json")] == list(FORMATS)
    with pytest.raises(ValueError, match=r"'pdf'.*md, json"):
        export_format("pdf")


def test_export_gives_each_turn_its_own_tool_result(tmp_path: Path) -> None:
    """Two turns both called ``call_0``; the second was denied: the first call's result in the
    Markdown is its own, not the later denial."""
    sessions = SessionManager(tmp_path / "ws")
    session = sessions.get_or_create(KEY)

    def call(command: str) -> dict[str, Any]:
        function = {"name": "exec", "arguments": json.dumps({"command": command})}
        return {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_0", "type": "function", "function": function}],
        }

    denial = "Denied by the user: the person did not allow this exec call."
    session.messages = [
        {"role": "user", "content": "list"},
        call("ls"),
        {"role": "tool", "tool_call_id": "call_0", "content": "a.txt"},
        {"role": "assistant", "content": "One file."},
        {"role": "user", "content": "delete it"},
        call("rm a.txt"),
        {"role": "tool", "tool_call_id": "call_0", "content": denial},
        {"role": "assistant", "content": "OK, I won't."},
    ]
    md = to_markdown(session)
    first, second = md.split("**Tool call:**")[1:]
    assert '"ls"' in first and "a.txt" in first.split("One file.")[0] and "Denied" not in first
    assert '"rm a.txt"' in second and denial in second
