"""The two provider paths: OpenAI-wire routes through the ``openai`` SDK without LiteLLM, the
others through LiteLLM (the fault suite, ``tests/core/test_provider_faults.py``, runs over both).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.secrets import SecretStore
from desktop.core.providers import model_table
from desktop.core.providers.litellm_provider import LiteLLMProvider, import_litellm
from desktop.core.providers.openai_provider import OpenAIProvider
from tests.conftest import REPO, cli_env
from tests.core.providers.test_provider_table import nanobot_default
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.fakes.wire_server import WireServer
from tests.provider_wire import ROUTES, mismatches, route_one

# The routes whose LiteLLM prefix is an OpenAI-wire one: the thin path serves them.
THIN = {
    "custom",
    "openrouter",
    "orcarouter",
    "edenai",
    "opencode",
    "opencode_zen",
    "opencode_go",
    "huggingface",
    "skywork",
    "aihubmix",
    "siliconflow",
    "novita",
    "volcengine_coding_plan",
    "byteplus",
    "byteplus_coding_plan",
    "openai",
    "deepseek",
    "gemini",
    "modelscope",
    "minimax",
    "stepfun",
    "xiaomi_mimo",
    "longcat",
    "ant_ling",
    "vllm",
    "ollama",
    "lm_studio",
    "atomic_chat",
    "ovms",
    "nvidia",
    "qianfan",
}

CHILD = """
import json, sys
from desktop.cli import main

code = main(["agent", "-m", "hi", "--session", "thin:1"])
from desktop.core.providers.context_window import litellm_window

print(json.dumps({
    "code": code,
    "litellm": sorted(m for m in sys.modules if m.split(".")[0] == "litellm"),
    "openai": "openai" in sys.modules,
    "resources": "openai.resources" in sys.modules,
    "encoding": "tiktoken_ext.openai_public" in sys.modules,
    "unneeded": sorted(m for m in ("pygit2", "rich", "click", "pygments") if m in sys.modules),
    "window": litellm_window("openai/gpt-4o"),
}))
"""


def test_an_agent_turn_on_an_openai_route_never_imports_litellm(tmp_path: Path) -> None:
    """A whole ``agent -m`` turn on the custom provider answers, is priced from LiteLLM's
    table and asks for a context window, and LiteLLM is not in ``sys.modules`` at the end
    (nor tiktoken's encoding, pygit2 or httpx's command-line tool, on a later start)."""
    config_dir = tmp_path / ".nanobot"
    config_dir.mkdir()
    config = {
        "agents": {
            "defaults": {
                "model": "gpt-4o",
                "provider": "custom",
                "workspace": str(tmp_path / "workspace"),
            }
        },
        "providers": {"custom": {"apiBase": "", "apiKey": "sk-thin-test-0123456789"}},
    }
    with ScriptedOpenAIServer(
        default=Reply("hello from the thin path", usage=(1000, 100))
    ) as server:
        config["providers"]["custom"]["apiBase"] = server.url
        (config_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
        for _start in ("first", "later"):  # the first start makes the workspace and its repo
            result = subprocess.run(
                [sys.executable, "-c", CHILD],
                check=False,
                capture_output=True,
                text=True,
                cwd=REPO,
                env=cli_env(tmp_path),
                timeout=300,
            )
            assert result.returncode == 0, result.stderr
        assert len(server.chat_requests()) >= 2
    assert "hello from the thin path" in result.stdout
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["code"] == 0
    assert data["litellm"] == [], data["litellm"]
    assert data["openai"] is True
    assert data["resources"] is False  # the SDK's resource modules: ≈14 MB not needed
    assert data["encoding"] is False  # a short chat is not counted: tiktoken's ≈45 MB stay out
    # Nor the memory history's pygit2 (≈11 MB: no commit on a later start), nor httpx's
    # command-line tool (≈6 MB).
    assert data["unneeded"] == [], data["unneeded"]
    assert data["window"] == 128000  # LiteLLM's table, read as a file
    ledgers = list(config_dir.glob("usage/*/ledger-*.jsonl"))
    assert ledgers, list(config_dir.rglob("*"))
    entries = [json.loads(line) for line in ledgers[0].read_text().splitlines() if line.strip()]
    expected = 1000 * 2.5e-06 + 100 * 1e-05  # gpt-4o's rates in the table
    assert any(abs(float(e.get("cost_usd") or 0) - expected) < 1e-9 for e in entries), entries


@pytest.mark.parametrize("route", ROUTES, ids=[r.section for r in ROUTES])
def test_each_route_takes_the_path_its_protocol_needs(
    route: Any, memory_keyring: MemoryKeyring
) -> None:
    """OpenAI-wire sections get the thin provider, the others (Anthropic, Azure, Bedrock,
    Zhipu, DashScope, Moonshot, Mistral, Groq, VolcEngine) LiteLLM's."""
    from desktop.core.providers.factory import build_provider
    from tests.provider_wire import filled

    with WireServer() as server:
        config = filled(nanobot_default(), route, server)
        built = build_provider(config, SecretStore(), environ={}, retry_delays=())
    expected = OpenAIProvider if route.section in THIN else LiteLLMProvider
    assert type(built.provider) is expected
    assert built.provider.calls_litellm is (route.section not in THIN)


