"""A message longer than ``channels.maxInboundKb`` is answered, never read.

A 50 MB text through the local Bot API server: the sender is told the limit, nothing of it is
stored (journal, session, state) or sent to the model (the scripted server sees nothing of it),
and the chat goes on.
"""

from __future__ import annotations

from pathlib import Path

from desktop.core.runtime import Runtime
from tests.channels.telegram.bot_api_server import BotApiServer
from tests.channels.telegram.conftest import CHAT, echo, session_lines, start_runtime, until
from tests.fakes.openai_server import ScriptedOpenAIServer

MB = 1024 * 1024
FITS = " ".join(f"w{n}" for n in range(250))  # about 1 KB, varied (LiteLLM stops repetition)
REFUSAL = (
    "Your message is too long (50 MB); I read messages up to 256 KB. "
    "Send it as a file instead, or in shorter parts."
)


def largest_file(root: Path) -> tuple[int, str]:
    """The size and name of the largest file below ``root``."""
    sizes = [(p.stat().st_size, str(p)) for p in root.rglob("*") if p.is_file()]
    return max(sizes, default=(0, ""))


async def _settled(runtime: Runtime, api: BotApiServer) -> None:
    last = max(u for u in api.put_at)
    await until(
        lambda: any((c.params.get("offset") or 0) > last for c in api.calls_of("getUpdates")),
        what="the updates were confirmed",
    )
    await until(lambda: runtime.bus.inbound.empty(), what="the agent took every message")
    await runtime.agent.idle()


async def test_a_50_mb_message_is_answered_and_never_stored_or_sent_to_the_model(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        api.put_message(CHAT, "x" * (50 * MB))
        await until(lambda: api.sent(CHAT), timeout=120, what="the answer to the long message")
        api.put_message(CHAT, "and a short one")
        await until(lambda: len(api.sent(CHAT)) == 2, what="the short one's answer")
        await _settled(runtime, api)
    finally:
        await runtime.stop()
    assert api.texts(CHAT) == [REFUSAL, "echo: and a short one"]
    requests = scripted_server.chat_requests()
    assert len(requests) == 1 and "xxxx" not in str(requests[0].body)
    assert [m["content"] for m in session_lines(runtime, f"telegram:{CHAT}")] == [
        "and a short one",
        "echo: and a short one",
    ]
    size, name = largest_file(tmp_path)
    assert size < MB, f"{name} holds {size} bytes"


async def test_the_limit_is_a_setting(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """``channels.maxInboundKb`` (kept in desktop.json) lowers it: a 3 KB message is refused
    under a 2 KB limit, a 1 KB one is read."""
    from desktop.core.config.prefs_peek import prefs_path
    from tests.channels.telegram.conftest import config_file

    prefs = prefs_path(config_file(tmp_path, api))
    prefs.write_text('{"configExtras": {"channels": {"maxInboundKb": 2}}}', encoding="utf-8")
    scripted_server.route = echo("read: ")
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        api.put_message(CHAT, "é" * 1536)  # 1536 characters, 3 KB in UTF-8
        api.put_message(CHAT, FITS)
        await until(lambda: len(api.sent(CHAT)) == 2, what="both answers")
        await _settled(runtime, api)
    finally:
        await runtime.stop()
    assert api.texts(CHAT) == [
        "Your message is too long (3 KB); I read messages up to 2 KB. "
        "Send it as a file instead, or in shorter parts.",
        "read: " + FITS,
    ]
    assert len(scripted_server.chat_requests()) == 1
