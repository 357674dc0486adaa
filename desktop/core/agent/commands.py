"""Slash commands: answered by the loop itself, never by a model call."""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.utils.i18n import QT_TR_NOOP

COMMANDS: dict[str, str] = {
    # The window answers /new in its own (desktop) chats itself: it archives the chat into
    # memory (AgentLoop.archive_session) and opens a new chat; the list keeps this one. The
    # loop answers it in every other chat (AgentLoop.new_session), including a Telegram chat
    # shown in the window and the terminal. One text fits both.
    "/new": QT_TR_NOOP(
        "summarise this conversation into memory and start a fresh one (in a desktop chat a new "
        "chat opens and this one stays in the list; any other chat is set aside)"
    ),
    "/compact": QT_TR_NOOP(
        "summarise this conversation so far; later turns send the summary, not every message"
    ),
    "/stop": QT_TR_NOOP("stop the running turn and its subagents"),
    "/status": QT_TR_NOOP("model, tokens used, context fill, messages, running tasks"),
    "/dream": QT_TR_NOOP("distil recent history into long-term memory now"),
    "/dream-log": QT_TR_NOOP("show the latest Dream change (or /dream-log <sha>)"),
    "/dream-restore": QT_TR_NOOP("list recent Dream changes; /dream-restore <sha> undoes one"),
    "/dream-prompt": QT_TR_NOOP(
        "show how Dream organises memory here; /dream-prompt init makes it editable"
    ),
    "/trigger": QT_TR_NOOP(
        "/trigger <name> makes a trigger bound to this chat: "
        "'nanobot-desktop trigger <id> \"message\"' then sends a message into it"
    ),
    "/pairing": QT_TR_NOOP(
        "list pairing requests; /pairing approve|deny <code>, /pairing revoke <channel> <sender>"
    ),
    "/image": QT_TR_NOOP("/image <description> makes an image with the configured image provider"),
    "/help": QT_TR_NOOP("this list"),
}


@dataclass(frozen=True)
class Command:
    """A parsed slash command."""

    name: str
    argument: str


def parse_command(text: str) -> Command | None:
    """``/name rest`` → Command; anything else (including ``/`` paths like ``/etc``) → None.

    A leading slash followed by a word of letters, digits, ``-`` or ``_`` is a command; an
    unknown one is still a command (it gets the help text, not a model call).
    """
    stripped = text.strip()
    if not stripped.startswith("/") or len(stripped) < 2:
        return None
    name, _, rest = stripped.partition(" ")
    word = name[1:]
    if not word.replace("-", "").replace("_", "").isalnum() or "/" in word:
        return None
    return Command(name.lower(), rest.strip())


def help_text(unknown: str | None = None) -> str:
    """The command list; mentions an unknown command first."""
    lines = [f"Unknown command {unknown}." if unknown else "Commands:"]
    if unknown:
        lines.append("Commands:")
    lines.extend(f"  {name} — {description}" for name, description in COMMANDS.items())
    return "\n".join(lines)
