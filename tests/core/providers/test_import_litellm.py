"""Importing LiteLLM (in a worker thread) also imports what its first call would otherwise
import on the event loop: the OpenAI client's resources, ≈500 modules, which froze the window
for 1–2 s at the first send."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, cli_env
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

CHILD = """
import asyncio, json, sys
from desktop.core.providers.litellm_provider import LiteLLMProvider, import_litellm
from desktop.core.providers.matching import ProviderChoice
from desktop.core.config.provider_registry import find_by_name

import_litellm()
before = set(sys.modules)
provider = LiteLLMProvider(ProviderChoice(find_by_name("custom"), "custom", "openai/m", sys.argv[1]))
response = asyncio.run(provider.chat(messages=[{"role": "user", "content": "hi"}]))
print(json.dumps({"content": response.content, "new": sorted(set(sys.modules) - before)}))
"""


def test_the_first_call_imports_nothing_heavy_on_the_loop(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(default=Reply("hello")) as server:
        result = subprocess.run(
            [sys.executable, "-c", CHILD, server.url],
            check=True,
            capture_output=True,
            text=True,
            cwd=REPO,
            env=cli_env(tmp_path),
        )
    data = json.loads(result.stdout.splitlines()[-1])
    assert data["content"] == "hello"
    heavy = [m for m in data["new"] if m.startswith(("openai.", "httpcore", "h2", "h11"))]
    assert heavy == []
    assert len(data["new"]) < 60, data["new"]
