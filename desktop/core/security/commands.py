"""Dangerous-command detection for the ``exec`` tool: the first line of defence.

This is a best-effort guard against accidents and obvious abuse, not a sandbox: a determined
program (``python -c ...``, a downloaded script, a variable holding a path) can do anything
the user can. On Linux the real containment is the bubblewrap sandbox
(:mod:`desktop.core.security.sandbox`); these rules refuse the obvious early, with a reason
the model can read, and are all there is where no sandbox runs. It refuses the
classic foot-guns — recursive ``rm`` of broad targets, ``mkfs``, ``dd``/redirects onto block
devices, power commands, fork bombs — and writes to the agent's own bookkeeping files
(``history.jsonl``, ``.dream_cursor``, ``sessions/*.jsonl``).

How commands are read:

* Quotes and backslash escapes are removed (``"rm" -rf '/'`` is ``rm -rf /``) and ``${IFS}``
  becomes a space. Separators (``; & | ( ) newline``) *inside* quotes are masked, so a quoted
  string is data: ``echo "rm -rf /"`` and ``git commit -m "reboot; fix"`` run.
* Programs are matched in *command position*: at the start, after a separator, ``$(`` or a
  backtick, or after wrappers such as ``sudo``, ``env``, ``xargs``, ``nohup``, ``timeout``.
* When the command hands a string to an interpreter (``sh -c``, ``bash -c``, ``eval``,
  ``su -c``, ``ssh``, ``watch``, or a pipe into a shell: ``echo '…' | sh``), every quoted
  string is also checked as a command of its own (``bash -c "cd /; rm -rf /"`` is refused).
  Double-quoted strings containing ``$(`` or a backtick are always checked, since the shell
  runs those.
* Targets computed from the home folder or a broad default (``${HOME:-/}``, ``$(echo ~)``),
  loops deleting every entry of a broad folder, and decoded (base64) payloads run by
  ``eval``/``sh -c`` are refused too.

:func:`check_protected_writes` adds the session's real protected paths: globs are expanded,
and deleting or moving a folder that holds protected files (``mv memory x``) is refused.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import shlex
from pathlib import Path

log = logging.getLogger(__name__)

_MASK = "\x1f"  # stands for a separator character that was inside quotes

# Where a program name may start: a separator, a substitution, a keyword, then wrappers.
_SEP = r"(?:^|[;&|\n(){}`!]|\$\(|\b(?:then|do|else|exec|-exec|-execdir|-ok)\s)"
_WRAPPER = (
    r"(?:sudo|doas|nohup|time|command(?!\s+-[vVp])|builtin|busybox|nice|ionice|env|xargs"
    r"|timeout|stdbuf"
    r"|caffeinate|chroot\s+\S+|(?:\S*/)?(?:ba|z|da|k|c|tc|fi)?sh\s+(?:-\w+\s+)*-\w*c|su\s+-c)"
)
# Options of a wrapper: ``-E``, ``-u root``, ``VAR=value``, ``5`` / ``2.5s`` (timeout).
_WRAP_ARGS = r"(?:\s+(?:-[a-zA-Z]\s+[a-zA-Z_][\w.]*|-\S*|\w+=\S*|\d+(?:\.\d+)?[smhd]?))*"
_CMD = rf"{_SEP}\s*(?:{_WRAPPER}{_WRAP_ARGS}\s+)*(?:\S*/)?"
_ARG = r"[^\s;&|<>()`]+"
_ARGS = rf"(?:\s+{_ARG})*?"
_END = r"(?=\s|$|[;&|)`])"

_RECURSIVE = r"(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)"
_HOME = r"(?:~|\$\{?HOME\}?)"
_BROAD = (
    rf"(?:/\*?|{_HOME}/?\*?|\*|\.{{1,2}}/?\*?|/[^\s/;&|]+/?\*?|/(?:home|Users)/[^\s/;&|]+/?\*?"
    rf"|{_HOME}/\.nanobot(?:/workspace)?/?\*?|[A-Za-z]:[\\/]?\*?)"
)
_FIND_ROOT = (
    rf"(?:/|{_HOME}/?|/(?:bin|boot|etc|home|lib\w*|opt|root|sbin|srv|usr|var|Users|System"
    r"|Library|Applications)/?)(?=\s)"
)
_DEVICE = (
    r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|mapper/|dm-|md\d|loop|sr|mem\b|kmem\b|port\b)"
)
_PROTECTED = (
    r"(?:(?<![^\s/=>])(?:history\.jsonl|\.dream_cursor|memory/\.cursor)(?![\w.-])"
    r"|(?<![^\s/=>])sessions(?:/[^\s;&|<>]*)?(?=\s|$|[;&|)]))"
)
_SEG = r"[^;&|\n]*"  # the rest of one simple command
# A target computed at run time that ends up broad: ``${X:-/}``, ``$(echo ~)``, ``\`echo ~\```.
_COMPUTED_BROAD = (
    rf"(?:\$\{{\w+:?[-=?+]\s*(?:/|~)|(?:\$\(|`)\s*(?:echo|printf|realpath|readlink)\b[^)`]*?"
    rf"(?:~|{_HOME}|(?<=\s)/(?=[\s)`])))"
)
# A function calling itself twice through a pipe or ``&`` (``{0}``: the name group).
_SELF_PIPE = r"(?<![\w.-])(?P={0})\s*[|&]\s*(?P={0})(?![\w.-])"

_BUILTIN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.MULTILINE), reason)
    for pattern, reason in (
        (
            rf"{_CMD}rm(?={_ARGS}\s+{_RECURSIVE}{_END}){_ARGS}\s+{_BROAD}{_END}",
            "recursive rm of a broad target",
        ),
        (rf"{_CMD}rm\b{_SEG}--no-preserve-root", "rm --no-preserve-root"),
        (
            rf"{_CMD}rm(?={_ARGS}\s+{_RECURSIVE}{_END}){_SEG}\s{_COMPUTED_BROAD}",
            "recursive rm of a computed broad target",
        ),
        (
            (
                rf"\bfor\s+(?P<v>\w+)\s+in\s+(?:[^;\n]*\s)?"
                rf"(?:{_BROAD}|(?:{_HOME}/|/)[^\s;/]*\*[^\s;/]*)(?=[\s;])[^\n]*?"
                rf"{_CMD}rm\s(?:{_SEG}\s)?{_RECURSIVE}\s{_SEG}\$[{{\x1f]?(?P=v)\b"
            ),
            "loop deleting every entry of a broad target",
        ),
        (
            rf"{_CMD}find\s+(?:-\S+\s+)*{_FIND_ROOT}{_SEG}(?:-delete\b|-exec(?:dir)?\s+(?:\S*/)?rm\b)",
            "find deleting from a broad root",
        ),
        (rf"{_CMD}(?:rd|rmdir|del|erase)\s+(?:/\w\s+)*/s\b", "recursive Windows delete"),
        (
            rf"{_CMD}(?:Remove-Item|ri)\s{_SEG}-Recurse{_SEG}\s[A-Za-z]:[\\/]?(?:\s|$)",
            "recursive delete of a drive",
        ),
        (
            rf"{_CMD}(?:mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs|diskpart|format\s+[A-Za-z]:)",
            "filesystem formatting",
        ),
        (rf"{_CMD}shred\b{_SEG}/dev/", "shred of a device"),
        (rf"{_CMD}dd\b{_SEG}\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b|fd/)", "dd onto a device"),
        (rf"(?:>\|?|\btee\s+(?:-\S+\s+)*|\bof=)\s*{_DEVICE}", "write to a block device"),
        (
            rf"{_CMD}(?:cp|mv|install)\b{_SEG}\s{_DEVICE}\S*\s*(?=$|[;&|)\n])",
            "write to a block device",
        ),
        (rf"{_CMD}(?:shutdown|reboot|halt|poweroff)\b", "shutdown/reboot"),
        (rf"{_CMD}(?:init|telinit)\s+[06]\b", "shutdown/reboot"),
        (
            rf"{_CMD}systemctl\s+(?:-\S+\s+)*(?:poweroff|reboot|halt|kexec|soft-reboot)\b",
            "shutdown/reboot",
        ),
        (r">\s*/proc/sysrq-trigger", "shutdown/reboot"),
        (rf"{_CMD}kill\s+(?:-\S+\s+)*-1{_END}", "kill every process"),
        (rf"(?P<f>[\w:.-]+)\s*\(\s*\)\s*\{{[^}}]*?{_SELF_PIPE.format('f')}", "fork bomb"),
        (
            rf"\bfunction\s+(?P<g>[\w:.-]+)\s*(?:\(\s*\))?\s*\{{[^}}]*?{_SELF_PIPE.format('g')}",
            "fork bomb",
        ),
        (
            (
                r"\bfork\s+while\s+(?:fork|1)\b|while\s*[(\x1f]\s*1\s*[)\x1f]\s*[{\x1f]\s*fork\b"
                r"|while\s*\(?\s*(?:True|1)\s*\)?\s*:?\s*\{?\s*os\.fork[(\x1f]"
            ),
            "fork bomb",
        ),
        (
            rf"base64\s+(?:-\w*d\w*|--decode){_SEG}\|\s*(?:\S*/)?(?:ba|z|da|k)?sh\b",
            "decoded payload piped to a shell",
        ),
        (
            (
                r"(?:\beval\b|\b(?:ba|z|da|k)?sh\s+-\w*c\b|\bsource\b|<\()[^\n]*?"
                r"\bbase64\s+(?:-\w*d\w*|--decode)"
            ),
            "decoded payload run by a shell",
        ),
        (rf">\|?\s*[^\s;&|<>]*?{_PROTECTED}", "write to a protected agent file"),
        (rf"{_CMD}tee\b{_SEG}\s[^\s;&|<>]*?{_PROTECTED}", "write to a protected agent file"),
        (
            rf"{_CMD}sed\s(?=(?:{_SEG}\s)?(?:-[a-zA-Z]*i|--in-place)){_SEG}\s[^\s;&|<>]*?{_PROTECTED}",
            "in-place edit of a protected agent file",
        ),
        (
            rf"{_CMD}(?:rm|mv|truncate|shred|unlink|ln)\b{_SEG}\s[^\s;&|<>]*?{_PROTECTED}",
            "change to a protected agent file",
        ),
        (
            rf"{_CMD}(?:cp|install|rsync)\b{_SEG}\s[^\s;&|<>]*?{_PROTECTED}\s*(?=$|[;&|)\n])",
            "overwrite of a protected agent file",
        ),
        (rf"{_CMD}dd\b{_SEG}\bof=[^\s;&|<>]*?{_PROTECTED}", "overwrite of a protected agent file"),
        (
            rf"{_CMD}find\b{_SEG}{_PROTECTED}{_SEG}(?:-delete\b|-exec(?:dir)?\s+(?:\S*/)?rm\b)",
            "deletion of a protected agent file",
        ),
    )
)

_INTERPRETER = re.compile(
    rf"{_CMD}(?:(?:ba|z|da|k|c|tc|fi)?sh\s+(?:-\w+\s+)*-\w*c|su\s{_SEG}-c|eval|ssh|watch"
    rf"|script\s{_SEG}-c)\b"
    rf"|\|\s*(?:sudo\s+)?(?:\S*/)?(?:ba|z|da|k)?sh(?:\s+-s)?\s*(?:$|[;&|)])"
)


def _lex(command: str) -> tuple[str, list[str]]:
    """Unquote ``command``: drop quotes/escapes, mask separators inside quotes.

    Returns:
        The normalized command and the contents of its quoted strings.
    """
    out: list[str] = []
    quoted: list[str] = []
    quote = ""
    current: list[str] = []
    i = 0
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == quote:
                quoted.append("".join(current))
                current, quote = [], ""
            elif ch == "\\" and quote == '"' and i + 1 < len(command):
                i += 1
                current.append(command[i])
                out.append(command[i] if command[i] not in ";&|()\n" else _MASK)
            else:
                current.append(ch)
                out.append(ch if ch not in ";&|()\n{}`" else _MASK)
        elif ch in "'\"":
            quote = ch
        elif ch == "\\" and i + 1 < len(command):
            i += 1
            out.append(" " if command[i] == "\n" else command[i])
        else:
            out.append(ch)
        i += 1
    if quote:  # unbalanced quote: keep what we have
        quoted.append("".join(current))
    text = re.sub(r"\$\{?IFS\}?", " ", "".join(out))
    return text, quoted


def _builtin_reason(command: str, depth: int = 0) -> str | None:
    """The reason a built-in rule refuses ``command``, or None."""
    text, quoted = _lex(command)
    for pattern, reason in _BUILTIN:
        if pattern.search(text):
            return reason
    if depth >= 3:
        return None
    interpreter = bool(_INTERPRETER.search(text))
    for inner in quoted:
        if interpreter or "$(" in inner or "`" in inner:
            found = _builtin_reason(inner, depth + 1)
            if found:
                return found
    return None


def _matches(pattern: str, text: str, *, full: bool) -> bool:
    """Regex match that treats an invalid user pattern as a literal string."""
    try:
        compiled = re.compile(pattern)
    except re.error:
        log.warning("exec pattern %r is not a valid regex; matching it literally", pattern)
        compiled = re.compile(re.escape(pattern))
    return bool(compiled.fullmatch(text) if full else compiled.search(text))


def check_command(
    command: str, *, allow_patterns: list[str], deny_patterns: list[str]
) -> str | None:
    """Decide whether ``exec`` may run ``command``.

    Semantics:
        1. A user deny pattern that matches anywhere (``re.search``, on the raw command or its
           unquoted form) refuses the command. Nothing overrides a user deny pattern.
        2. A built-in rule (see the module docstring) refuses the command, unless the whole
           stripped command matches a user allow pattern (``re.fullmatch``). Allow patterns
           only exempt from the built-in list; they are not an allowlist mode, so commands
           that no rule refuses run whether or not they match an allow pattern.
        Invalid user regexes are matched as literal text (and logged).

    Args:
        command: The shell command line.
        allow_patterns: User regexes exempting exact commands from the built-in rules.
        deny_patterns: User regexes that always refuse.

    Returns:
        A short reason when the command is refused, otherwise None.
    """
    raw = command.strip()
    normalized = _lex(raw)[0]
    for pattern in deny_patterns:
        if _matches(pattern, raw, full=False) or _matches(pattern, normalized, full=False):
            return f"matches deny pattern {pattern!r}"
    reason = _builtin_reason(raw)
    if reason and any(_matches(p, raw, full=True) for p in allow_patterns):
        return None
    return reason


# Harmless absolute paths allowed under restrict_to_workspace. /tmp is deliberately not here:
# it is shared with other users and programs; use a folder inside the workspace instead.
SAFE_ABSOLUTE_PATHS = frozenset(
    {
        "/dev/null",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
    }
)
_SEPARATOR_TOKENS = {";", "&", "&&", "|", "||", "(", ")", "|&", ";;", "\n"}
_POSITION_WRAPPERS = {
    "sudo",
    "env",
    "nohup",
    "time",
    "command",
    "exec",
    "nice",
    "xargs",
    "then",
    "do",
    "else",
    "!",
    "{",
}


def _tokens(command: str) -> list[str]:
    """Shell-like tokens of ``command`` (whitespace split when it does not parse)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)
    except ValueError:
        return command.split()


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


