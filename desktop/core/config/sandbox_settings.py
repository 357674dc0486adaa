"""What the person lets sandboxed commands see, and the sandbox's resource limits.

These are nanobot Desktop's own settings (nanobot 0.3.5 knows none of them), so they live in
``desktop.json`` beside the config under ``sandbox``, not in ``config.json``::

    "sandbox": {
      "homeVisible": false,
      "folders": [{"path": "~/projects/site", "writable": true}, {"path": "/srv/data"}],
      "limits": {"processes": 256, "memoryMb": 2048, "fileSizeMb": 1024, "tmpSizeMb": 512,
                 "cpuSeconds": 600}
    }

By default a command sees the workspace, the system (read-only) and a scratch home folder of
its own; the person's real home folder appears only with ``homeVisible`` (read-only) or for
the folders listed (read-only unless ``writable``). :func:`read_sandbox_prefs` reads the file
for every command (a change made in the window applies to the gateway's next command too); a
value that does not fit falls back to its default, which is always the more closed one.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from desktop.core.config.prefs_peek import PREFS_FILE_NAME, peek_prefs
from desktop.core.config.validate import validate_fields

log = logging.getLogger(__name__)

MIB = 1024 * 1024
HOMES_FOLDER = "sandbox-homes"


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", validate_assignment=True
    )


class SandboxFolder(_Model):
    """A folder outside the workspace that commands may see.

    Attributes:
        path: Absolute, or starting with ``~`` (the person's home folder).
        writable: Commands may change it (otherwise read-only).
    """

    path: str = Field(min_length=1)
    writable: bool = False


class SandboxLimits(_Model):
    """Resource limits of one sandboxed command (everything it starts counts).

    Attributes:
        processes: Processes (and threads) at once; reaching it stops the command.
        memory_mb: Memory of all its processes together; reaching it stops the command.
        file_size_mb: Largest file it may write.
        tmp_size_mb: Size of its private ``/tmp`` (and of a scratch home kept in memory).
        cpu_seconds: CPU time of any one of its processes.
    """

    processes: int = Field(default=256, ge=16, le=100_000)
    memory_mb: int = Field(default=2048, ge=64, le=1_048_576)
    file_size_mb: int = Field(default=1024, ge=1, le=16_777_216)
    tmp_size_mb: int = Field(default=512, ge=1, le=1_048_576)
    cpu_seconds: int = Field(default=600, ge=1, le=86_400)


class SandboxPrefs(_Model):
    """The ``sandbox`` section of ``desktop.json`` (see the module docstring).

    Attributes:
        home_visible: Commands see the person's home folder (read-only).
        folders: Extra folders commands may see.
        limits: Resource limits per command.
    """

    home_visible: bool = False
    folders: list[SandboxFolder] = Field(default_factory=list)
    limits: SandboxLimits = Field(default_factory=SandboxLimits)


def read_sandbox_prefs(prefs_file: Path) -> SandboxPrefs:
    """The ``sandbox`` section of ``prefs_file``; defaults where it is missing or unusable.

    Blocking (reads the file). Never raises: a damaged file is reported and set aside by the
    app's full load (:func:`desktop.core.config.prefs.load_prefs`), not here.
    """
    section = peek_prefs(prefs_file).get("sandbox")
    if not isinstance(section, dict):
        return SandboxPrefs()
    prefs, dropped = validate_fields(SandboxPrefs, section)
    for problem in dropped:
        log.warning("desktop.json sandbox.%s: %s (default used)", problem.dotted, problem.message)
    return prefs


@dataclass(frozen=True)
class SandboxPlaces:
    """Where the sandbox's own state is, for one config.

    Attributes:
        config_dir: The config folder (``~/.nanobot``): hidden from commands, and where
            ``desktop.json`` and the scratch home folders live.
    """

    config_dir: Path

    @property
    def prefs_file(self) -> Path:
        """``desktop.json``."""
        return self.config_dir / PREFS_FILE_NAME

    def scratch_home(self, workspace: Path) -> Path:
        """The scratch home folder of ``workspace`` (created private on first use; blocking).

        One per workspace, kept between commands: what tools keep in ``~`` (pip's cache and
        ``--user`` installs, ``git config --global``, npm's cache) stays, and it is never the
        person's real home folder.
        """
        real = os.path.realpath(Path(workspace).expanduser())
        name = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        folder = self.config_dir / HOMES_FOLDER / name
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder


__all__ = [
    "MIB",
    "SandboxFolder",
    "SandboxLimits",
    "SandboxPlaces",
    "SandboxPrefs",
    "read_sandbox_prefs",
]
