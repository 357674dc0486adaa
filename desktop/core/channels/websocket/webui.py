"""What nanobot 0.3.5's WebUI reads over HTTP, served from our sessions and settings.

The WebUI is 0.3.5's own built single-page app (``nanobot/web/dist`` in the nanobot-ai
wheel); we never ship its files. :func:`find_dist` finds it from the ``webuiDist`` setting or
an importable ``nanobot`` package. Its chat needs: the sessions list (``/api/sessions``, the
channel's ``websocket:<chat_id>`` sessions only, as 0.3.5 lists them), one chat's history
(``/api/sessions/<key>/webui-thread``), and answers to the side panels it loads at start
(skills, settings, workspaces…): those get small, honest answers (what we have, or empty
lists) so the app starts; managing them stays in the desktop app.

Everything here reads files: call it through ``asyncio.to_thread``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import mimetypes
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop.core.agent.context import RUNTIME_CLOSE
from desktop.core.session.manager import SessionManager
from desktop.core.session.validate import read_session_file
from desktop.core.utils.validate import Unusable

CHANNEL = "websocket"
THREAD_SCHEMA = 3
PROTOCOL_VERSION = "0.3.5"
"""The nanobot release whose WebUI protocol this serves."""
CAPABILITIES = {
    "can_restart_engine": False,
    "can_pick_folder": False,
    "can_open_logs": False,
    "can_export_diagnostics": False,
}


def _dist_in(path: Path) -> Path | None:
    """The built WebUI at or under ``path`` (a dist folder, a package, a venv)."""
    candidates = [path, path / "nanobot" / "web" / "dist", path / "web" / "dist"]
    candidates += sorted(path.glob("lib/python3*/site-packages/nanobot/web/dist"))
    for candidate in candidates:
        if (candidate / "index.html").is_file():
            return candidate.resolve()
    return None


def find_dist(setting: str) -> Path | None:
    """Where 0.3.5's built WebUI is: the ``webuiDist`` setting (a dist folder, or a Python
    environment or site-packages holding nanobot-ai), else the ``nanobot`` package when it is
    importable here; ``None`` when neither has one."""
    if setting.strip():
        return _dist_in(Path(setting.strip()).expanduser())
    spec = importlib.util.find_spec("nanobot")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = _dist_in(Path(location))
        if found is not None:
            return found
    return None


def static_file(dist: Path, url_path: str, accept_encoding: str) -> tuple[bytes, str, str] | None:
    """A file of the WebUI for ``url_path`` (``index.html`` for the app's own routes):
    ``(body, content type, content encoding)``; ``None`` when the path leaves ``dist``."""
    relative = url_path.lstrip("/") or "index.html"
    target = (dist / relative).resolve()
    if not target.is_relative_to(dist) or not target.is_file():
        if "." in relative.rsplit("/", 1)[-1]:
            return None  # a missing asset, not an app route
        target = dist / "index.html"
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in {"application/javascript", "application/json"}:
        kind += "; charset=utf-8"
    gz = target.with_name(target.name + ".gz")
    if "gzip" in accept_encoding and gz.is_file():
        return gz.read_bytes(), kind, "gzip"
    return target.read_bytes(), kind, ""


def _iso(value: Any) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value or "")


def _millis(value: Any) -> int:
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value).timestamp() * 1000)
        except ValueError:
            return 0
    return 0


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _visible(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The person's messages and the agent's answers (tool traffic left out)."""
    shown = []
    for message in messages:
        role = message.get("role")
        text = _text(message.get("content"))
        if role in ("user", "assistant") and text.strip():
            shown.append({**message, "content": text})
    return shown


def _preview(text: str) -> str:
    """A user message without the runtime context the agent put before it."""
    return text.split(RUNTIME_CLOSE, 1)[-1].strip()


class SessionsView:
    """The channel's sessions as the WebUI lists and shows them.

    Args:
        sessions: The workspace's sessions (a manager of our own: only reads).
    """

    def __init__(self, sessions: SessionManager) -> None:
        self.sessions = sessions

    def listing(self) -> dict[str, Any]:
        """``/api/sessions``: the ``websocket:`` sessions, newest first."""
        out = []
        for item in self.sessions.list_sessions():
            key = str(item["key"])
            if not key.startswith(f"{CHANNEL}:"):
                continue
            try:
                loaded = read_session_file(Path(item["path"]))
            except Unusable:
                continue
            shown = _visible(loaded.messages)
            first_user = next((m for m in shown if m.get("role") == "user"), None)
            out.append(
                {
                    "key": key,
                    "created_at": _iso(loaded.header.created_at),
                    "updated_at": str(item["updated_at"]),
                    "title": str(item["title"] or ""),
                    "preview": _preview(first_user["content"])[:120] if first_user else "",
                }
            )
        return {"sessions": out}

    def thread(self, key: str) -> dict[str, Any] | None:
        """``/api/sessions/<key>/webui-thread``: one chat's messages; ``None``: no such chat."""
        if not key.startswith(f"{CHANNEL}:"):
            return None
        path = self.sessions.path_for(key)
        try:
            loaded = read_session_file(path)
        except Unusable:
            return None
        if not loaded.messages and not path.exists():
            return None
        messages = []
        for index, message in enumerate(_visible(loaded.messages)):
            role = str(message["role"])
            text = str(message["content"])
            messages.append(
                {
                    "id": f"{role[0]}-{index}",
                    "role": role,
                    "content": _preview(text) if role == "user" else text,
                    "createdAt": _millis(message.get("timestamp")),
                }
            )
        revision = hashlib.sha256(repr(messages).encode()).hexdigest()[:32]
        return {
            "schemaVersion": THREAD_SCHEMA,
            "sessionKey": key,
            "messages": messages,
            "completed_turn_ids": [],
            "has_pending_tool_calls": False,
            "active_turn_id": None,
            "page": {
                "before_cursor": None,
                "has_more_before": False,
                "loaded_message_count": len(messages),
                "user_message_offset": 0,
            },
            "revision": revision,
        }


def workspace_scope(workspace: Path) -> dict[str, Any]:
    """The chat's workspace as the WebUI shows it (the agent's own; not changeable here)."""
    return {
        "project_path": str(workspace),
        "access_mode": "full",
        "project_name": workspace.name,
        "restrict_to_workspace": False,
    }


def side_panels(workspace: Path, model: str, provider: str) -> dict[str, Any]:
    """Answers for the side panels the WebUI loads at start (by API path)."""
    scope = workspace_scope(workspace)
    return {
        "/api/webui/sidebar-state": {
            "schema_version": 1,
            "pinned_keys": [],
            "archived_keys": [],
            "session_order": [],
            "title_overrides": {},
            "project_name_overrides": {},
            "tags_by_key": {},
            "collapsed_groups": {},
            "workbench": {"version": 1, "tabs": {}},
            "view": {
                "density": "comfortable",
                "show_previews": False,
                "show_timestamps": False,
                "show_archived": False,
                "sort": "updated_desc",
            },
            "updated_at": None,
        },
        "/api/webui/skills": {"skills": []},
        "/api/settings/pairing": {"requests": []},
        "/api/workspaces": {
            "schema_version": 1,
            "default_access_mode": "default",
            "default_scope": scope,
            "controls": {
                "can_change_project": False,
                "can_use_full_access": False,
                "can_pick_folder": False,
            },
        },
        "/api/settings/cli-apps": {"apps": [], "installed_count": 0, "catalog_updated_at": None},
        "/api/settings/mcp-presets": {"presets": []},
        "/api/commands": {"commands": []},
        "/api/settings": {
            # The chat's model picker reads these; the settings themselves stay in the app.
            "agent": {
                "model": model,
                "provider": provider,
                "resolved_provider": provider,
                "has_api_key": True,
                "model_preset": "default",
            },
            "model_presets": [
                {
                    "name": "default",
                    "label": "Default",
                    "active": True,
                    "is_default": True,
                    "model": model,
                    "provider": provider,
                    "resolved_provider": provider,
                }
            ],
            "model_call_order": [],
            "model_call_order_editable": False,
            "providers": [
                {"name": provider, "label": provider, "configured": True, "auth_type": "api_key"}
            ],
            "version": {"current": PROTOCOL_VERSION},
            "surface": "browser",
            "runtime_surface": "browser",
            "runtime_capabilities": CAPABILITIES,
            "requires_restart": False,
            "restart_required_sections": [],
            "apply_state": {"status": "idle", "sections": []},
        },
    }
