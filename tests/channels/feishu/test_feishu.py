"""The Feishu channel end to end: the real lark-oapi SDK (its long connection and its Open
API client) against the local platform, and a real agent runtime."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from desktop.core.channels.feishu import cards
from tests.channels.feishu.conftest import CHAT, USER, echo, start_runtime, until, user_text
from tests.channels.feishu.feishu_server import (
    APP_SECRET,
    BOT_OPEN_ID,
    PNG,
    TENANT_TOKEN,
    FeishuServer,
    card_text,
)
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_message_is_received_and_answered_as_a_card(
    feishu: FeishuServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        status = runtime.channels.status("feishu")
        assert status.account == "nanobot test bot"
        await feishu.push_text(CHAT, USER, "hello there")
        await until(lambda: feishu.sent_to(CHAT), what="the answer")
    finally:
        await runtime.stop()
    (answer,) = feishu.sent_to(CHAT)
    assert answer.msg_type == "interactive" and answer.reply_to is None
    assert answer.content == {
        "config": {"wide_screen_mode": True},
        "elements": [{"tag": "markdown", "content": "echo: hello there"}],
    }
    assert all(d.acked for d in feishu.deliveries)
    assert APP_SECRET not in caplog.text and TENANT_TOKEN not in caplog.text


async def test_the_working_reaction_comes_and_goes_and_done_is_put(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, feishu, scripted_server, reactEmoji="OnIt", doneEmoji="DONE"
    )
    try:
        message = await feishu.push_text(CHAT, USER, "hi")
        await until(lambda: feishu.sent_to(CHAT), what="the answer")
        await until(lambda: len(feishu.reaction_log) == 3, what="the reactions updated")
        # The platform is slow to react: the turn ends first, the reaction still goes.
        feishu.reactions_held = asyncio.Event()
        quick = await feishu.push_text(CHAT, USER, "again")
        await until(lambda: len(feishu.sent_to(CHAT)) == 2, what="the second answer")
        assert feishu.reaction_log[3:] == [], "the answer came before the reaction"
        feishu.reactions_held.set()
        await until(lambda: len(feishu.reaction_log) == 6, what="its reactions updated")
    finally:
        await runtime.stop()
    assert feishu.reaction_log == [
        ("add", message, "OnIt"),
        ("remove", message, "OnIt"),
        ("add", message, "DONE"),
        ("add", quick, "OnIt"),
        ("remove", quick, "OnIt"),
        ("add", quick, "DONE"),
    ]
    assert feishu.reactions == {k: v for k, v in feishu.reactions.items() if v[1] == "DONE"}


async def test_groups_answer_mentions_only_and_allow_from_is_kept(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    group = "oc_group_0001"
    runtime = await start_runtime(tmp_path, feishu, scripted_server, allowFrom=[USER, "u_boss"])
    bot = {"key": "@_user_1", "id": {"open_id": BOT_OPEN_ID, "user_id": ""}, "name": "bot"}
    other = {"key": "@_user_1", "id": {"open_id": "ou_someone"}, "name": "Sam"}
    try:
        await feishu.push_text(group, USER, "chatter among people", chat_type="group")
        await feishu.push_text(
            group, USER, "@_user_1 not for the bot", chat_type="group", mentions=[other]
        )
        await feishu.push_text(CHAT, "ou_stranger", "let me in")
        await feishu.push_text(
            group, USER, "@_user_1 what time is it", chat_type="group", mentions=[bot]
        )
        await feishu.push_text(CHAT, "ou_other", "by user id", user_id="u_boss")
        await until(lambda: len(feishu.sent) == 3, what="two answers and a pairing code")
        await until(lambda: all(d.acked for d in feishu.deliveries), what="all confirmed")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert feishu.texts(group) == ["echo: what time is it"]
    codes = [t for t in feishu.texts(CHAT) if "Your pairing code:" in t]  # the stranger's DM
    assert len(codes) == 1 and [t for t in feishu.texts(CHAT) if t not in codes] == [
        "echo: by user id"
    ]
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert sorted(asked) == ["by user id", "what time is it"]


async def test_long_answers_are_split_and_topics_get_replies_in_thread(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    long_answer = "\n\n".join(f"## Part {i}\n" + "text " * 300 for i in range(6))
    scripted_server.push(Reply(long_answer, chunk=500), Reply("short **answer**"))
    runtime = await start_runtime(tmp_path, feishu, scripted_server, replyToMessage=True)
    try:
        in_topic = await feishu.push_text(CHAT, USER, "tell me a lot", thread_id="omt_topic")
        expected = [json.loads(cards.content(b)) for b in cards.markdown_cards(long_answer)]
        await until(
            lambda: [s.content for s in feishu.sent] == expected, what="every card", timeout=90
        )  # includes a model turn (slow when loaded)
        await runtime.agent.idle()
        count = len(feishu.sent)
        plain = await feishu.push_text(CHAT, USER, "and briefly?")
        await until(lambda: len(feishu.sent) == count + 1, what="the short answer")
    finally:
        await runtime.stop()
    pieces, last = feishu.sent[:count], feishu.sent[count]
    assert all(p.reply_to == in_topic and p.reply_in_thread for p in pieces)
    assert all(p.msg_type == "interactive" for p in pieces) and len(pieces) > 1
    shown = "\n".join(card_text(p) for p in pieces)
    assert [f"**Part {i}**" in shown for i in range(6)] == [True] * 6
    assert " ".join(shown.replace("**", "").split()) == " ".join(
        long_answer.replace("## ", "").split()
    )
    assert all(len(json.dumps(p.content, ensure_ascii=False)) < 30_000 for p in pieces)
    assert len({p.uuid for p in pieces}) == len(pieces)
    assert (last.reply_to, last.reply_in_thread) == (plain, False)  # replyToMessage: a quote
    assert last.content["elements"] == [{"tag": "markdown", "content": "short **answer**"}]


async def test_rich_text_images_and_files_reach_the_model(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, feishu, scripted_server)
    post = {
        "title": "Look",
        "content": [
            [
                {"tag": "text", "text": "this "},
                {"tag": "a", "text": "site", "href": "https://x.org"},
            ],
            [{"tag": "img", "image_key": "img_in_1"}],
        ],
    }
    try:
        first, delivery = await feishu.push_message(CHAT, USER, post, msg_type="post")
        feishu.resources[(first, "img_in_1")] = PNG
        await until(lambda: len(feishu.sent) == 1, what="the first answer")
        second, _ = await feishu.push_message(
            CHAT, USER, {"file_key": "file_in_2", "file_name": "../notes.txt"}, msg_type="file"
        )
        feishu.resources[(second, "file_in_2")] = b"meeting at noon\n"
        await until(lambda: len(feishu.sent) == 2, what="the second answer")
    finally:
        await runtime.stop()
    saved = tmp_path / "ws" / "media" / "feishu"
    image = saved / f"{first}_img_in_1.png"
    assert image.read_bytes() == PNG
    requests = [r.body for r in scripted_server.chat_requests()]
    assert user_text(requests[0]) == f"Look\nthis [site](https://x.org)\n[image: {image}]"
    content = requests[0]["messages"][-1]["content"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    document = saved / f"{second}_file_in_2_.._notes.txt"
    assert user_text(requests[1]) == f"[file: {document}]"
    assert document.read_bytes() == b"meeting at noon\n"
    assert delivery.acked


async def test_sessions_are_nanobots_a_person_or_a_group_thread(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A direct chat is the session ``feishu:<open id>``; with ``topicIsolation`` a group
    message starts its own session, and replies in its thread join it."""
    scripted_server.route = echo()
    group = "oc_group_0002"
    runtime = await start_runtime(tmp_path, feishu, scripted_server, groupPolicy="open")
    try:
        await feishu.push_text(CHAT, USER, "direct")
        first = await feishu.push_text(group, USER, "topic one", chat_type="group")
        await until(lambda: len(feishu.sent) == 2, what="two answers")
        await feishu.push_text(group, "ou_user_0002", "in thread", chat_type="group", root_id=first)
        await until(lambda: len(feishu.sent) == 3, what="the thread answer")
    finally:
        await runtime.stop()
    assert feishu.texts(CHAT) == ["echo: direct"]
    (answer,) = feishu.sent_to(CHAT)
    assert answer.receive_id == USER, "a direct chat is answered by the person's id"
    assert feishu.texts(group) == ["echo: topic one", "echo: in thread"]
    direct = runtime.sessions.path_for(f"feishu:{USER}")
    thread = runtime.sessions.path_for(f"feishu:{group}:{first}")
    assert direct.exists() and thread.exists()
    assert "in thread" in thread.read_text() and "topic one" in thread.read_text()
    assert not runtime.sessions.path_for(f"feishu:{group}").exists()
