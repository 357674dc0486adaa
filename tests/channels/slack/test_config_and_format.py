"""nanobot's ``channels.slack`` section loads unchanged; markdown becomes mrkdwn; pieces stay
under the limit without cutting code blocks; which events are messages for the agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.slack.inbound import MalformedEvent, parse, split_chat
from desktop.core.channels.slack.mrkdwn import pieces, to_mrkdwn
from desktop.core.config.channels.slack import SlackConfig

FIXTURE = Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "config.json"

NANOBOT_SECTION: dict[str, Any] = {
    "enabled": True,
    "mode": "socket",
    "webhookPath": "/slack/events",
    "botToken": "xoxb-1-2-abc",
    "appToken": "xapp-1-A1-abc",
    "replyInThread": False,
    "reactEmoji": "hourglass",
    "doneEmoji": "",
    "includeThreadContext": True,
    "threadContextLimit": 20,
    "allowFrom": ["U1"],
    "groupPolicy": "allowlist",
    "groupAllowFrom": ["C1"],
    "groupRequireMention": True,
    "dm": {"enabled": True, "policy": "allowlist", "allowFrom": ["U1"]},
    "proxy": "http://127.0.0.1:3128",
}


def test_nanobots_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    config = SlackConfig.model_validate(NANOBOT_SECTION)
    assert set(config.model_extra or {}) == {"dm"}, "only dm is kept as it is"
    assert (config.bot_token, config.app_token, config.reply_in_thread) == (
        "xoxb-1-2-abc", "xapp-1-A1-abc", False,
    )  # fmt: skip
    assert config.group_policy == "allowlist" and config.group_allow_from == ["C1"]
    assert config.dm_policy.policy == "allowlist" and config.dm_policy.allow_from == ["U1"]
    dumped = config.model_dump(by_alias=True)
    assert dumped.pop("baseUrl") == "https://slack.com/api/"
    assert dumped == NANOBOT_SECTION


def test_the_fixtures_section_loads_with_nanobots_defaults() -> None:
    section = json.loads(FIXTURE.read_text())["channels"]["slack"]
    config = SlackConfig.model_validate(section)
    defaults = SlackConfig()
    assert config.react_emoji == defaults.react_emoji == "eyes"
    assert config.done_emoji == defaults.done_emoji == "white_check_mark"
    assert config.group_policy == defaults.group_policy == "mention"
    assert config.reply_in_thread and config.dm_policy.enabled and config.dm_policy.policy == "open"
    assert SlackConfig().dm_policy.policy == "open", "no dm section: nanobot's defaults"


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**bold** and *it* and _it_", "*bold* and _it_ and _it_"),
        ("~~gone~~ & <tag>", "~gone~ &amp; &lt;tag&gt;"),
        ("[a link](https://x.org/?a=1&b=2)", "<https://x.org/?a=1&b=2|a link>"),
        ("# Title\n## Sub", "*Title*\n*Sub*"),
        ("- one\n  - two\n* three", "• one\n    • two\n• three"),
        ("- [x] done\n- [ ] todo", "☑ done\n☐ todo"),
        ("`a*b*c`", "`a*b*c`"),
        ("```python\nx = '**y**' < 1\n```", "```\nx = '**y**' &lt; 1\n```"),
        ("| A | B |\n|---|---|\n| 1 | 2 |", "*A*: 1 · *B*: 2"),
        ("> quoted **b**", "> quoted *b*"),
    ],
)
def test_markdown_becomes_mrkdwn(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_a_code_block_longer_than_a_piece_is_refenced_in_each_part() -> None:
    code = "```\n" + "\n".join(f"line {i:04d}" for i in range(600)) + "\n```"
    parts = pieces("intro\n\n" + code + "\n\noutro", 1000)
    assert all(len(p) <= 1000 for p in parts) and len(parts) >= 7
    inner = [p for p in parts if "line" in p]
    assert all(p.count("```") == 2 for p in inner), "every part is a whole code block"
    lines = [ln for p in inner for ln in p.split("\n") if ln.startswith("line")]
    assert lines == [f"line {i:04d}" for i in range(600)]
    assert parts[0].startswith("intro") and parts[-1].endswith("outro")


def _config(**fields: Any) -> SlackConfig:
    return SlackConfig.model_validate({"allowFrom": ["*"], **fields})


def test_events_for_the_agent_and_their_chats() -> None:
    base = {"type": "message", "user": "U1", "ts": "1.000001", "text": "hi"}
    dm = parse({**base, "channel": "D1", "channel_type": "im"}, bot_user_id="UB", config=_config())
    assert dm is not None and dm.chat_id == "D1" and dm.key == "D1:1.000001"
    channel = {**base, "channel": "C1", "channel_type": "channel"}
    assert parse(channel, bot_user_id="UB", config=_config()) is None, "not mentioned"
    mention = parse({**channel, "text": "<@UB> hi"}, bot_user_id="UB", config=_config())
    assert mention is not None and mention.text == "hi" and mention.chat_id == "C1:1.000001"
    flat = parse(channel, bot_user_id="UB", config=_config(groupPolicy="open", replyInThread=False))
    assert flat is not None and flat.chat_id == "C1"
    edited = {**channel, "subtype": "message_changed"}
    bot = {**channel, "bot_id": "B1"}
    assert parse(edited, bot_user_id="UB", config=_config(groupPolicy="open")) is None
    assert parse(bot, bot_user_id="UB", config=_config(groupPolicy="open")) is None
    closed = _config(dm={"enabled": True, "policy": "allowlist", "allowFrom": ["U9"]})
    assert (
        parse({**base, "channel": "D1", "channel_type": "im"}, bot_user_id="UB", config=closed)
        is None
    )
    with pytest.raises(MalformedEvent):
        parse({"type": "message", "channel": "D1"}, bot_user_id="UB", config=_config())
    assert split_chat("C1:1.000001") == ("C1", "1.000001") and split_chat("D1") == ("D1", None)
    with pytest.raises(ValueError):
        split_chat("desktop-chat")
