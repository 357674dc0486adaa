"""Which command installs an optional feature's SDK, and when the app may run it at all
(:mod:`desktop.core.utils.extras`): only in a source install (the repository installed
editable, as ``scripts/setup.sh`` makes it), never in a bundle or an installed package; the
installer's output streams line by line, redacted, and a failure keeps its last lines."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from pathlib import Path

import pytest

from desktop.core.utils import extras
from desktop.core.utils.extras import InstallFailed, install_plan, run_install
from tests.conftest import REPO


def test_this_checkout_is_a_source_install_and_the_plan_reinstalls_it_with_the_extra() -> None:
    assert extras.editable_source() == REPO  # the test venv: scripts/setup.sh's editable install
    plan = install_plan("telegram")
    assert plan is not None
    assert plan.argv[:4] == (sys.executable, "-m", "pip", "install")
    assert plan.argv[-2:] == ("--editable", f"{REPO}[telegram]")
    assert plan.command.endswith(f"--editable '{REPO}[telegram]'")
    assert "telegram" in extras.known_extras() and "matrix" in extras.known_extras()


def test_no_plan_for_an_unknown_extra_a_bundle_or_an_installed_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert install_plan("no-such-extra") is None
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert install_plan("telegram") is None
    monkeypatch.delattr(sys, "frozen")

    class Installed:  # a wheel install records no editable source tree
        def read_text(self, name: str) -> str | None:
            return json.dumps({"url": "https://example.org/x.whl", "archive_info": {}})

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Installed())
    assert extras.editable_source() is None and install_plan("telegram") is None


def test_the_output_streams_redacted_and_a_failure_keeps_its_last_lines() -> None:
    secret = "sk-" + "a1B2" * 12
    program = (
        "import sys\n"
        "for i in range(50): print(f'line {i}')\n"
        f"print('token {secret} rejected')\n"
        "sys.exit(3)\n"
    )
    seen: list[str] = []
    with pytest.raises(InstallFailed) as failed:
        asyncio.run(run_install([sys.executable, "-c", program], seen.append))
    assert seen[0] == "line 0" and len(seen) == 51
    assert secret not in "\n".join(seen) and secret not in str(failed.value)
    assert "line 49" in str(failed.value) and "line 10" not in str(failed.value)
    assert "rejected" in str(failed.value)


def test_a_cancelled_install_leaves_no_process_behind(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    program = (
        "import os, pathlib, time\n"
        f"pathlib.Path({str(marker)!r}).write_text(str(os.getpid()))\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )

    async def main() -> None:
        started = asyncio.Event()

        def on_line(line: str) -> None:
            started.set()

        task = asyncio.ensure_future(run_install([sys.executable, "-c", program], on_line))
        await asyncio.wait_for(started.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    pid = int(marker.read_text())
    assert not Path(f"/proc/{pid}").exists()  # killed and reaped
