"""Key and token fields stay readable at QT_SCALE_FACTOR=2 (issue 21 item 13), and the setup
assistant fits the screen.

At scale 2 on a 1920×1080 screen the window opens at about 850×520 logical pixels; the
Settings pages then had their key and token inputs squeezed to their bare minimum ("Pa…").
The window runs in a subprocess on Qt's offscreen platform with a configured screen (the
scale factor is read once per process), with the real Settings tab and the real onboarding
step; each password field's width is measured against its placeholder in its own font.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PROBE = r"""
import asyncio, json, sys
from pathlib import Path
from PySide6.QtWidgets import QApplication, QLineEdit
app = QApplication(sys.argv)
import keyring
import qasync
from desktop.app import build_main_window
from desktop.core.config.loader import ConfigOrigin
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.ui.onboarding import OnboardingWizard
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from tests.fakes.memory_keyring import MemoryKeyring

keyring.set_keyring(MemoryKeyring())


def measure(where, root):
    out = []
    for edit in root.findChildren(QLineEdit):
        if edit.isVisible() and edit.echoMode() == QLineEdit.EchoMode.Password:
            text = edit.placeholderText()
            out.append({"where": where, "name": edit.accessibleName(), "placeholder": text,
                        "width": edit.width(),
                        "text": edit.fontMetrics().horizontalAdvance(text)})
    return out


async def settle():
    for _ in range(25):
        await asyncio.sleep(0.02)


async def main():
    tmp = Path(sys.argv[1])
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(tmp / "ws")}}})
    config._origin = ConfigOrigin(path=tmp / "config.json")
    services = AppServices(config, tmp / "config.json", SecretStore())
    window = build_main_window()
    window.show()
    settings = SettingsTab(services, window)
    window.set_tab("settings", settings)
    window.show_tab("settings")
    fields = []
    for name in ("providers/openai", "providers/anthropic", "channels/telegram", "channels/slack"):
        settings.show_section(name)
        await settle()
        fields += measure(name, settings)
    wizard = OnboardingWizard(services, window)
    wizard.resize(window.size())
    wizard.show()
    wizard.provider_step.select("openai")
    await wizard.next()
    await settle()
    fields += measure("onboarding", wizard)
    await wizard.aclose()
    from desktop.app import _Onboarding
    onboarding = _Onboarding(window, services)
    onboarding.open()
    await settle()
    setup = onboarding.wizard.geometry()
    area = window.screen().availableGeometry()
    fits = area.contains(setup)
    await onboarding.aclose()
    await settings.aclose()
    report = {"window": [window.width(), window.height()], "fields": fields, "setup_fits": fits,
              "setup": [setup.width(), setup.height()], "screen": [area.width(), area.height()]}
    print(json.dumps(report))


loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
with loop:
    loop.run_until_complete(main())
"""


def test_key_and_token_fields_keep_their_placeholder_readable_at_scale_2(tmp_path: Path) -> None:
    screens = tmp_path / "screens.json"
    screen = {"name": "s", "x": 0, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96}
    screens.write_text(json.dumps({"screens": [{**screen, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(REPO),
        "QT_QPA_PLATFORM": f"offscreen:configfile={screens}",
        "QT_SCALE_FACTOR": "2",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    width, height = report["window"]
    assert width < 900 and height < 600  # the window really is small in logical pixels
    fields = report["fields"]
    assert {f["where"] for f in fields} >= {
        "providers/openai",
        "providers/anthropic",
        "channels/telegram",
        "channels/slack",
        "onboarding",
    }
    for field in fields:
        # the placeholder whole, plus the frame, the text margins and the clear button
        assert field["width"] >= field["text"] + 30, field
    # the setup assistant fits the screen too (its buttons were below the screen's edge)
    assert report["setup_fits"], report
