"""The model picker lists the config's model presets; picking one puts the shown chat on it."""

from __future__ import annotations

from typing import Any

from desktop.core.config.schema import ModelPresetConfig
from desktop.core.providers.presets import SESSION_PRESET
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness


def _actions(chat: ChatHarness) -> dict[str, Any]:
    picker = chat.tab.pane.picker
    picker._fill()  # what opening the menu shows
    menu = picker.menu()
    assert menu is not None
    return {a.text(): a for a in menu.actions() if a.text()}


def test_a_preset_picked_in_the_header_answers_the_chat(make_chat: Any) -> None:
    """The presets are entries of the picker; picking one saves it in the shown chat (nanobot's
    session key), the header shows it, and the chat's next turn goes to the preset's model
    with its settings. "No preset for this chat" takes it off again."""
    chat: ChatHarness = make_chat(ready=False)
    config = chat.services.config
    config.providers.custom.api_base = chat.server.url
    config.model_presets["careful"] = ModelPresetConfig(
        model="careful-model", provider="custom", temperature=0.42, max_tokens=777
    )
    chat.server.route = lambda body: Reply(f"answered by {body['model']}")
    chat.make_ready()
    chat.tab.refresh_model()
    actions = _actions(chat)
    entry = actions["careful  ·  careful-model"]
    assert entry.isCheckable() and not entry.isChecked()
    entry.trigger()
    picker = chat.tab.pane.picker
    chat.wait(lambda: picker.preset == "careful")
    assert picker.text().startswith("careful · careful-model")
    key = chat.tab.current
    sessions = chat.agent.sessions
    assert sessions.get_or_create(key).metadata[SESSION_PRESET] == "careful"
    assert _actions(chat)["careful  ·  careful-model"].isChecked()

    chat.send("hello")
    chat.idle()
    [request] = chat.requests()
    assert request["model"] == "careful-model"
    assert request["temperature"] == 0.42 and request["max_tokens"] == 777
    assert [i.text for i in chat.items() if i.kind == "assistant"] == ["answered by careful-model"]

    _actions(chat)["No preset for this chat"].trigger()
    chat.wait(lambda: picker.preset == "")
    assert SESSION_PRESET not in sessions.get_or_create(key).metadata
    assert not picker.text().startswith("careful")
