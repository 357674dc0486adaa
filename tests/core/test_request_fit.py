"""Fitting a request to the context budget: the same result as the old rule, each message
counted once; the remembered token counts and history copies stay right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.engine.runner import drop_oldest_turns, estimate_request, fit_to_budget
from desktop.core.providers import tokens
from desktop.core.session.manager import HISTORY_KEYS, Session, SessionManager
from desktop.core.session.repair import repair_messages

Message = dict[str, Any]


# -- the oracle: the rule as it was, recounting everything ---------------------------------
def plain_count(messages: list[Message]) -> int:
    """``count_messages`` as it was before counts were remembered."""
    total = 3
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            text = "".join(
                str(p.get("text", "")) if p.get("type") == "text" else " " * 340
                for p in content
                if isinstance(p, dict) and p.get("type") in ("text", "image_url")
            )
        else:
            text = "" if content is None else str(content)
        total += 4 + tokens.count_text(text)
        if message.get("tool_calls"):
            total += tokens.count_text(json.dumps(message["tool_calls"], ensure_ascii=False))
        for key in ("name", "tool_call_id"):
            if message.get(key):
                total += tokens.count_text(str(message[key]))
    return total


def reference_fit(messages: list[Message], budget: int) -> list[Message]:
    """The old ``drop_oldest_turns`` body."""
    head = [m for m in messages[:1] if m.get("role") == "system"]
    body = messages[len(head) :]
    starts = [i for i, m in enumerate(body) if m.get("role") == "user"]
    while len(starts) > 1 and plain_count(head + body) > budget:
        body = body[starts[1] :]
        starts = [i for i, m in enumerate(body) if m.get("role") == "user"]
    return head + body


# -- generated conversations -------------------------------------------------------------
words = st.sampled_from(["alpha", "beta", "γάμμα", "数据", "x", "\n", "tool", "résumé", "42"])
texts = st.lists(words, max_size=60).map(" ".join)


@st.composite
def messages_strategy(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    if draw(st.booleans()):
        out.append({"role": "system", "content": draw(texts)})
    out.extend(  # a history that starts mid-turn
        {"role": draw(st.sampled_from(["assistant", "tool"])), "content": draw(texts)}
        for _ in range(draw(st.integers(0, 2)))
    )
    for turn in range(draw(st.integers(0, 8))):
        content: Any = draw(texts)
        if draw(st.integers(0, 9)) == 0:
            content = [{"type": "text", "text": content}, {"type": "image_url", "image_url": {}}]
        out.append({"role": "user", "content": content})
        for step in range(draw(st.integers(0, 2))):
            call_id = f"c{turn}_{step}"
            out.append(
                {
                    "role": "assistant",
                    "content": draw(texts),
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "read_file", "arguments": draw(texts)},
                        }
                    ],
                }
            )
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "name": "read_file",
                    "content": draw(texts),
                }
            )
        if draw(st.booleans()):
            out.append({"role": "assistant", "content": draw(texts)})
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=messages_strategy(), data=st.data())
def test_fit_matches_the_old_rule(messages: list[Message], data: st.DataObject) -> None:
    """For any conversation and budget, the same messages (the same objects) are kept."""
    total = plain_count(messages)
    budget = data.draw(st.integers(0, total + 20))
    expected = reference_fit(messages, budget)
    got = fit_to_budget(messages, budget)
    assert got == expected
    assert all(a is b for a, b in zip(got, expected, strict=True))
    assert tokens.count_messages(messages) == total  # and the remembered counts are right


async def test_drop_oldest_turns_is_the_same_rule() -> None:
    """The async entry point the runner uses gives fit_to_budget's answer."""
    messages = [{"role": "system", "content": "s"}]
    for n in range(30):
        messages += [
            {"role": "user", "content": f"q{n} " * 50},
            {"role": "assistant", "content": "a"},
        ]
    for budget in (0, 200, 800, 5000):
        assert await drop_oldest_turns(messages, budget) == reference_fit(messages, budget)


