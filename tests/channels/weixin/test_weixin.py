"""The WeChat channel end to end: the iLink client against the local iLink server, a real agent
runtime and the scripted model server through LiteLLM."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.agent.approval import ApprovalPolicy
from tests.channels.weixin.conftest import (
    ALICE,
    account_file,
    echo,
    logged_in,
    start_runtime,
    until,
    user_text,
)
from tests.channels.weixin.server import BOT, TOKEN, IlinkServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_the_qr_login_saves_the_token_where_nanobot_keeps_it_then_messages_flow(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, ilink, scripted_server, connected=False)
    try:
        await until(lambda: runtime.channels.status("weixin").login_code, what="a code to scan")
        status = runtime.channels.status("weixin")
        assert status.state == "connecting" and status.reason == "WeChat is not logged in yet"
        assert status.login_code == f"https://liteapp.weixin.qq.com/q/{ilink.codes[-1]}"
        ilink.scan()
        await until(lambda: runtime.channels.status("weixin").ok, what="logged in")
        assert runtime.channels.status("weixin").account == BOT
        ilink.say("hello <there>")
        await until(lambda: ilink.texts(ALICE), what="the answer")
        await runtime.agent.idle()
        sessions = [s["key"] for s in runtime.sessions.list_sessions()]
    finally:
        await runtime.stop()
    saved = json.loads(account_file(tmp_path).read_text())
    assert saved["token"] == TOKEN and saved["base_url"] == ilink.url
    assert saved["get_updates_buf"] == "buf-1", "the cursor, as nanobot keeps it"
    assert saved["context_tokens"] == {ALICE: ilink.context[ALICE]}
    assert account_file(tmp_path).stat().st_mode & 0o077 == 0, "the owner's only"
    assert f"weixin:{ALICE}" in sessions
    [sent] = ilink.sent
    assert sent["context_token"] == ilink.context[ALICE] and sent["to_user_id"] == ALICE
    assert sent["item_list"] == [{"type": 1, "text_item": {"text": "echo: hello ＜there＞"}}]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["hello <there>"]
    assert (ALICE, 1) in ilink.typing and ilink.typing[-1] == (ALICE, 2), "typing, then done"


async def test_a_long_answer_is_split_with_code_fences_kept_whole(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from desktop.core.channels.weixin.channel import MAX_CHARS

    code = "\n".join(f"print({i})  # a line of code" for i in range(120))
    reply = "Here:\n\n```python\n" + code + "\n```\n\nDone ~~really~~ <ok>."
    assert len(reply) > MAX_CHARS
    scripted_server.push(Reply(reply, chunk=1000))
    logged_in(tmp_path, ilink)
    runtime = await start_runtime(tmp_path, ilink, scripted_server)
    try:
        ilink.say("code please")
        await until(lambda: ilink.texts(ALICE) and ilink.texts(ALICE)[-1].endswith("＜ok＞."))
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    pieces = ilink.texts(ALICE)
    assert len(pieces) >= 2 and all(len(p) <= MAX_CHARS for p in pieces)
    assert all(p.count("```") % 2 == 0 for p in pieces), "each piece's fences closed"
    lines = [ln for p in pieces for ln in p.splitlines() if ln.startswith("print(")]
    assert lines == code.splitlines(), "every line of code, in order"
    assert pieces[-1].endswith("Done really ＜ok＞.")
    client_ids = [m["client_id"] for m in ilink.sent]
    assert len(set(client_ids)) == len(client_ids)


async def test_a_sender_outside_allow_from_is_ignored(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    logged_in(tmp_path, ilink)
    runtime = await start_runtime(tmp_path, ilink, scripted_server, allowFrom=[ALICE])
    try:
        ilink.say("from mallory", user="mallory@im.wechat")
        ilink.say("from alice")
        await until(lambda: ilink.texts(ALICE), what="alice answered")
        await until(lambda: ilink.texts("mallory@im.wechat"), what="mallory's pairing code")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert sorted(m["to_user_id"] for m in ilink.sent) == [ALICE, "mallory@im.wechat"]
    assert "Your pairing code: " in ilink.texts("mallory@im.wechat")[0]  # test_pairing.py
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["from alice"]


async def test_an_approval_is_answered_with_the_reply_word(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    command = {"command": "echo approved-in-wechat"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    logged_in(tmp_path, ilink)
    runtime = await start_runtime(tmp_path, ilink, scripted_server, approval=ApprovalPolicy())
    try:
        ilink.say("run the echo")
        await until(lambda: any("exec" in t for t in ilink.texts(ALICE)), what="the question")
        ilink.say("allow")
        await until(lambda: ilink.texts(ALICE)[-1:] == ["Done."], what="the final answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the reply word did not start another turn"
    assert "approved-in-wechat" in json.dumps(requests[1].body["messages"])
