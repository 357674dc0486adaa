"""A chat's project folder and access mode, as both programs keep them (issue #25 §1).

nanobot 0.3.5 keeps a WebUI chat's project in the session's metadata under
``workspace_scope`` (``project_path``, ``access_mode``). Ours is stored the same way, so the
real nanobot reads our chat's project with its own code, and ours reads one nanobot wrote.
"""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.session.manager import SessionManager
from desktop.core.session.project import ChatProject, read_project, set_project
from tests.conftest import cli_env
from tests.interop.conftest import nanobot_python

OURS = "desktop:20261128-160000-ours"
THEIRS = "websocket:their-chat"

SCRIPT = """
import json, sys
from pathlib import Path
from nanobot.session.manager import SessionManager
from nanobot.security.workspace_access import build_workspace_scope, workspace_scope_from_metadata

workspace, root, ours, theirs, project = sys.argv[1:6]
manager = SessionManager(Path(workspace), sessions_root=Path(root))
meta = manager.read_session_metadata(ours)["metadata"]
scope = workspace_scope_from_metadata(
    meta, default_workspace=workspace, default_restrict_to_workspace=False
)
session = manager.get_or_create(theirs)
session.add_message("user", "hello")
session.metadata["workspace_scope"] = build_workspace_scope(project, "full").metadata()
manager.save(session)
print(json.dumps({"project": str(scope.project_path), "mode": scope.access_mode}))
"""


def test_both_programs_read_each_others_chat_project(nanobot_bin: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    config_dir = tmp_path / ".nanobot"
    ours_project = tmp_path / "ours project"
    theirs_project = tmp_path / "theirs"
    ours_project.mkdir()
    theirs_project.mkdir()
    sessions = SessionManager(workspace, config_dir=config_dir)
    session = sessions.get_or_create(OURS)
    session.add_message("user", "hi")
    sessions.save(session)
    set_project(sessions, OURS, ChatProject(ours_project, "restricted"), workspace)

    python = nanobot_bin.parent / "python"
    found = nanobot_python(
        python,
        SCRIPT,
        str(workspace),
        str(sessions.directory.parent),
        OURS,
        THEIRS,
        str(theirs_project),
        env=cli_env(tmp_path),
    )
    assert found.returncode == 0, found.stderr
    seen = json.loads(found.stdout.strip().splitlines()[-1])
    assert seen == {"project": str(ours_project.resolve()), "mode": "restricted"}

    fresh = SessionManager(workspace, config_dir=config_dir)
    theirs = fresh.get_or_create(THEIRS)
    assert theirs.messages, "nanobot's session was not found where ours looks"
    assert read_project(theirs.metadata, workspace) == ChatProject(theirs_project.resolve(), "full")