_WRITE_ALL_ARGS = {
    "rm",
    "mv",
    "truncate",
    "shred",
    "unlink",
    "tee",
    "rmdir",
    "chmod",
    "chown",
    "touch",
    "mkdir",
}
_WRITE_LAST_ARG = {"cp", "install", "rsync", "ln"}
_REDIRECTS = {">", ">>", ">|", "&>", "&>>"}  # shlex splits ``2>`` into ``2`` and ``>``


_REMOVE_VERBS = {"rm", "mv", "rmdir", "shred", "unlink"}  # they take whole folders away
_FIND_ACTIONS = {"-delete", "-exec", "-execdir", "-ok", "-okdir"}


def _write_targets(tokens: list[str]) -> list[tuple[str, bool]]:  # noqa: C901  # one branch per command family that writes
    """Paths one simple command writes, as far as its words tell (best effort).

    Returns:
        ``(path, removes)`` pairs; ``removes`` is true when the command deletes or moves the
        path away (so a folder holding protected files counts as a protected write).
    """
    targets: list[tuple[str, bool]] = []
    words: list[str] = []
    for index, token in enumerate(tokens):
        if token in _REDIRECTS:
            if index + 1 < len(tokens):
                targets.append((tokens[index + 1], False))
        elif not (index and tokens[index - 1] in _REDIRECTS):
            words.append(token)
    while words and (words[0] in _POSITION_WRAPPERS or re.fullmatch(r"\w+=\S*", words[0])):
        words = words[1:]
    if not words:
        return targets
    verb, args = os.path.basename(words[0]), [w for w in words[1:] if not w.startswith("-")]
    if verb in _WRITE_ALL_ARGS or (
        verb == "sed"
        and any(w == "--in-place" or re.fullmatch(r"-[a-zA-Z]*i\S*", w) for w in words[1:])
    ):
        # ``mv`` takes its sources away; its destination only receives.
        moved = args[:-1] if verb == "mv" else args
        targets += [(arg, verb in _REMOVE_VERBS and arg in moved) for arg in args]
    elif verb in _WRITE_LAST_ARG and args:
        targets.append((args[-1], False))
    elif verb == "dd":
        targets += [(w[3:], False) for w in words[1:] if w.startswith("of=")]
    elif verb == "find" and _FIND_ACTIONS & set(words[1:]):
        for word in words[1:]:  # the start points, up to the first expression word
            if word.startswith(("-", "(", "!")):
                break
            targets.append((word, False))
    return targets


