"""Skills: folders with a ``SKILL.md`` that teach the agent a workflow (progressive loading).

A skill is ``skills/<name>/SKILL.md`` in the workspace or in the builtin skills folder that
ships with the app; a workspace skill overrides a builtin of the same name. ``SKILL.md`` starts
with YAML frontmatter in nanobot's format (DESIGN §5)::

    ---
    name: weather
    description: Current weather and forecasts.
    always: false                       # optional; also read from metadata.nanobot.always
    metadata: {"nanobot": {"requires": {"bins": ["curl"], "env": ["SOME_KEY"]}}}
    ---

``metadata`` may be a YAML mapping or a JSON string; ``openclaw`` is accepted in place of
``nanobot``. A skill is *available* when every required binary is on PATH and every required
environment variable is set (non-empty).

The system prompt gets two parts from :meth:`SkillsLoader.sections`: ``# Active Skills`` with
the full bodies of always-on available skills, and ``# Skills``, one line for each other skill
with the SKILL.md path the model reads with ``read_file`` when it needs it. Both are sorted
and cached, so they stay byte-identical between turns (prompt caching) and cost a few ``stat``
calls to rebuild. A skill whose frontmatter cannot be parsed is skipped, logged, and reported in
:attr:`SkillsLoader.errors`.

Workspace skills are read without following a symlink (:mod:`desktop.core.utils.ownfiles`):
a command the model ran may have linked a ``SKILL.md`` (or a skill folder) to a file elsewhere,
whose text would otherwise land in the system prompt. A linked skill, or one whose ``SKILL.md``
is a FIFO, is listed with the reason in :attr:`SkillsLoader.errors` and never read.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from desktop.core.utils import ownfiles
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.resources import data_path, read_template
from desktop.core.utils.validate import notify, parse_json

log = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
ACTIVE_HEADER = "# Active Skills"
SUMMARY_HEADER = "# Skills"
# templates/agent/skills_section.md: line 1 introduces the summary, line 2 explains
# "unavailable" (shown only when some skill is).
SUMMARY_INTRO, UNAVAILABLE_NOTE = (
    read_template("agent", "skills_section.md").strip().splitlines()[:2]
)

# Opening ``---`` line, the YAML (group 1), closing ``---`` on its own line; CRLF tolerated.
_FRONTMATTER = re.compile(
    r"\A\ufeff?---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE
)
_LEADING_H1 = re.compile(r"\A#[ \t][^\n]*\n+")

Source = Literal["builtin", "workspace"]
_StatKey = tuple[int, int, int]


class SkillFormatError(ValueError):
    """A SKILL.md whose frontmatter cannot be used."""


@dataclass(frozen=True)
class Skill:
    """One skill as found on disk.

    Attributes:
        name: The skill's name (its folder name).
        description: One line saying what it does and when to use it.
        path: Absolute path of its SKILL.md.
        source: ``"builtin"`` or ``"workspace"``.
        always: Whether its body goes into every system prompt (when available).
        requires_bins: Programs that must be on PATH.
        requires_env: Environment variables that must be set.
        available: Whether every requirement is met right now.
        missing: What is missing, e.g. ``("binary: gh", "env: GITHUB_TOKEN")``.
    """

    name: str
    description: str
    path: Path
    source: Source
    always: bool = False
    requires_bins: tuple[str, ...] = ()
    requires_env: tuple[str, ...] = ()
    available: bool = True
    missing: tuple[str, ...] = ()


#: A skill folder name: lowercase letters and digits in hyphen-separated words.
SKILL_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
SKILL_NAME_MAX = 64


def skill_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a skill folder name, or ``None`` when it can."""
    if not name:
        return QT_TR_NOOP("Give the skill a name.")
    if len(name) > SKILL_NAME_MAX:
        return Phrase(
            QT_TR_NOOP("A skill name has at most {count} characters."), count=SKILL_NAME_MAX
        )
    if not SKILL_NAME.fullmatch(name):
        return QT_TR_NOOP(
            "Use lowercase letters, digits and single hyphens between words "
            "(for example: pdf-tables)."
        )
    return None


@dataclass(frozen=True)
class SkillListing:
    """One ``SKILL.md`` found on disk, usable or not (what a skills manager shows).

    Attributes:
        name: The folder name.
        path: Absolute path of the SKILL.md.
        source: ``"builtin"`` or ``"workspace"``.
        skill: The parsed skill with its availability; ``None`` when the file is unusable.
        error: Why the file is skipped (``None`` when usable).
        shadowed: A builtin replaced by a workspace skill of the same name.
    """

    name: str
    path: Path
    source: Source
    skill: Skill | None = None
    error: str | None = None
    shadowed: bool = False