class CountingEncoding:
    """Wraps a tiktoken encoding and counts the texts it encodes."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def encode(self, text: str, **kwargs: Any) -> list[int]:
        self.calls += 1
        tokens: list[int] = self.inner.encode(text, **kwargs)
        return tokens


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> CountingEncoding:
    """Count every encode call (and start with nothing remembered)."""
    wrapper = CountingEncoding(tokens._encoding(tokens.DEFAULT_ENCODING))
    monkeypatch.setattr(tokens, "_encoding", lambda name: wrapper)
    tokens.clear_caches()
    return wrapper


def long_conversation(turns: int) -> list[Message]:
    """A system prompt and ``turns`` turns of four messages (no texts shared between them)."""
    messages: list[Message] = [{"role": "system", "content": "You are a bot."}]
    for n in range(turns):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        messages += [
            {"role": "user", "content": f"question {n} " + "word " * 40},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "name": "f", "content": f"out {n} " * 30},
            {"role": "assistant", "content": f"answer {n} " + "more " * 60},
        ]
    return messages


async def test_trimming_counts_each_message_at_most_once(counting: CountingEncoding) -> None:
    """A 1,000-message request cut to a small budget: no message is encoded twice (the old rule
    recounted the whole request for every turn it dropped), and fitting it again encodes only
    the system prompt (short texts are not remembered by value)."""
    messages = long_conversation(250)
    kept = await drop_oldest_turns(messages, 3000)
    first = counting.calls
    assert first <= 4 * (len(kept) + 5), f"{first} encodes for {len(kept)} kept messages"
    assert await drop_oldest_turns(messages, 3000) == kept
    assert counting.calls - first <= 1  # the system prompt
    assert kept[0]["role"] == "system" and kept[1]["role"] == "user"
    assert kept[1:] == messages[len(messages) - len(kept) + 1 :]
    assert plain_count(kept) <= 3000 < plain_count([kept[0], *messages[-len(kept) - 3 :]])


def test_estimate_request_remembers_counts(counting: CountingEncoding) -> None:
    """Measuring the same messages twice encodes them once."""
    messages = long_conversation(50)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"x": "y" * 600}}}]
    first = estimate_request(messages, tools)
    calls = counting.calls
    again = estimate_request(messages, tools)
    assert counting.calls - calls <= 1  # the system prompt
    assert again == first == plain_count(messages) + tokens.count_tools(tools)


def test_a_new_message_is_counted_afresh() -> None:
    """Counts belong to message objects: a different message is counted for itself, and the
    table stays bounded."""
    tokens.clear_caches()
    first = {"role": "user", "content": "one two three"}
    assert tokens.message_tokens(first) == plain_count([first]) - 3
    second = {**first, "content": "one two three four five six seven"}
    assert tokens.message_tokens(second) == plain_count([second]) - 3
    assert tokens.message_tokens(first) == plain_count([first]) - 3


def test_the_count_table_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its size the table drops its older half; counts stay right."""
    tokens.clear_caches()
    monkeypatch.setattr(tokens, "MESSAGE_CACHE_ENTRIES", 100)
    messages = [{"role": "user", "content": f"message number {n}"} for n in range(450)]
    assert tokens.count_messages(messages) == plain_count(messages)
    assert len(tokens._held) <= 100
    assert tokens.count_messages(messages) == plain_count(messages)


# -- history copies and repair, remembered between calls ----------------------------------
def reference_history(session: Session) -> list[Message]:
    """The old ``get_history``."""
    start = min(max(session.last_consolidated, 0), len(session.messages))
    window = session.messages[start:]
    first = next((i for i, m in enumerate(window) if m.get("role") == "user"), len(window))
    return [{k: m[k] for k in HISTORY_KEYS if k in m} for m in window[first:]]


operations = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "user",
                "assistant",
                "call",
                "result",
                "orphan",
                "begin",
                "checkpoint",
                "finish",
                "repair",
                "retry",
                "consolidate",
                "truncate",
                "replace",
            ]
        ),
        st.integers(0, 50),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(ops=operations)
def test_history_and_repair_match_a_fresh_computation(ops: list[tuple[str, int]]) -> None:
    """After any sequence of edits, get_history equals the old whole-list computation, and
    repair gives what repairing the whole list gives."""
    session = Session(key="cli:x")
    added: list[Message] = []
    for op, n in ops:
        if op == "user":
            session.add_message("user", f"u{n}")
        elif op == "assistant":
            session.add_message("assistant", f"a{n}")
        elif op == "call":
            session.add_message("assistant", "", tool_calls=[{"id": f"c{n}", "function": {}}])
        elif op in ("result", "orphan"):
            session.add_message("tool", f"r{n}", tool_call_id=f"c{n}" if op == "result" else "x")
        elif op == "begin":
            session.begin_turn(f"turn {n}")
            added = []
        elif op == "checkpoint":
            added = [*added, {"role": "assistant", "content": f"step {n}"}]
            session.checkpoint(added)
        elif op == "finish":
            session.finish_turn(added)
        elif op == "repair":
            expected, _ = repair_messages(session.messages, interrupted=session.has_pending_turn)
            session.repair()
            assert session.messages == expected
        elif op == "retry":
            session.take_pending_turn()
        elif op == "consolidate":
            session.last_consolidated = n % (len(session.messages) + 1)
        elif op == "truncate":
            del session.messages[n % (len(session.messages) + 1) :]
        elif op == "replace":
            session.messages = [dict(m) for m in session.messages]
        assert session.get_history() == reference_history(session)


def test_checkpoint_keeps_the_copies_it_stored(tmp_path: Path) -> None:
    """Messages stored by an earlier checkpoint stay the same objects (first timestamp kept),
    so saving the next checkpoint appends instead of rewriting."""
    session = SessionManager(tmp_path).get_or_create("cli:x")
    session.begin_turn("go")
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "1"}]}
    session.checkpoint([call])
    stored = session.messages[-1]
    result = {"role": "tool", "tool_call_id": "1", "content": "ok"}
    session.checkpoint([call, result])
    assert session.messages[-2] is stored and session.messages[-1]["content"] == "ok"
    session.finish_turn([call, result, {"role": "assistant", "content": "done"}])
    assert session.messages[1] is stored
    assert [m["role"] for m in session.messages] == ["user", "assistant", "tool", "assistant"]


tool_lists = st.none() | st.lists(
    texts.map(lambda t: {"type": "function", "function": {"name": "f", "description": t}}),
    max_size=3,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=messages_strategy(),
    tools=tool_lists,
    odd=st.text(max_size=20),
    limit=st.integers(0, 4000),
)
def test_surely_within_never_says_so_of_a_request_over_the_limit(
    messages: list[Message], tools: list[dict[str, Any]] | None, odd: str, limit: int
) -> None:
    """What the byte bound lets through is within the limit by the real count (any text, lone
    surrogates included); a request it declines may still fit, it only means "count"."""
    messages = [*messages, {"role": "user", "content": odd}]
    exact = estimate_request(messages, tools)
    if tokens.surely_within(messages, tools, limit):
        assert exact <= limit
    assert tokens.surely_within(messages, tools, 8 * exact + 40)  # a short chat far below