def _expand_target(target: str, base: Path) -> list[Path]:
    """``target`` resolved from ``base`` (``~`` expanded), globs expanded like the shell's."""
    path = _expand_home(target)
    if any(ch in path for ch in "*?["):
        pattern = path if os.path.isabs(path) else str(base / path)
        matches = glob.glob(pattern)
        if matches:
            return [Path(m) for m in matches]
    return [base / path]


def check_protected_writes(
    command: str, protected: list[Path] | tuple[Path, ...], *, cwd: Path | str
) -> str | None:
    """Refuse commands whose words show a write into a protected path.

    Complements the built-in patterns of :func:`check_command` with the actual protected
    paths of the session (sessions, the memory repo's ``.git``, history and cursors, the
    config file): redirect targets, the operands of ``rm mv tee truncate chmod…``, the last
    operand of ``cp install rsync ln``, ``sed -i`` files, ``dd of=`` and the start points of
    a deleting ``find`` are resolved from ``cwd`` (``~`` expanded, globs expanded, symlinks
    followed) and must not lie in a protected path; ``rm``/``mv``/``rmdir`` of a folder that
    holds a protected path are refused too. Writes a program makes on its own (``git commit``,
    scripts, variables expanded at run time) are not visible here: the sandbox covers those.

    Args:
        command: The shell command line.
        protected: Protected files and folders.
        cwd: Folder the command runs in.

    Returns:
        A short reason when the command is refused, otherwise None.
    """
    roots = [Path(p).expanduser().resolve() for p in protected]
    base = Path(cwd).expanduser().resolve()
    segment: list[str] = []
    for token in [*_tokens(command), ";"]:
        if token not in _SEPARATOR_TOKENS:
            segment.append(token)
            continue
        for target, removes in _write_targets(segment):
            try:
                paths = [p.resolve() for p in _expand_target(target, base)]
            except (OSError, RuntimeError, ValueError):
                continue
            for resolved in paths:
                if any(_inside(resolved, root) for root in roots):
                    return f"writes to protected path {target!r}"
                if removes and any(_inside(root, resolved) for root in roots):
                    return f"deletes or moves {target!r}, which holds protected files"
        segment = []
    return None


