"""The agent's own state: the files and folders no tool and no command may write or create.

One list for the workspace (:data:`WORKSPACE_STATE`) and one for the app's state beside the
config file (:data:`CONFIG_DIR_STATE`); :func:`default_protected_paths` turns them into paths.
The file tools refuse writes to them (:mod:`desktop.core.security.paths`), the command guard
refuses commands that visibly write them (:mod:`desktop.core.security.commands`) and the exec
sandbox binds them read-only (:mod:`desktop.core.security.sandbox`), after
:func:`create_state_placeholders` made the missing ones, so that a command cannot create them
either.

A name pattern such as "every ``*.lock``" would also catch a project's own ``Cargo.lock`` or
``poetry.lock``, which the agent may well edit; so the app's lock files are named one by one.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

# The agent's own state inside the workspace: files the app (or nanobot) writes and reads back,
# which no tool and no command may write or create. Every file the app keeps in the workspace,
# except the ones the model is meant to edit (SOUL.md, USER.md, memory/MEMORY.md, AGENTS.md,
# TOOLS.md, HEARTBEAT.md, skills/, prompts/) and inbound attachments (media/):
WORKSPACE_STATE = (
    "sessions",  # conversations in nanobot's legacy place (moved out on first start)
    ".git",  # the memory repository
    ".gitignore",  # its list of tracked files
    ".nanobot",  # nanobot's workspace id (it picks the sessions folder)
    "cron",  # jobs.json, action.jsonl, receipts/ (+ its .lock), undelivered.jsonl
    "cron.lock",  # the scheduler's lock
    "usage",  # where earlier versions kept the usage ledger (moved beside the config)
    "memory/history.jsonl",  # the memory log
    "memory/history.jsonl.lock",  # its lock
    "memory/.cursor",  # the log's last cursor
    "memory/.dream_cursor",  # how far Dream has read
    "memory/.dream_state",  # Dream's failed attempts per batch
    "memory/.dream_proposal.json",  # a Dream proposal waiting for review
    "memory/.dream_proposal.json.lock",  # its lock
    "memory/.pins.json",  # lines the person pinned
)
# Folders of WORKSPACE_STATE that are created (empty) before a sandboxed command when missing,
# so that the command cannot create them with content of its own. ``.git`` is never created:
# an empty ``.git`` folder would break the memory repository.
STATE_FOLDERS = ("sessions", "cron", ".nanobot", "usage")
# Files of WORKSPACE_STATE that are created empty before a sandboxed command when missing (and
# then bound read-only like the others): for each, an empty file means "nothing" to every
# reader, ours and nanobot 0.3.5's (no lock held, no entries, cursor 0, no failures, no
# proposal, no pins). ``.gitignore`` is not among them: an empty one would track everything.
STATE_PLACEHOLDERS = (
    "cron.lock",
    "memory/history.jsonl",
    "memory/history.jsonl.lock",
    "memory/.cursor",
    "memory/.dream_cursor",
    "memory/.dream_state",
    "memory/.dream_proposal.json",
    "memory/.dream_proposal.json.lock",
    "memory/.pins.json",
)
# The app's own files beside the config file (the config itself is added by path); its
# ``sessions/`` holds each workspace's conversations (nanobot 0.3.5's layout);
# ``dream-proposals/`` holds Dream's records of its proposals (beside the default config);
# ``usage/`` each workspace's usage ledger (``usage/<workspace id>/``).
CONFIG_DIR_STATE = (
    "desktop.json",
    "desktop.lock",
    "logs",
    "sessions",
    "usage",
    "channel-state",
    "run",
    "dream-proposals",
)
# Copies the app keeps beside a damaged or refused file (``<name>.corrupt-<time>`` and older
# spellings, ``<name>.unrecorded-<time>`` for a Dream proposal Dream did not write).
ASIDE_LABELS = ("corrupt-", "malformed-", "quarantine", "unrecorded-")


def default_protected_paths(workspace: Path, config_path: Path | None) -> tuple[Path, ...]:
    """Paths no tool may write: the agent's own state files, in both approval modes.

    Inside the workspace: :data:`WORKSPACE_STATE` (``sessions/``, the memory repository,
    ``memory/history.jsonl`` and the cursor files, Dream's state, proposal and pins, ``cron/``
    with its receipts, the usage ledger ``usage/``, the app's lock files, nanobot's
    ``.nanobot/``). Beside the config file (the one in use, and always the default
    ``~/.nanobot`` one, which other processes may use): the config, ``desktop.json``
    (preferences: approval mode, always-allowed tools), the instance lock, ``logs/``, nanobot's
    ``sessions/``, the channels' cursors (``channel-state/``), the agent socket's folder
    (``run/``) and Dream's proposal records (``dream-proposals/``). Files set aside beside a protected file
    (``<name>.corrupt-…``) are covered by :func:`is_protected`.

    Args:
        workspace: The agent's workspace folder.
        config_path: The config file in use, if any.

    Returns:
        The protected files and folders (not resolved; the guard resolves them on each check).
    """
    from desktop.core.config.paths import default_config_path

    root = Path(workspace).expanduser()
    paths = [root / Path(name) for name in WORKSPACE_STATE]
    configs = [default_config_path()]
    if config_path is not None:
        configs.insert(0, Path(config_path).expanduser())
    for config in dict.fromkeys(configs):
        paths.append(config)
        paths.extend(config.parent / name for name in CONFIG_DIR_STATE)
    return tuple(dict.fromkeys(paths))


def create_state_placeholders(workspace: Path) -> None:
    """Create the missing :data:`STATE_FOLDERS` and :data:`STATE_PLACEHOLDERS` (empty).

    The exec sandbox binds protected paths read-only, but only paths that exist can be bound;
    creating these first keeps a command from creating them with content of its own (a cron
    job, a forged proposal, pins, a cursor that skips the memory log, a folder where a lock
    file belongs). Nothing that exists is touched; a folder on the way that is a symbolic link
    is skipped. Failures are logged (the command still runs; that path is just not guarded).

    Args:
        workspace: The (resolved) workspace folder.
    """
    root = Path(workspace)
    for name in STATE_FOLDERS:
        folder = root / name
        if not os.path.lexists(folder):
            try:
                folder.mkdir(mode=0o700)
            except OSError as exc:
                log.warning("could not create %s before sandboxing: %s", folder, exc)
    for name in STATE_PLACEHOLDERS:
        target = root / name
        parent = target.parent
        if os.path.lexists(target) or os.path.islink(parent):
            continue
        try:
            parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
            os.close(fd)
        except FileExistsError:
            pass
        except OSError as exc:
            log.warning("could not create %s before sandboxing: %s", target, exc)
