"""Token cost of a trivial turn ("hi") with every tool enabled, beside nanobot 0.3.5's.

Ours: builds the real request the agent would send (system prompt from the templates, the tool
definitions a new conversation gets — deferred groups not loaded yet, see
``desktop/core/tools/groups.py`` —, the runtime block and the message) in a fresh workspace,
with every optional tool switched on (``my``, image generation), and counts cl100k tokens.
It also shows what the request would cost with every group loaded.

nanobot 0.3.5's, measured in the same run: its real CLI (``.cache/nanobot-venv``, as the
interop tests use it) answers ``agent -m hi`` against the tests' scripted model server, with
its image generation on too; the request it sent is counted with the same counter.

The target: ours at most 3,200 tokens. Exit status 1 when it is over.

Usage: python bench/prompt_tokens.py [--workspace PATH] [--nanobot PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from desktop.core.assembly import build_runtime  # noqa: E402
from desktop.core.config.schema import Config  # noqa: E402
from desktop.core.providers.base import LLMProvider, LLMResponse  # noqa: E402
from desktop.core.providers.tokens import count_messages, count_text, count_tools  # noqa: E402

TARGET = 3200
NANOBOT = REPO / ".cache" / "nanobot-venv" / "bin" / "nanobot"
ALL_ON = {"my": {"enable": True}, "imageGeneration": {"enabled": True}}


class _NoModel(LLMProvider):
    """Never called: the bench only builds the request."""

    @property
    def model(self) -> str:
        return "bench"

    async def chat(self, *a: object, **k: object) -> LLMResponse:
        raise AssertionError("not used")

    async def chat_stream(self, *a: object, **k: object) -> LLMResponse:
        raise AssertionError("not used")


def request_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """What a request costs: its messages and its tool definitions (cl100k)."""
    return count_messages(messages) + count_tools(tools)


def ours(workspace: Path) -> tuple[int, int]:
    """Our trivial turn (nothing loaded) and the same with every group loaded; prints both."""
    config = Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace)}}, "tools": ALL_ON}
    )
    loop = build_runtime(config, _NoModel()).agent
    messages = loop.context.build_messages([], "hi", channel="desktop", chat_id="bench")
    tools = loop.tools.definitions(set())  # a new conversation: no group loaded yet
    every = loop.tools.definitions()
    system = count_text(messages[0]["content"])
    print(f"ours: {len(tools)} tools offered ({', '.join(t['function']['name'] for t in tools)})")
    print(f"  deferred groups: {loop.tools.catalogue()}")
    print(f"  system prompt   {system:6d} tokens")
    print(f"  tool schemas    {count_tools(tools):6d} tokens")
    for tool in tools:
        name = tool["function"]["name"]
        print(f"    {name:<16}{count_text(json.dumps(tool, separators=(',', ':'))):6d}")
    print(f"  messages        {count_messages(messages) - system:6d} tokens")
    total = request_tokens(messages, tools)
    loaded = request_tokens(messages, every)
    print(f"  every group loaded: {len(every)} tools, {loaded} tokens")
    return total, loaded


def nanobot(executable: Path) -> int | None:
    """nanobot 0.3.5's trivial turn, counted from the request its real CLI sent."""
    if not executable.is_file():
        print(f"nanobot 0.3.5: not measured ({executable} is missing; scripts/setup.sh --test)")
        return None
    from tests.conftest import cli_env, write_config
    from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

    with tempfile.TemporaryDirectory(prefix="nanobot-bench-") as home_dir:
        home = Path(home_dir)
        with ScriptedOpenAIServer(default=Reply("Hello!")) as server:
            write_config(
                home / ".nanobot" / "config.json",
                {
                    "agents": {
                        "defaults": {
                            "model": "scripted-model",
                            "provider": "custom",
                            "workspace": str(home / "workspace"),
                        }
                    },
                    "providers": {"custom": {"apiBase": server.url, "apiKey": "sk-bench"}},
                    "tools": ALL_ON,
                },
            )
            done = subprocess.run(
                [str(executable), "agent", "-m", "hi"],
                capture_output=True,
                text=True,
                check=False,
                timeout=300,
                env=cli_env(home),
            )
            requests = server.chat_requests()
        if done.returncode != 0 or not requests:
            print(f"nanobot 0.3.5: failed ({done.returncode}): {done.stderr[-500:]}")
            return None
        body = requests[0].body
        tools = body.get("tools") or []
        total = request_tokens(body["messages"], tools)
        print(f"nanobot 0.3.5: {len(tools)} tools, tool schemas {count_tools(tools)} tokens")
        return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="workspace to read bootstrap files from")
    parser.add_argument("--nanobot", type=Path, default=NANOBOT, help="nanobot 0.3.5's CLI")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    workspace = args.workspace or Path(tempfile.mkdtemp(prefix="nanobot-bench-"))
    total, _loaded = ours(workspace)
    theirs = nanobot(args.nanobot)
    print()
    print(f"trivial turn, every tool enabled: ours {total} tokens (target <= {TARGET})", end="")
    if theirs is not None:
        print(f"; nanobot 0.3.5 {theirs} tokens (ours is {total / theirs:.0%} of it)")
    else:
        print()
    return 0 if total <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
