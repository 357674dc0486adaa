"""Skills: frontmatter parsing, override, availability, prompt parts, cache, builtin skills."""

from __future__ import annotations

import dataclasses
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.context import ContextBuilder
from desktop.core.engine import skills as skills_module
from desktop.core.engine.skills import Skill, SkillsLoader, split_frontmatter
from desktop.core.providers.tokens import count_text
from desktop.core.utils.resources import data_path
from tests.typed import present

BUILTIN_NAMES = ["cron", "github", "memory", "skill-creator", "summarize", "tmux", "weather"]


def write_skill(
    base: Path, name: str, frontmatter: str, body: str = "# Title\n\nDo the thing.\n"
) -> Path:
    """Create ``base/<name>/SKILL.md`` from raw frontmatter text (without the --- lines)."""
    folder = base / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\n{frontmatter.strip()}\n---\n\n{body}", encoding="utf-8")
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """(workspace, builtin dir), both empty."""
    workspace = tmp_path / "ws"
    builtin = tmp_path / "builtin"
    (workspace / "skills").mkdir(parents=True)
    builtin.mkdir()
    return workspace, builtin


@pytest.fixture
def fake_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH reduced to one folder holding a single executable, ``fakebin``."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "fakebin"
    exe.write_text("#!/bin/sh\n", encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", str(bindir))
    return bindir


# -- parsing -------------------------------------------------------------------------------


def test_yaml_mapping_metadata(
    dirs: tuple[Path, Path], fake_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, builtin = dirs
    monkeypatch.setenv("SKILL_TEST_TOKEN", "x")
    path = write_skill(
        workspace / "skills",
        "deploy",
        """
name: deploy
description: Deploy the site.
metadata:
  nanobot:
    requires:
      bins: [fakebin]
      env: [SKILL_TEST_TOKEN]
""",
    )
    [skill] = SkillsLoader(workspace, builtin).list_skills()
    assert skill == Skill(
        name="deploy",
        description="Deploy the site.",
        path=path,
        source="workspace",
        always=False,
        requires_bins=("fakebin",),
        requires_env=("SKILL_TEST_TOKEN",),
        available=True,
        missing=(),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        skill.name = "other"  # type: ignore[misc]


def test_json_string_metadata(dirs: tuple[Path, Path], fake_path: Path) -> None:
    workspace, builtin = dirs
    write_skill(
        workspace / "skills",
        "lookup",
        """
name: lookup
description: "Look things up: quickly."
always: "true"
metadata: '{"nanobot": {"requires": {"bins": ["fakebin", "nosuchbin"]}}}'
""",
    )
    [skill] = SkillsLoader(workspace, builtin).list_skills()
    assert skill.description == "Look things up: quickly."
    assert skill.always is True
    assert skill.requires_bins == ("fakebin", "nosuchbin")
    assert skill.missing == ("binary: nosuchbin",)
    assert not skill.available


def test_original_nanobot_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A workspace skills folder as nanobot writes it: JSON-in-YAML metadata, extra keys, CRLF."""
    workspace = tmp_path / "nanobot-ws"
    skills = workspace / "skills"
    (skills / "weather").mkdir(parents=True)
    (skills / "weather" / "SKILL.md").write_text(
        "---\n"
        "name: weather\n"
        "description: Get current weather and forecasts (no API key required).\n"
        "homepage: https://wttr.in/:help\n"
        'metadata: {"nanobot":{"emoji":"🌤️","requires":{"bins":["curl"]}}}\n'
        "---\n\n# Weather\n\nUse curl.\n",
        encoding="utf-8",
    )
    (skills / "notes").mkdir()
    (skills / "notes" / "SKILL.md").write_bytes(
        b'---\r\nname: notes\r\ndescription: Keep notes.\r\nmetadata: {"openclaw":{"always":true}}\r\n'
        b"---\r\n\r\n# Notes\r\n\r\nWrite notes.\r\n"
    )
    (skills / "my" / "references").mkdir(parents=True)  # extra files and folders are fine
    (skills / "my" / "SKILL.md").write_text(
        "---\nname: my\ndescription: Inspect runtime state.\n---\n\n# Self\n", encoding="utf-8"
    )
    (skills / "my" / "references" / "examples.md").write_text("x", encoding="utf-8")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    curl = bindir / "curl"
    curl.write_text("#!/bin/sh\n", encoding="utf-8")
    curl.chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))
    empty = tmp_path / "no-builtins"
    empty.mkdir()

    loader = SkillsLoader(workspace, builtin_dir=empty)
    assert loader.errors == {}
    by_name = {s.name: s for s in loader.list_skills()}
    assert sorted(by_name) == ["my", "notes", "weather"]
    weather = by_name["weather"]
    assert weather.requires_bins == ("curl",)
    assert weather.available and weather.source == "workspace"
    assert weather.description == "Get current weather and forecasts (no API key required)."
    assert by_name["notes"].always is True
    assert loader.load_skill_body("notes") == "# Notes\n\nWrite notes."
    assert loader.load_skill_body("weather") == "# Weather\n\nUse curl."

    monkeypatch.setenv("PATH", str(empty))
    assert present(loader.get_skill("weather")).missing == ("binary: curl",)


def test_split_frontmatter_edge_cases() -> None:
    assert split_frontmatter("---\nname: a\n---\nbody\n") == ("name: a", "body")
    assert split_frontmatter("---\n---\nbody") == ("", "body")
    assert split_frontmatter("\ufeff---\nname: a\n---") == ("name: a", "")
    assert split_frontmatter("no frontmatter\n---\n") == (None, "no frontmatter\n---")
    assert split_frontmatter("---\nname: a\n----\nbody") == (None, "---\nname: a\n----\nbody")


# -- override, availability ----------------------------------------------------------------


def test_workspace_overrides_builtin(dirs: tuple[Path, Path]) -> None:
    workspace, builtin = dirs
    write_skill(builtin, "greet", "name: greet\ndescription: Builtin greeting.", "builtin body")
    write_skill(builtin, "other", "name: other\ndescription: Untouched.")
    mine = write_skill(
        workspace / "skills", "greet", "name: greet\ndescription: My greeting.", "my body"
    )
    loader = SkillsLoader(workspace, builtin)
    greet = loader.get_skill("greet")
    assert greet is not None
    assert (greet.source, greet.description, greet.path) == ("workspace", "My greeting.", mine)
    assert loader.load_skill_body("greet") == "my body"
    assert [s.name for s in loader.list_skills()] == ["greet", "other"]
    summary = loader.sections()[-1]
    assert "- greet — My greeting. — skills/greet/SKILL.md" in summary
    assert "Builtin greeting" not in summary
    assert f"— {loader._display_path(loader.get_skill('other'))}" in summary  # type: ignore[arg-type]


def test_missing_binary_and_env(
    dirs: tuple[Path, Path], fake_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, builtin = dirs
    monkeypatch.delenv("SKILL_TEST_TOKEN", raising=False)
    write_skill(
        workspace / "skills",
        "gh-like",
        """
name: gh-like
description: Needs a program and a token.
metadata: {"nanobot": {"requires": {"bins": ["fakebin", "gh-missing"], "env": ["SKILL_TEST_TOKEN"]}}}
""",
    )
    loader = SkillsLoader(workspace, builtin)
    skill = loader.get_skill("gh-like")
    assert skill is not None and not skill.available
    assert skill.missing == ("binary: gh-missing", "env: SKILL_TEST_TOKEN")
    assert (
        "(unavailable: missing binary: gh-missing, env: SKILL_TEST_TOKEN)" in loader.sections()[-1]
    )

    monkeypatch.setenv("SKILL_TEST_TOKEN", "")  # set but empty counts as missing
    assert present(loader.get_skill("gh-like")).missing == (
        "binary: gh-missing",
        "env: SKILL_TEST_TOKEN",
    )
    monkeypatch.setenv("SKILL_TEST_TOKEN", "secret")
    (fake_path / "gh-missing").write_text("#!/bin/sh\n", encoding="utf-8")
    (fake_path / "gh-missing").chmod(0o755)
    skill = loader.get_skill("gh-like")
    assert skill is not None and skill.available and skill.missing == ()
    assert "unavailable" not in loader.sections()[-1]  # neither the tag nor the note


# -- malformed -----------------------------------------------------------------------------


def test_malformed_frontmatter_is_skipped_and_reported(
    dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    workspace, builtin = dirs
    base = workspace / "skills"
    write_skill(base, "good", "name: good\ndescription: Fine.")
    write_skill(base, "bad-yaml", "name: bad-yaml\ndescription: Use when: this breaks YAML")
    write_skill(base, "bad-json", "name: bad-json\ndescription: x\nmetadata: '{\"nanobot\": {'")
    write_skill(base, "bad-shape", "- just\n- a list")
    write_skill(
        base,
        "bad-bins",
        "name: bad-bins\ndescription: x\nmetadata: {nanobot: {requires: {bins: 5}}}",
    )
    write_skill(base, "no-desc", "name: no-desc")
    write_skill(base, "wrong-name", "name: something-else\ndescription: x")
    (base / "no-front").mkdir()
    (base / "no-front" / "SKILL.md").write_text("# Just markdown\n", encoding="utf-8")
    (base / "unterminated").mkdir()
    (base / "unterminated" / "SKILL.md").write_text("---\nname: unterminated\n", encoding="utf-8")
    (base / "binary").mkdir()
    (base / "binary" / "SKILL.md").write_bytes(b"---\xff\xfe\x00\n")
    (base / "empty-folder").mkdir()  # no SKILL.md: simply not a skill

    with caplog.at_level(logging.WARNING, logger="desktop.core.engine.skills"):
        loader = SkillsLoader(workspace, builtin)
        assert [s.name for s in loader.list_skills()] == ["good"]
    errors = {path.parent.name: message for path, message in loader.errors.items()}
    assert sorted(errors) == [
        "bad-bins",
        "bad-json",
        "bad-shape",
        "bad-yaml",
        "binary",
        "no-desc",
        "no-front",
        "unterminated",
        "wrong-name",
    ]
    assert "not valid YAML" in errors["bad-yaml"]
    assert "not valid JSON" in errors["bad-json"]
    assert "mapping" in errors["bad-shape"]
    assert "list of names" in errors["bad-bins"]
    assert "description" in errors["no-desc"]
    assert "folder name" in errors["wrong-name"]
    assert "no frontmatter" in errors["no-front"] and "no frontmatter" in errors["unterminated"]
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 9 and all("Skipping skill" in m for m in warned)
    assert loader.sections() == [
        "# Skills\n\n" + skills_module.SUMMARY_INTRO + "\n\n- good — Fine. — skills/good/SKILL.md"
    ]

    # Fixing a broken skill clears its error on the next scan.
    write_skill(base, "bad-yaml", 'name: bad-yaml\ndescription: "Use when: quoted"')
    assert "bad-yaml" not in {p.parent.name for p in loader.errors}
    assert present(loader.get_skill("bad-yaml")).description == "Use when: quoted"


# -- prompt parts --------------------------------------------------------------------------


def test_sections_content_order_and_stability(dirs: tuple[Path, Path], fake_path: Path) -> None:
    workspace, builtin = dirs
    write_skill(builtin, "zeta", "name: zeta\ndescription: Last one.")
    write_skill(
        builtin,
        "alpha",
        "name: alpha\ndescription: First one.\nalways: true",
        "# Alpha\n\nAlways do A.\n",
    )
    write_skill(
        workspace / "skills",
        "beta",
        "name: beta\ndescription: |\n  Second\n  one.\nalways: true",
        "Always do B.\n",
    )
    write_skill(
        workspace / "skills",
        "mid",
        "name: mid\ndescription: Needs a tool.\n"
        'metadata: {"nanobot": {"requires": {"bins": ["nosuchbin"]}}}',
    )
    loader = SkillsLoader(workspace, builtin)
    first = loader.sections()
    assert len(first) == 2
    active, summary = first
    assert active == "# Active Skills\n\n## alpha\n\nAlways do A.\n\n## beta\n\nAlways do B."
    lines = summary.splitlines()
    assert lines[0] == "# Skills"
    assert "read its SKILL.md with read_file" in summary
    entries = [line for line in lines if line.startswith("- ")]
    assert entries == [
        "- mid — Needs a tool. — skills/mid/SKILL.md (unavailable: missing binary: nosuchbin)",
        f"- zeta — Last one. — {loader._display_path(loader.get_skill('zeta'))}",  # type: ignore[arg-type]
    ]
    # Byte-identical on every call and from a fresh loader (prompt caching).
    assert loader.sections() == first
    assert SkillsLoader(workspace, builtin).sections() == first
    assert "\n\n---\n\n".join(loader.sections()).encode() == "\n\n---\n\n".join(first).encode()


def test_always_skill_only_active_when_available(dirs: tuple[Path, Path], fake_path: Path) -> None:
    workspace, builtin = dirs
    write_skill(
        workspace / "skills",
        "pinned",
        "name: pinned\ndescription: Always on.\nalways: true\n"
        'metadata: {"nanobot": {"requires": {"bins": ["pinbin"]}}}',
        "Pinned body.\n",
    )
    loader = SkillsLoader(workspace, builtin)
    [summary] = loader.sections()  # unavailable: no Active Skills part at all
    assert summary.startswith("# Skills")
    assert (
        "- pinned — Always on. — skills/pinned/SKILL.md (unavailable: missing binary: pinbin)"
        in summary
    )
    assert "Pinned body." not in summary

    (fake_path / "pinbin").write_text("#!/bin/sh\n", encoding="utf-8")
    (fake_path / "pinbin").chmod(0o755)
    assert loader.sections() == ["# Active Skills\n\n## pinned\n\nPinned body."]


def test_no_skills_no_parts(tmp_path: Path) -> None:
    loader = SkillsLoader(tmp_path / "missing-ws", builtin_dir=tmp_path / "missing-builtin")
    assert loader.sections() == [] and loader.list_skills() == [] and loader.errors == {}
    assert loader.load_skill_body("anything") is None


def test_context_builder_places_skills_between_memory_and_history(dirs: tuple[Path, Path]) -> None:
    workspace, builtin = dirs
    write_skill(
        builtin, "pinned", "name: pinned\ndescription: Always on.\nalways: true", "Pinned body.\n"
    )
    write_skill(builtin, "extra", "name: extra\ndescription: On demand.")
    (workspace / "memory").mkdir()
    (workspace / "memory" / "MEMORY.md").write_text(
        "# Long-term Memory\n\nLikes tea.\n", encoding="utf-8"
    )
    (workspace / "memory" / "history.jsonl").write_text(
        '{"cursor": 1, "timestamp": "2025-01-01 10:00", "content": "Talked about tea."}\n',
        encoding="utf-8",
    )
    prompt = ContextBuilder(
        workspace, skills_section=SkillsLoader(workspace, builtin).sections
    ).system_prompt("cli")
    positions = [
        prompt.index(h) for h in ("# Memory", "# Active Skills", "# Skills", "# Recent History")
    ]
    assert positions == sorted(positions)
    assert "Pinned body." in prompt and "- extra — On demand." in prompt


# -- cache ---------------------------------------------------------------------------------


def test_cache_reuses_parse_and_invalidates_on_change(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, builtin = dirs
    calls: list[str] = []
    real_parse = skills_module.parse_skill

    def counting_parse(text: str, folder_name: str) -> Any:
        calls.append(folder_name)
        return real_parse(text, folder_name)

    monkeypatch.setattr(skills_module, "parse_skill", counting_parse)
    path = write_skill(workspace / "skills", "notes", "name: notes\ndescription: Old description.")
    loader = SkillsLoader(workspace, builtin)
    first = loader.sections()
    for _ in range(5):
        assert loader.sections() == first
        loader.list_skills()
    assert calls == ["notes"]  # parsed once, then served from the cache

    # Same size, same second: the mtime_ns / inode stamp still sees the change.
    path.write_text(path.read_text(encoding="utf-8").replace("Old", "New"), encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert "New description." in loader.sections()[-1]
    assert calls == ["notes", "notes"]

    # A new skill folder appears, a removed one disappears.
    write_skill(workspace / "skills", "added", "name: added\ndescription: Fresh.")
    assert "- added — Fresh." in loader.sections()[-1]
    path.unlink()
    assert [s.name for s in loader.list_skills()] == ["added"]
    assert loader.load_skill_body("notes") is None


# -- builtin skills ------------------------------------------------------------------------


@pytest.fixture
def builtin_loader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SkillsLoader:
    """The shipped skills with nothing on PATH: every requirement missing (the longest summary)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return SkillsLoader(tmp_path / "ws")


def test_every_builtin_skill_parses(builtin_loader: SkillsLoader) -> None:
    builtin_dir = data_path("skills")
    assert builtin_loader.builtin_dir == builtin_dir
    folders = sorted(
        p.name for p in builtin_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )
    assert folders == BUILTIN_NAMES
    assert (builtin_dir / "README.md").is_file()
    assert builtin_loader.errors == {}
    skills = builtin_loader.list_skills()
    assert [s.name for s in skills] == BUILTIN_NAMES
    for skill in skills:
        assert skill.path == builtin_dir / skill.name / "SKILL.md"
        assert skill.source == "builtin"
        assert skill.description and len(skill.description) <= 120, skill.name
        body = builtin_loader.load_skill_body(skill.name)
        assert body and body.startswith("# "), skill.name
        assert len(skill.path.read_text(encoding="utf-8").splitlines()) <= 60, skill.name
    requires = {s.name: s.requires_bins for s in skills if s.requires_bins}
    assert requires == {"github": ("gh",), "tmux": ("tmux",), "weather": ("curl",)}
    assert [s.name for s in skills if s.always] == ["memory"]
    assert all(not s.requires_env for s in skills)


def test_builtin_token_budgets(builtin_loader: SkillsLoader) -> None:
    skills = builtin_loader.list_skills()
    full_summary = builtin_loader.summary_section(skills)  # all 7, three marked unavailable
    assert full_summary.count("\n- ") == 7
    assert count_text(full_summary) < 350, count_text(full_summary)
    memory_body = builtin_loader.load_skill_body("memory") or ""
    assert count_text(memory_body) < 250, count_text(memory_body)
    active, summary = builtin_loader.sections()
    assert active.startswith("# Active Skills\n\n## memory\n\n")
    assert "- memory —" not in summary  # already in full above
    assert count_text(active) < 260 and count_text(summary) < 350


def test_memory_skill_matches_the_tools() -> None:
    body = (data_path("skills", "memory", "SKILL.md")).read_text(encoding="utf-8")
    for fact in (
        "memory/MEMORY.md",
        "memory/history.jsonl",
        "USER.md",
        "SOUL.md",
        "Dream",
        "grep(",
        "edit_file",
    ):
        assert fact in body, fact