async def test_a_litellm_only_provider_still_answers(memory_keyring: MemoryKeyring) -> None:
    """Anthropic's Messages API goes through LiteLLM, which loads for it, and answers."""
    route = next(r for r in ROUTES if r.section == "anthropic")
    with WireServer() as server:
        response, seen = await route_one(nanobot_default(), route, server, SecretStore())
    assert mismatches(route, seen) == []
    assert response.content
    assert "litellm" in sys.modules


@pytest.mark.parametrize(
    "model",
    [
        "gpt-4o",
        "openai/gpt-4o-mini",
        "openrouter/anthropic/claude-3.5-sonnet",
        "deepseek/deepseek-chat",
        "openai/no-such-model-anywhere",
    ],
)
def test_the_table_prices_as_litellm_does(model: str) -> None:
    """The thin path's price (LiteLLM's table read as a file) is LiteLLM's own price."""
    litellm = import_litellm()
    try:
        prompt, completion = litellm.cost_per_token(
            model=model, prompt_tokens=1234, completion_tokens=567
        )
        expected: float | None = float(prompt) + float(completion)
    except Exception:  # noqa: BLE001 - LiteLLM's way of saying it has no price
        expected = None
    ours = model_table.price(model, 1234, 567)
    if expected is None:
        assert ours is None
    else:
        assert ours == pytest.approx(expected)


WARM_CHILD = """
import json, sys
from desktop.core.config.provider_registry import find_by_name
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.openai_provider import OpenAIProvider
from desktop.core.providers.switchable import SwitchableProvider
from desktop.core.providers.warm import warm_up

thin = OpenAIProvider(ProviderChoice(find_by_name("custom"), "custom", "openai/m", "http://x/v1"))
loaded = [warm_up(None), warm_up(SwitchableProvider(thin))]
print(json.dumps({"loaded": loaded, "litellm": "litellm" in sys.modules,
                  "resources": "openai.resources" in sys.modules}))
"""


def test_warming_a_thin_provider_loads_the_sdk_not_litellm(tmp_path: Path) -> None:
    """What the window warms when the person starts typing: the SDK for the thin path
    (LiteLLM stays out), nothing without a provider, LiteLLM for a LiteLLM route."""
    from desktop.core.config.provider_registry import find_by_name
    from desktop.core.providers.matching import ProviderChoice
    from desktop.core.providers.warm import warm_up

    result = subprocess.run(
        [sys.executable, "-c", WARM_CHILD],
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=cli_env(tmp_path),
        timeout=300,
    )
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data == {"loaded": ["", "openai"], "litellm": False, "resources": False}
    spec = find_by_name("anthropic")
    assert spec is not None
    native = LiteLLMProvider(ProviderChoice(spec, "anthropic", "anthropic/claude-x", None))
    assert warm_up(native) == "litellm" and "litellm" in sys.modules


@pytest.mark.parametrize("indent", [4, None], ids=["pretty", "minified"])
def test_the_table_finds_an_entry_in_any_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indent: int | None
) -> None:
    """Only top-level keys count (a field of the same name inside an entry does not), in the
    bundled pretty layout or a minified one; an unreadable table prices nothing."""
    table = {
        "sample_spec": {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0},
        "other": {"notes": {"my-model": {"input_cost_per_token": 9.0}}, "max_tokens": 5},
        "my-model": {
            "litellm_provider": "openai",
            "input_cost_per_token": 1e-06,
            "output_cost_per_token": 2e-06,
            "max_input_tokens": 32000,
        },
    }
    path = tmp_path / model_table.TABLE_FILE
    path.write_text(json.dumps(table, indent=indent), encoding="utf-8")
    monkeypatch.setattr(model_table, "table_path", lambda: path)
    monkeypatch.setattr(model_table, "_facts", {})
    assert model_table.price("custom/my-model", 1000, 100) == pytest.approx(0.0012)
    assert model_table.context_window("my-model") == 32000
    assert model_table.lookup("sample_spec") is None
    assert model_table.lookup("notes") is None
    path.write_text("{ not json", encoding="utf-8")
    monkeypatch.setattr(model_table, "_facts", {})
    assert model_table.price("my-model", 1, 1) is None
