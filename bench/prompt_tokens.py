"""Token cost of a trivial turn ("hi") with every builtin tool enabled.

Builds the real request the agent would send (system prompt from the templates, tool schemas,
the runtime block and the message) in a fresh workspace with nanobot's templates, and counts
cl100k tokens. The target is at most 3,000 tokens in total.

Usage: python bench/prompt_tokens.py [--workspace PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMProvider, LLMResponse
from desktop.core.providers.tokens import count_messages, count_text, count_tools

TARGET = 3000


class _NoModel(LLMProvider):
    """Never called: the bench only builds the request."""

    @property
    def model(self) -> str:
        return "bench"

    async def chat(self, *a: object, **k: object) -> LLMResponse:
        raise AssertionError("not used")

    async def chat_stream(self, *a: object, **k: object) -> LLMResponse:
        raise AssertionError("not used")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="workspace to read bootstrap files from")
    args = parser.parse_args()
    workspace = args.workspace or Path(tempfile.mkdtemp(prefix="nanobot-bench-"))
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    loop = build_runtime(config, _NoModel()).agent
    messages = loop.context.build_messages([], "hi", channel="desktop", chat_id="bench")
    tools = loop.tools.definitions()
    system = count_text(messages[0]["content"])
    tool_tokens = count_tools(tools)
    message_tokens = count_messages(messages) - system
    total = count_messages(messages) + tool_tokens
    print(f"tools: {len(tools)} ({', '.join(t['function']['name'] for t in tools)})")
    print(f"system prompt   {system:6d} tokens")
    print(f"tool schemas    {tool_tokens:6d} tokens")
    for tool in tools:
        print(
            f"  {tool['function']['name']:<16}{count_text(json.dumps(tool, separators=(',', ':'))):6d}"
        )
    print(f"messages        {message_tokens:6d} tokens")
    print(f"total           {total:6d} tokens (target <= {TARGET}; {total / TARGET:.0%} of it)")
    return 0 if total <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
