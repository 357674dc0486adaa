"""Shared pieces of the Dream tests: the memory files, the analysis, routing the scripted
model server by phase, and a Dream on the real LiteLLM path."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from desktop.core.memory.dream import Dream
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

MEMORY = (
    "# Memory\n"
    "\n"
    "## Projects\n"
    "- Project lives in ~/code/old\n"
    "- Tests run with tox\n"
    "\n"
    "## Accounts\n"
    "- GitHub user: ada\n"
)
USER = "# User\n\n- Name: Ada\n- Lives in Berlin\n"
ANALYSIS = "[MEMORY] The project moved to ~/code/atlas\n[USER] Prefers answers in English"
SUBJECT = re.compile(r"^dream: \d{4}-\d{2}-\d{2} \d{2}:\d{2}, 2 change\(s\)$")


def is_phase1(body: dict[str, Any]) -> bool:
    """Phase 1 is the only call without tools."""
    return not body.get("tools")


def edit(path: str, old: str, new: str) -> tuple[str, str]:
    return ("edit_file", json.dumps({"path": path, "old_text": old, "new_text": new}))


def call(name: str, **args: Any) -> tuple[str, str]:
    return (name, json.dumps(args))


def route(server: ScriptedOpenAIServer, phase1: Any, phase2: Any = None) -> None:
    """Answer phase-1 calls with ``phase1``; phase 2 takes ``phase2`` (or the script)."""

    def pick(body: dict[str, Any]) -> Any:
        if is_phase1(body):
            return phase1
        return phase2

    server.route = pick


def make_dream(server: ScriptedOpenAIServer, ws: Path, **kwargs: Any) -> Dream:
    return Dream(make_provider(server.url), MemoryStore(ws), GitStore(ws), ws, **kwargs)


def phase2_requests(server: ScriptedOpenAIServer) -> list[dict[str, Any]]:
    return [r.body for r in server.chat_requests() if not is_phase1(r.body)]