def _expand_home(value: str) -> str:
    """Expand a leading ``~``, ``~user``, ``$HOME`` or ``${HOME}``."""
    if value.startswith("~"):
        return os.path.expanduser(value)
    return re.sub(r"^\$(?:HOME\b|\{HOME\})", lambda _: os.path.expanduser("~"), value)


def check_paths_in_command(  # noqa: C901  # every token form checked (options, redirects, ~, ..)
    command: str, workspace: Path | str, *, cwd: Path | str | None = None
) -> str | None:
    """Refuse ``..`` components and paths that lead outside ``workspace``.

    Used when ``restrictToWorkspace`` is on. Every token is checked, and so is the value of
    ``--opt=value`` / ``of=value`` tokens:

    * ``..`` as a path component is refused (``../x``, ``a/../b``, ``cd ..``).
    * Absolute paths (``/x``, ``~``, ``~user``, ``$HOME``, ``C:\\x``) must resolve, symlinks
      included, inside the workspace. Allowed anyway: the harmless device files in
      :data:`SAFE_ABSOLUTE_PATHS` (``/tmp`` is not one of them) and an absolute path to an
      existing executable in command position (``/usr/bin/python3 x.py``).
    * Relative paths whose first component exists are resolved from ``cwd`` and must stay
      inside too, which catches symlinks pointing out of the workspace.

    Other variables (``$DIR/x``) and paths built at run time are not seen: like
    :func:`check_command` this is a best-effort string check, not a sandbox.

    Args:
        command: The shell command line.
        workspace: The workspace folder.
        cwd: Folder the command runs in (default: the workspace).

    Returns:
        A short reason when the command is refused, otherwise None.
    """
    root = Path(workspace).expanduser().resolve()
    base = Path(cwd).expanduser().resolve() if cwd else root
    # POSIX tokenizing eats backslashes, so Windows drive paths are found on the raw text.
    for drive_path in re.findall(r"(?<![\w])[A-Za-z]:[\\/][^\s\"'|<>;&]*", command):
        if os.name != "nt" or not _inside(Path(drive_path).resolve(), root):
            return f"path {drive_path!r} is outside the workspace"
    command_position = True
    for token in _tokens(command):
        if token in _SEPARATOR_TOKENS:
            command_position = True
            continue
        values = [token]
        if "=" in token and not token.startswith(("/", "~")):
            values.append(token.split("=", 1)[1])
        for value in values:
            if ".." in re.split(r"[\\/]", value):
                return f"'..' in path {value!r}"
            expanded = _expand_home(value)
            drive = re.match(r"^[A-Za-z]:[\\/]", expanded)
            absolute = expanded.startswith("/") or bool(drive)
            if expanded in SAFE_ABSOLUTE_PATHS or expanded.startswith("/dev/fd/"):
                continue
            if drive and os.name != "nt":
                return f"path {value!r} is outside the workspace"
            try:
                candidate = Path(expanded) if absolute else base / expanded
                first = re.split(r"[\\/]", expanded, maxsplit=1)[0]
                if not absolute and not (first and os.path.lexists(base / first)):
                    continue
                resolved = candidate.resolve()
            except (OSError, RuntimeError, ValueError):
                return f"path {value!r} cannot be resolved"
            if (
                absolute
                and command_position
                and value is token
                and resolved.is_file()
                and os.access(resolved, os.X_OK)
            ):
                continue
            if not _inside(resolved, root):
                return f"path {value!r} is outside the workspace"
        command_position = token in _POSITION_WRAPPERS or (
            command_position and "=" in token and not token.startswith("-")
        )
    return None
