"""Secrets the app knows never leave through a tool result (issue 12 §2).

Redaction happens once, centrally, in ``ToolRegistry.execute``: whatever a tool returns (a
file it read, a command's output, an error) is cleaned before the loop saves it to the
session or sends it to the provider. Only registered secrets are masked there; code that
merely looks like a credential (``api_key = os.environ[...]``) reaches the model intact,
since the model edits such files.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.redact import redact_known, register_secret
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


class Echo(Tool):
    """Returns its text, as a result or as an error."""

    name: ClassVar[str] = "echo_back"
    description: ClassVar[str] = "Echo."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "fail": {"type": "boolean"}},
        "required": ["text"],
    }

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        if kwargs.get("fail"):
            return ToolResult.error(f"Error: {kwargs['text']}")
        return ToolResult(f"got {kwargs['text']}")


def _secret() -> str:
    value = "sk-redact-" + secrets.token_hex(12)
    register_secret(value)
    return value


async def test_registered_secrets_are_masked_in_results_and_errors(tmp_path: Path) -> None:
    key = _secret()
    registry = ToolRegistry()
    registry.register(Echo())
    ctx = ToolContext(workspace=tmp_path)
    ok = await registry.execute("echo_back", {"text": f"the key is {key}."}, ctx)
    assert key not in ok.text and ok.text == "got the key is [REDACTED]."
    failed = await registry.execute("echo_back", {"text": key, "fail": True}, ctx)
    assert key not in failed.text and failed.is_error


async def test_lookalike_code_is_not_garbled(tmp_path: Path) -> None:
    registry = ToolRegistry()
    registry.register(Echo())
    code = 'api_key = os.environ["OPENAI_API_KEY"]  # token: placeholder-value'
    result = await registry.execute("echo_back", {"text": code}, ToolContext(workspace=tmp_path))
    assert result.text == f"got {code}"
    assert redact_known(code) == code


async def test_exec_output_is_redacted(tmp_path: Path) -> None:
    from desktop.core.config.schema import ExecToolConfig
    from desktop.core.tools.shell import ExecTool

    key = _secret()
    (tmp_path / "leak.txt").write_text(f"OPENAI_API_KEY={key}\n")
    registry = ToolRegistry()
    registry.register(ExecTool(ExecToolConfig()))
    result = await registry.execute("exec", {"command": "cat leak.txt"}, ToolContext(tmp_path))
    assert key not in result.text and "OPENAI_API_KEY=[REDACTED]" in result.text


async def test_a_leaked_key_reaches_neither_the_session_nor_the_provider(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The real loop: exec and read_file read a file holding a known key."""
    key = _secret()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "stolen.txt").write_text(f"key={key}\n")
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    scripted_server.push(
        Reply(
            tool_calls=[
                ("exec", json.dumps({"command": "cat stolen.txt"})),
                ("read_file", json.dumps({"path": "stolen.txt"})),
            ]
        ),
        Reply("Done."),
    )
    runtime = build_runtime(config, make_provider(scripted_server.url))
    try:
        assert await runtime.agent.process_direct("go") == "Done."
    finally:
        await runtime.stop()
    second = json.dumps(scripted_server.chat_requests()[1].body)
    assert "[REDACTED]" in second, "the tool results were not in the request"
    assert key not in second
    saved = [p.read_text() for p in runtime.sessions.directory.rglob("*.jsonl")]
    assert saved
    assert saved and "[REDACTED]" in "".join(saved)
    assert key not in "".join(saved)
