"""Hunks: splitting a change, stable ids, applying a subset to a text that changed since."""

from __future__ import annotations

import random

import pytest

from desktop.core.memory.hunks import apply_hunks, split_hunks

BASE = "".join(f"- fact {n}\n" for n in range(1, 21))


def edited(text: str, **changes: str) -> str:
    """``text`` with whole lines replaced: ``edited(t, **{"- fact 3": "- fact three"})``."""
    lines = text.splitlines(keepends=True)
    for old, new in changes.items():
        index = lines.index(old + "\n")
        lines[index] = new + "\n" if new else ""
    return "".join(lines)


def three_changes() -> str:
    after = edited(BASE, **{"- fact 2": "- fact two", "- fact 10": "", "- fact 18": "- fact 18"})
    return after.replace("- fact 18\n", "- fact 18\n- fact 18b\n")


def test_split_then_apply_all_gives_the_new_text_and_none_the_old() -> None:
    after = three_changes()
    hunks = split_hunks("memory/MEMORY.md", BASE, after)
    assert [(h.deletions, h.additions) for h in hunks] == [(1, 1), (1, 0), (0, 1)]
    assert apply_hunks(BASE, hunks).text == after
    assert apply_hunks(BASE, []).text == BASE
    assert split_hunks("x", BASE, BASE) == []


def test_a_subset_applies_only_those_hunks() -> None:
    after = three_changes()
    first, _second, third = split_hunks("m", BASE, after)
    result = apply_hunks(BASE, [first, third])
    assert result.applied == (first.id, third.id) and result.not_applicable == ()
    assert "- fact two\n" in result.text and "- fact 10\n" in result.text
    assert "- fact 18b\n" in result.text


def test_ids_are_stable_and_survive_an_edit_of_another_hunk() -> None:
    after = three_changes()
    ids = [h.id for h in split_hunks("m", BASE, after)]
    assert ids == [h.id for h in split_hunks("m", BASE, after)]
    assert len(set(ids)) == 3
    changed = after.replace("- fact 18b", "- fact 18c")
    again = [h.id for h in split_hunks("m", BASE, changed)]
    assert again[:2] == ids[:2] and again[2] != ids[2]
    assert split_hunks("other", BASE, after)[0].id != ids[0]  # the file is part of the id


def test_applies_to_a_text_changed_elsewhere_and_refuses_a_changed_line() -> None:
    after = three_changes()
    first, second, third = split_hunks("m", BASE, after)
    # someone inserted lines in the middle and edited the line the second hunk removes
    current = BASE.replace("- fact 10\n", "- fact 10 (edited)\n").replace(
        "- fact 14\n", "- fact 14\n## Later\n- added\n"
    )
    result = apply_hunks(current, [first, second, third])
    assert result.applied == (first.id, third.id)
    assert result.not_applicable == (second.id,)
    assert result.text.startswith("- fact 1\n- fact two\n")
    assert "- fact 10 (edited)\n" in result.text and "- fact 18\n- fact 18b\n" in result.text
    # a hunk with its full context moves with the text (here: lines added at the top)
    (middle,) = split_hunks("m", BASE, edited(BASE, **{"- fact 10": "- fact ten"}))
    assert not middle.at_start
    moved = apply_hunks("# Heading\n\n" + BASE, [middle])
    assert moved.text == "# Heading\n\n" + edited(BASE, **{"- fact 10": "- fact ten"})


def test_context_lines_changed_make_a_hunk_not_applicable() -> None:
    (hunk,) = split_hunks("m", BASE, edited(BASE, **{"- fact 10": "- fact ten"}))
    current = BASE.replace("- fact 9\n", "- fact nine\n")
    result = apply_hunks(current, [hunk])
    assert result.not_applicable == (hunk.id,) and result.text == current


def test_hunks_at_the_edges_stay_at_the_edges() -> None:
    text = "a\nb\nc\n"
    top, bottom = split_hunks("m", text, "new\na\nb\nc\nend\n")
    assert top.at_start and bottom.at_end
    moved = "x\na\nb\nc\ny\n"  # lines added before and after: the edges moved
    result = apply_hunks(moved, [top, bottom])
    assert result.not_applicable == (top.id, bottom.id)
    assert apply_hunks(text, [bottom]).text == "a\nb\nc\nend\n"


def test_neighbouring_hunks_can_be_taken_alone() -> None:
    text = "a\nb\nc\nd\ne\n"
    after = "A\nb\nC\nd\nE\n"
    hunks = split_hunks("m", text, after)
    assert len(hunks) == 3
    for keep in hunks:
        result = apply_hunks(text, [keep])
        assert result.applied == (keep.id,)
    assert apply_hunks(text, [hunks[0], hunks[2]]).text == "A\nb\nc\nd\nE\n"


def test_new_file_and_missing_final_newline() -> None:
    (hunk,) = split_hunks("skills/x/SKILL.md", "", "---\nname: x\n---\n")
    assert apply_hunks("", [hunk]).text == "---\nname: x\n---\n"
    assert apply_hunks("someone wrote this\n", [hunk]).not_applicable == (hunk.id,)
    (tail,) = split_hunks("m", "a\nb", "a\nb\nc\n")
    assert apply_hunks("a\nb", [tail]).text == "a\nb\nc\n"


def test_inverse_undoes_a_hunk() -> None:
    after = three_changes()
    hunks = split_hunks("m", BASE, after)
    undone = apply_hunks(after, [hunks[1].inverse()])
    assert undone.text == after.replace("- fact 11\n", "- fact 10\n- fact 11\n")


@pytest.mark.parametrize("seed", range(200))
def test_random_edits_any_subset_applies_to_the_original(seed: int) -> None:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "", "# Heading", "delta"]
    base_lines = [rng.choice(words) + "\n" for _ in range(rng.randint(0, 25))]
    new_lines = list(base_lines)
    for _ in range(rng.randint(1, 6)):
        op = rng.choice(["ins", "del", "rep"])
        spot = rng.randint(0, len(new_lines))
        if op == "ins" or not new_lines:
            new_lines.insert(spot, rng.choice(words) + " new\n")
        elif op == "del":
            del new_lines[min(spot, len(new_lines) - 1)]
        else:
            new_lines[min(spot, len(new_lines) - 1)] = rng.choice(words) + " changed\n"
    base, after = "".join(base_lines), "".join(new_lines)
    hunks = split_hunks("m", base, after)
    assert apply_hunks(base, hunks).text == after
    subset = [h for h in hunks if rng.random() < 0.5]
    result = apply_hunks(base, subset)
    assert result.not_applicable == ()
    assert set(result.applied) == {h.id for h in subset}
    expected = list(base_lines)  # each hunk lands exactly where it was made
    for hunk in sorted(subset, key=lambda h: -h.old_start):
        expected[hunk.old_start : hunk.old_start + hunk.deletions] = list(hunk.new)
    assert result.text == "".join(expected)
