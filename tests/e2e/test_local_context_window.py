"""The context-window probe against the real local model server (llama-cpp-python, n_ctx 2048).

llama-cpp-python's server (unlike llama.cpp's own ``llama-server``) answers neither ``/props``
nor a context length in ``/v1/models``: the probe must then say it does not know — never a
made-up or training-time number — so the configured window stays in force.
"""

from __future__ import annotations

import pytest

from desktop.core.config.provider_registry import find_by_name
from desktop.core.providers.context_window import probe_context_window
from desktop.core.providers.matching import ProviderChoice

pytestmark = pytest.mark.e2e


async def test_probe_on_the_real_server(local_model_url: str) -> None:
    spec = find_by_name("custom")
    assert spec is not None
    choice = ProviderChoice(
        spec=spec, section="custom", model="openai/smollm2", api_base=local_model_url
    )
    found = await probe_context_window(choice, use_litellm=False)
    assert found is None or found.tokens == 2048, found
