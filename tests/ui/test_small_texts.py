"""Small wording defects (issue 9 C): counts read as English ("1 model", not "1 models")."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.provider_registry import find_by_name
from desktop.core.config.schema import Config
from desktop.core.providers.probe import list_models
from desktop.ui.onboarding.model_step import ModelStep
from desktop.ui.services import AppServices
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async


@pytest.mark.parametrize(
    ("models", "text"), [(["only"], "1 model was found"), (["a", "b"], "2 models were found")]
)
def test_onboarding_counts_models(
    qtbot: QtBot, tmp_path: Path, models: list[str], text: str
) -> None:
    services = AppServices(Config(), tmp_path / "config.json", None)  # type: ignore[arg-type]
    step = ModelStep(services)
    qtbot.addWidget(step)
    spec = find_by_name("custom")
    assert spec is not None
    step.setup(spec, models, "http://127.0.0.1:9/v1")
    assert step.about.text().startswith(text + ";")


def test_fetched_models_are_counted(qtbot: QtBot, qloop: object) -> None:
    spec = find_by_name("custom")
    assert spec is not None
    with ScriptedOpenAIServer(models=["one-model"]) as server:
        result = run_async(qtbot, qloop, list_models(spec, api_base=server.url))  # type: ignore[arg-type]
    assert result.ok and result.message == "1 model available."
