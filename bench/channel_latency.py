"""The Telegram channel's own latency: from a message arriving to the bot's first call back.

A local Bot API server (the one the tests use, ``tests/channels/telegram/bot_api_server.py``)
holds the bot's long poll; a message is put in, and the time until the bot's next call for
that chat is measured on the server's clock. Everything between is the framework: PTB's
``getUpdates`` answer, the channel (parsing, ``allowFrom``, the saved cursor), the bus, the
agent loop (session, context, the turn) with an instant model (a provider stub that answers at
once, so no model time is included), the channel manager and the channel's send (markdown to
HTML). Messages go one at a time, round-robin over 10 chats, after 20 warm-up messages.

Reported, p50 / p99 / max over the messages:
  first call  the first call for the chat after the message (``sendChatAction typing``, sent
              when the turn starts; with ``--react``, the 👀 reaction, sent on arrival)
  answer      the ``sendMessage`` with the answer
The aim is p50 ≤ 20 ms for the first call.

Usage: python bench/channel_latency.py [--messages 200] [--react]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop.core.providers.base import LLMProvider, LLMResponse, StreamDelta, Usage
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer, Call

TARGET_P50_MS = 20.0
ANSWER = "Done: **ok**, `x<y`."


class InstantModel(LLMProvider):
    """Answers every request at once (no model time in the figures)."""

    async def chat(
        self, messages: list[dict[str, Any]], tools: Any = None, **_: Any
    ) -> LLMResponse:
        return LLMResponse(ANSWER, usage=Usage(10, 5))

    async def chat_stream(
        self, messages: list[dict[str, Any]], tools: Any = None, *, on_delta: Any = None, **_: Any
    ) -> LLMResponse:
        if on_delta is not None:
            result = on_delta(StreamDelta("text", ANSWER))
            if result is not None:
                await result
        return LLMResponse(ANSWER, usage=Usage(10, 5))

    @property
    def model(self) -> str:
        return "instant"


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


async def measure(count: int, react: bool) -> tuple[list[float], list[float]]:
    """Latencies (ms) to the first call and to the answer, one message at a time."""
    from desktop.core.assembly import build_runtime
    from desktop.core.config.loader import load_config

    server = await BotApiServer().start()
    root = Path(tempfile.mkdtemp(prefix="nanobot-bench-"))
    config_path = root / "config.json"
    telegram = {
        "enabled": True,
        "token": TOKEN,
        "baseUrl": server.base_url,
        "allowFrom": ["*"],
        "reactEmoji": "👀" if react else "",
    }
    data = {
        "agents": {"defaults": {"workspace": str(root / "ws"), "timezone": "UTC"}},
        "channels": {"sendProgress": False, "telegram": telegram},
    }
    config_path.write_text(json.dumps(data), encoding="utf-8")
    config = load_config(config_path)
    runtime = await asyncio.to_thread(build_runtime, config, InstantModel())
    first: dict[int, float] = {}
    answered: dict[int, float] = {}

    def record(call: Call) -> None:
        chat = call.params.get("chat_id")
        if isinstance(chat, int) and call.method != "getUpdates":
            first.setdefault(chat, call.at)
            if call.method == "sendMessage":
                answered.setdefault(chat, call.at)

    server.on_call = record
    to_first: list[float] = []
    to_answer: list[float] = []
    try:
        await runtime.start()
        while not runtime.channels.status("telegram").ok:
            await asyncio.sleep(0.01)
        for n in range(count + 20):
            chat = 1000 + n % 10
            first.pop(chat, None)
            answered.pop(chat, None)
            update = server.put_message(chat, f"message {n}")
            put = server.put_at[update["update_id"]]
            deadline = time.perf_counter() + 10
            while chat not in answered:
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"message {n} was not answered")
                await asyncio.sleep(0.0005)
            if n >= 20:
                to_first.append((first[chat] - put) * 1000)
                to_answer.append((answered[chat] - put) * 1000)
            await runtime.agent.idle()  # the turn's bookkeeping ends before the next message
    finally:
        await runtime.stop()
        await server.stop()
    return to_first, to_answer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--react", action="store_true", help="with the 👀 reaction on arrival")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    to_first, to_answer = asyncio.run(measure(args.messages, args.react))
    print(f"Telegram channel latency over {len(to_first)} messages (instant model):")
    for name, values in (("first call", to_first), ("answer", to_answer)):
        print(
            f"  {name:<11} p50 {percentile(values, 0.5):6.1f} ms   "
            f"p99 {percentile(values, 0.99):6.1f} ms   max {max(values):6.1f} ms"
        )
    p50 = percentile(to_first, 0.5)
    verdict = "meets" if p50 <= TARGET_P50_MS else "misses"
    print(f"first call p50 {p50:.1f} ms {verdict} the aim of {TARGET_P50_MS:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