@dataclass(frozen=True)
class _Parsed:
    """What a SKILL.md says, before availability is checked."""

    name: str
    description: str
    always: bool
    bins: tuple[str, ...]
    env: tuple[str, ...]
    body: str


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """``(frontmatter YAML or None, body)`` of a SKILL.md's text; the body is stripped."""
    match = _FRONTMATTER.match(text)
    if not match:
        return None, text.strip()
    return match.group(1), text[match.end() :].strip()


def _string_list(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SkillFormatError(Phrase(QT_TR_NOOP("{field} must be a list of names"), field=what))
    return tuple(v.strip() for v in value)


def _nanobot_metadata(raw: Any) -> dict[str, Any]:
    """The ``nanobot`` (or ``openclaw``) block of ``metadata``, which may be JSON text."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = parse_json(raw)
        except ValueError as exc:
            raise SkillFormatError(
                Phrase(QT_TR_NOOP("metadata is not valid JSON: {error}"), error=str(exc))
            ) from None
    if not isinstance(raw, dict):
        raise SkillFormatError(Phrase(QT_TR_NOOP("metadata must be a mapping")))
    block = raw.get("nanobot", raw.get("openclaw", {}))
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise SkillFormatError(Phrase(QT_TR_NOOP("metadata.nanobot must be a mapping")))
    return block


def _flag(value: Any, what: str) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise SkillFormatError(Phrase(QT_TR_NOOP("{field} must be true or false"), field=what))


def parse_skill(text: str, folder_name: str) -> _Parsed:
    """Parse a SKILL.md's text.

    Args:
        text: The file's content.
        folder_name: The skill folder's name, which is the skill's name.

    Raises:
        SkillFormatError: No or malformed frontmatter, a name that differs from the folder,
            no description, or requirement fields of the wrong shape.
    """
    raw, body = split_frontmatter(text)
    if raw is None:
        raise SkillFormatError(
            Phrase(QT_TR_NOOP("no frontmatter (the file must start with a --- block)"))
        )
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SkillFormatError(
            Phrase(QT_TR_NOOP("frontmatter is not valid YAML: {error}"), error=first)
        ) from None
    except RecursionError:  # PyYAML builds nested values recursively
        raise SkillFormatError(
            Phrase(QT_TR_NOOP("frontmatter is nested too deeply to read"))
        ) from None
    if not isinstance(data, dict):
        raise SkillFormatError(Phrase(QT_TR_NOOP("frontmatter must be a mapping of fields")))
    name = data.get("name", folder_name)
    if not isinstance(name, str) or name.strip() != folder_name:
        raise SkillFormatError(
            Phrase(
                QT_TR_NOOP("name {name} does not match the folder name {folder}"),
                name=repr(name),
                folder=repr(folder_name),
            )
        )
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillFormatError(Phrase(QT_TR_NOOP("description is missing")))
    meta = _nanobot_metadata(data.get("metadata"))
    requires = meta.get("requires") or {}
    if not isinstance(requires, dict):
        raise SkillFormatError(Phrase(QT_TR_NOOP("metadata.nanobot.requires must be a mapping")))
    always = _flag(data.get("always"), "always")
    always = always or _flag(meta.get("always"), "metadata.nanobot.always")
    return _Parsed(
        name=folder_name,
        description=" ".join(description.split()),
        always=always,
        bins=_string_list(requires.get("bins"), "requires.bins"),
        env=_string_list(requires.get("env"), "requires.env"),
        body=body,
    )


def _stat_key(path: Path, *, follow: bool = True) -> _StatKey | None:
    try:
        st = path.stat() if follow else os.lstat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class SkillsLoader:
    """Finds, parses and caches skills; renders the skills parts of the system prompt.

    Args:
        workspace: The workspace; its ``skills/`` folder holds the user's skills.
        builtin_dir: The builtin skills folder (default: the one shipped with the app).
    """

    def __init__(self, workspace: Path, builtin_dir: Path | None = None) -> None:
        self.workspace = Path(workspace).expanduser()
        self.builtin_dir = Path(builtin_dir) if builtin_dir is not None else data_path("skills")
        self._parsed: dict[Path, tuple[_StatKey, _Parsed | str]] = {}
        self._errors: dict[Path, str] = {}
        self._sections_key: tuple[Any, ...] | None = None
        self._sections: list[str] = []

    @property
    def workspace_dir(self) -> Path:
        """``<workspace>/skills``."""
        return self.workspace / "skills"

    # -- discovery ------------------------------------------------------------------------
    def _candidates(self, base: Path) -> list[tuple[str, Path]]:
        """``(folder name, SKILL.md path)`` of each skill folder under ``base``.

        Under the workspace nothing is followed: a linked skill folder, or a ``SKILL.md`` that
        is a link or special file, is still a candidate (its load reports why it is skipped).
        """
        if base != self.workspace_dir:
            try:
                folders = sorted(p for p in base.iterdir() if not p.name.startswith("."))
            except OSError:
                return []
            return [(p.name, p / SKILL_FILE) for p in folders if (p / SKILL_FILE).is_file()]
        root = self.workspace
        if ownfiles.entry_kind(base, root=root) in ("link", "folder-link"):
            notify(f"{base} is a symbolic link; workspace skills are not read through links")
            return []
        found: list[tuple[str, Path]] = []
        for name, kind in ownfiles.list_folder(base, root=root):
            path = base / name / SKILL_FILE
            if name.startswith(".") or kind not in ("folder", "link"):
                continue
            if kind == "folder" and ownfiles.entry_kind(path, root=root) in ("missing", "folder"):
                continue
            found.append((name, path))
        return found

    def _read(self, path: Path) -> str:
        """A SKILL.md's text; under the workspace without following a link.

        Raises:
            OSError: Unreadable, or (workspace) a link, FIFO or linked folder
                (:class:`~desktop.core.utils.ownfiles.Refused`).
            UnicodeDecodeError: Not UTF-8.
        """
        if not path.is_relative_to(self.workspace_dir):
            return path.read_text(encoding="utf-8")
        data = ownfiles.read_bytes(path, root=self.workspace)
        if data is None:
            raise FileNotFoundError(2, "No such file or directory", str(path))
        # Universal newlines, as ``read_text`` reads them (CRLF files are common in skills).
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")

    def _load(self, path: Path, folder_name: str) -> tuple[_StatKey, _Parsed | str] | None:
        """The parsed file (or its error text), re-read only when its stat key changed."""
        own = path.is_relative_to(self.workspace_dir)
        key = _stat_key(path, follow=not own) or (
            _stat_key(path.parent, follow=False) if own else None
        )
        if key is None:
            return None
        cached = self._parsed.get(path)
        if cached is not None and cached[0] == key:
            return cached
        try:
            result: _Parsed | str = parse_skill(self._read(path), folder_name)
        except (OSError, UnicodeDecodeError, SkillFormatError) as exc:
            said = exc.args[0] if len(exc.args) == 1 else None
            result = said if isinstance(said, Phrase) else str(exc)  # a phrase stays one
            log.warning("Skipping skill %s: %s", path, result)
        except RecursionError:  # YAML or JSON nested beyond the parser's reach
            result = Phrase(QT_TR_NOOP("the frontmatter is nested too deeply to read"))
            log.warning("Skipping skill %s: %s", path, result)
        self._parsed[path] = (key, result)
        return key, result

    def _scan(self) -> tuple[dict[str, tuple[Path, Source, _Parsed]], tuple[Any, ...]]:
        """Usable skills by name (workspace over builtin) and a key of everything read."""
        found: dict[str, tuple[Path, Source, _Parsed]] = {}
        errors: dict[Path, str] = {}
        stamp: list[Any] = []
        sources: tuple[tuple[Path, Source], ...] = (
            (self.builtin_dir, "builtin"),
            (self.workspace_dir, "workspace"),
        )
        for base, source in sources:
            for name, path in self._candidates(base):
                loaded = self._load(path, name)
                if loaded is None:
                    continue
                key, result = loaded
                stamp.append((str(path), key))
                if isinstance(result, str):
                    errors[path] = result
                else:
                    found[name] = (path, source, result)  # workspace comes second and wins
        live = {path for path, _ in stamp}
        for path in [p for p in self._parsed if str(p) not in live]:
            self._parsed.pop(path, None)
        self._errors = errors
        return found, tuple(stamp)

    @staticmethod
    def _skill(path: Path, source: Source, parsed: _Parsed) -> Skill:
        missing = tuple(
            [f"binary: {b}" for b in parsed.bins if shutil.which(b) is None]
            + [f"env: {e}" for e in parsed.env if not os.environ.get(e)]
        )
        return Skill(
            name=parsed.name,
            description=parsed.description,
            path=path,
            source=source,
            always=parsed.always,
            requires_bins=parsed.bins,
            requires_env=parsed.env,
            available=not missing,
            missing=missing,
        )

    # -- public API -----------------------------------------------------------------------
    @property
    def errors(self) -> dict[Path, str]:
        """SKILL.md files skipped at the last scan, with the reason (path → message)."""
        self._scan()
        return dict(sorted(self._errors.items()))

    def list_skills(self) -> list[Skill]:
        """Every usable skill, sorted by name, with its current availability."""
        found, _ = self._scan()
        return [self._skill(*found[name]) for name in sorted(found)]

    def catalog(self) -> list[SkillListing]:
        """Every SKILL.md of both folders, usable or not, sorted by name (workspace first).

        Unlike :meth:`list_skills`, skills whose frontmatter is broken are included (with
        :attr:`SkillListing.error`), and so are builtins a workspace skill replaces.
        """
        found, _ = self._scan()
        listed: list[SkillListing] = []
        sources: tuple[tuple[Path, Source], ...] = (
            (self.workspace_dir, "workspace"),
            (self.builtin_dir, "builtin"),
        )
        for base, source in sources:
            for name, path in self._candidates(base):
                cached = self._parsed.get(path)
                result = cached[1] if cached is not None else None
                if result is None:
                    continue  # vanished since the scan
                if isinstance(result, str):
                    listed.append(SkillListing(name, path, source, error=result))
                    continue
                winner = found.get(name)
                listed.append(
                    SkillListing(
                        name,
                        path,
                        source,
                        skill=self._skill(path, source, result),
                        shadowed=winner is not None and winner[0] != path,
                    )
                )
        order = {"workspace": 0, "builtin": 1}
        return sorted(listed, key=lambda item: (item.name, order[item.source]))

    def get_skill(self, name: str) -> Skill | None:
        """The skill called ``name``, or ``None``."""
        return next((s for s in self.list_skills() if s.name == name), None)

    def load_skill_body(self, name: str) -> str | None:
        """SKILL.md of ``name`` without its frontmatter; ``None`` if there is no such skill."""
        found, _ = self._scan()
        entry = found.get(name)
        return entry[2].body if entry else None

    def _display_path(self, skill: Skill) -> str:
        """Short path the file tools accept: workspace skills relative to the workspace,
        builtins absolute with the home folder as ``~``."""
        if skill.source == "workspace":
            return f"skills/{skill.name}/{SKILL_FILE}"
        try:
            return "~/" + skill.path.relative_to(Path.home()).as_posix()
        except (ValueError, RuntimeError):
            return str(skill.path)

    def active_section(self, skills: list[Skill], bodies: dict[str, str]) -> str:
        """``# Active Skills``: full bodies of always-on available skills (leading H1 dropped)."""
        parts = [
            f"## {s.name}\n\n{_LEADING_H1.sub('', bodies[s.name], count=1).strip()}"
            for s in skills
            if s.always and s.available
        ]
        return f"{ACTIVE_HEADER}\n\n" + "\n\n".join(parts) if parts else ""

    def summary_section(self, skills: list[Skill]) -> str:
        """``# Skills``: one line per skill: name — description — path (unavailable: …).

        Callers leave out the skills already in ``# Active Skills``.
        """
        if not skills:
            return ""
        lines = []
        for s in skills:
            line = f"- {s.name} — {s.description} — {self._display_path(s)}"
            if not s.available:
                line += f" (unavailable: missing {', '.join(s.missing)})"
            lines.append(line)
        intro = SUMMARY_INTRO
        if not all(s.available for s in skills):
            intro += " " + UNAVAILABLE_NOTE
        return f"{SUMMARY_HEADER}\n\n{intro}\n\n" + "\n".join(lines)

    def sections(self) -> list[str]:
        """The skills parts of the system prompt: ``[# Active Skills, # Skills]``.

        Always-on available skills are in full under ``# Active Skills``; every other skill has
        a line in ``# Skills``. Empty parts are dropped.

        Byte-identical between calls while no SKILL.md, PATH entry or variable changed; rebuilt
        only when the file stamps or the availability changed.
        """
        found, stamp = self._scan()
        skills = [self._skill(*found[name]) for name in sorted(found)]
        key = (stamp, tuple((s.name, s.source, s.missing) for s in skills))
        if key != self._sections_key:
            bodies = {name: entry[2].body for name, entry in found.items()}
            rest = [s for s in skills if not (s.always and s.available)]
            parts = [self.active_section(skills, bodies), self.summary_section(rest)]
            self._sections = [p for p in parts if p]
            self._sections_key = key
        return list(self._sections)
