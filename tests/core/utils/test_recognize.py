"""Stored English read back as the phrase it was (:func:`recognize`)."""

from __future__ import annotations

from desktop.core.utils.i18n import Phrase, recognize

TEMPLATES = (
    "Paused by the budget: {message}.",
    "{name} wants to run; {budget}",
    "today's {whose} budget is {limit} and {spent} are spent",
    "chat",
    "{who} and {who} again",
)


def test_a_nested_phrase_is_read_back_with_its_fields() -> None:
    text = "Paused by the budget: chat wants to run; today's chat budget is 5k and 6k are spent."
    said = recognize(text, TEMPLATES)
    assert said == text and isinstance(said, Phrase)
    assert said.template == "Paused by the budget: {message}."
    inner = said.fields["message"]
    assert isinstance(inner, Phrase) and inner.template == "{name} wants to run; {budget}"
    assert isinstance(inner.fields["name"], Phrase)  # "chat", a fixed text of its own
    budget = inner.fields["budget"]
    assert isinstance(budget, Phrase) and budget.fields["limit"] == "5k"
    assert type(budget.fields["limit"]) is str  # data stays data


def test_other_text_stays_as_it_is() -> None:
    for text in ("the disk is full", "Paused by the budget: nothing", "", "{message}"):
        said = recognize(text, TEMPLATES)
        assert said == text and not isinstance(said, Phrase)


def test_a_field_used_twice_must_read_the_same() -> None:
    assert isinstance(recognize("Ann and Ann again", TEMPLATES), Phrase)
    assert not isinstance(recognize("Ann and Bob again", TEMPLATES), Phrase)
