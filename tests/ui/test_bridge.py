"""The Qt bridge is typed: every run event reaches the signal of its class (and ``runEvent``),
mypy refuses a slot for another event, and an event kind the bridge forgets fails mypy."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, get_args

import pytest

from desktop.core.bus.events import (
    BudgetPaused,
    BudgetResolved,
    BudgetWarning,
    ChannelStatusChanged,
    DeliveryFailed,
    GuidanceTaken,
    ModelFallback,
    ModelRetrying,
    OutboundMessage,
    PairingRequested,
    ReasoningDelta,
    ReminderDue,
    RunawayStopped,
    RunEvent,
    SessionChanged,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
    UsageReport,
)
from desktop.ui.bridge import CoreBridge
from tests.typecheck import REPO, mypy_errors, without_case

pytestmark = pytest.mark.usefixtures("qapp")

# One event of every kind, and the signal that carries it.
SAMPLES: dict[str, Any] = {
    "turnStarted": TurnStarted("t", "desktop:a", "message", "desktop", "a", "hi"),
    "textDelta": TextDelta("t", "desktop:a", "Hel"),
    "guidanceTaken": GuidanceTaken("t", "desktop:a", ("g1",), ("shorter, please",)),
    "reasoningDelta": ReasoningDelta("t", "desktop:a", "hmm"),
    "streamReset": StreamReset("t", "desktop:a"),
    "modelRetrying": ModelRetrying("t", "desktop:a", "Busy.", 1, 3, 0.5),
    "modelFallback": ModelFallback("t", "desktop:a", "Using b.", "b", "a"),
    "toolStarted": ToolCallStarted("t", "desktop:a", "c1", "exec", {"command": "ls"}),
    "toolFinished": ToolCallFinished("t", "desktop:a", "c1", "exec", {}, "ok", 0.1, True),
    "usage": UsageReport("t", "desktop:a", 10, 2, None, 10, 8192),
    "turnFinished": TurnFinished("t", "desktop:a", "Hello"),
    "turnStopped": TurnStopped("t", "desktop:a", "Hel"),
    "turnFailed": TurnFailed("t", "desktop:a", "No key."),
    "sessionChanged": SessionChanged("desktop:a", "new"),
    "reminderDue": ReminderDue("desktop:a", "j1", "Stretch", "Stand up"),
    "channelStatus": ChannelStatusChanged("telegram", "connected"),
    "deliveryFailed": DeliveryFailed("telegram", "42", "the network is down"),
    "pairingRequested": PairingRequested("telegram", "42|zoe", "ABCD-EFGH", 1e9),
    "budgetPaused": BudgetPaused("r1", "dream", "", 10, 90, 0.0, 100, None, "dream", "day", "m"),
    "budgetResolved": BudgetResolved("r1", "run"),
    "budgetWarning": BudgetWarning("chat", "chat", "day", "80% used"),
    "runawayStopped": RunawayStopped("cron", "run1", "job", 9000, 900, "stopped"),
}


def test_every_run_event_reaches_the_signal_of_its_class_then_run_event() -> None:
    bridge = CoreBridge()
    assert {type(e) for e in SAMPLES.values()} == set(get_args(RunEvent)), "a sample per kind"
    got: list[tuple[str, object]] = []
    for name in SAMPLES:
        getattr(bridge, name).connect(lambda e, name=name: got.append((name, e)))
    bridge.runEvent.connect(lambda e: got.append(("runEvent", e)))
    for name, event in SAMPLES.items():
        got.clear()
        bridge.deliver(event)
        assert got == [(name, event), ("runEvent", event)], name
    outbound: list[OutboundMessage] = []
    bridge.outbound.connect(outbound.append)
    message = OutboundMessage("desktop", "a", "hi")
    bridge.deliver_outbound(message)
    assert outbound == [message]


def test_mypy_refuses_a_slot_for_another_event(tmp_path: Path) -> None:
    """Connecting a slot that takes a ``TextDelta`` to ``turnStarted`` is a type error; one
    that takes any end of a turn fits every end's signal."""
    errors = mypy_errors(
        "from desktop.core.bus.events import TextDelta, TurnEnd, TurnStarted\n"
        "from desktop.ui.bridge import CoreBridge\n"
        "def delta(event: TextDelta) -> None: ...\n"
        "def started(event: TurnStarted) -> None: ...\n"
        "def ended(event: TurnEnd) -> None: ...\n"
        "bridge = CoreBridge()\n"
        "bridge.turnStarted.connect(started)\n"
        "bridge.turnFinished.connect(ended)\n"
        "bridge.turnFailed.connect(ended)\n"
        "bridge.turnStarted.connect(delta)\n",
        tmp_path,
    )
    assert len(errors) == 1, errors
    assert '"connect"' in errors[0] and "TextDelta" in errors[0] and "TurnStarted" in errors[0]


def test_an_event_kind_the_bridge_forgets_fails_mypy(tmp_path: Path) -> None:
    """The bridge's ``match`` ends in ``assert_never``: without its ``TextDelta`` case (as with
    a new event class in core that nobody added here) mypy names the missing kind."""
    source = (REPO / "desktop" / "ui" / "bridge.py").read_text(encoding="utf-8")
    assert mypy_errors(source, tmp_path, "bridge_whole") == []
    errors = mypy_errors(without_case(source, "TextDelta()"), tmp_path, "bridge_forgets")
    assert any("assert_never" in e and "TextDelta" in e for e in errors), errors


def _event_slots_typed_any(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for arg in node.args.args:
                annotation = ast.unparse(arg.annotation) if arg.annotation else ""
                if arg.arg.lstrip("_") == "event" and annotation in ("", "Any"):
                    found.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    return found


def test_no_slot_in_the_ui_takes_an_untyped_event() -> None:
    """Bridge slots and Qt event handlers in the UI name the event class they take."""
    ui = sorted((REPO / "desktop" / "ui").rglob("*.py"))
    found = [slot for path in ui for slot in _event_slots_typed_any(path)]
    assert found == []
