"""nanobot 0.3.5's own WebUI (the built ``dist`` in the nanobot-ai package, never copied into
this repository) served by our gateway and driven in real headless Chromium: it logs in,
sends a message, shows the streamed answer and lists the chat among its sessions."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.websocket.webui import find_dist
from tests.channels.websocket.conftest import SECRET, start_runtime, url_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.interop.conftest import NANOBOT_VENV

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ANSWER = "Hello from the desktop agent, streamed in small pieces to the browser."


def _needs(what: str, why: str) -> None:
    """Skip without ``what``, unless CI (or ``NANOBOT_TEST_REQUIRE_CHROMIUM=1``) says the
    test must run: then fail."""
    if os.environ.get("CI") or os.environ.get("NANOBOT_TEST_REQUIRE_CHROMIUM") == "1":
        pytest.fail(f"{what} is missing: {why}", pytrace=False)
    pytest.skip(f"{what} is missing: {why}")


@pytest.fixture
def webui_dist() -> Path:
    """0.3.5's built WebUI from the interop tier's nanobot-ai venv."""
    if not CHROMIUM.is_file():
        _needs("/usr/bin/chromium", "apt-get install chromium (scripts/setup.sh --test)")
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        _needs("playwright", "pip install playwright (the test extra)")
    found = find_dist(str(NANOBOT_VENV))
    if found is None:
        _needs("nanobot-ai's WebUI", f"scripts/setup.sh --test installs it in {NANOBOT_VENV}")
    assert found is not None
    return found


def drive(base: str, secret: str, user_data: Path, shots: Path) -> dict[str, Any]:
    """Log in, chat, look at the sessions list; what was seen (blocking: run in a thread).
    Screenshots go to ``shots``."""
    from playwright.sync_api import sync_playwright

    seen: dict[str, Any] = {"frames": []}
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(user_data), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            page = browser.new_page()

            def watch(ws: Any) -> None:
                ws.on("framereceived", lambda f: seen["frames"].append(str(f)))
                ws.on("framesent", lambda f: seen["frames"].append("> " + str(f)))

            page.on("websocket", watch)
            page.on("response", lambda r: seen["frames"].append(f"HTTP {r.status} {r.url}"))
            page.goto(f"{base}/")
            login = page.locator("input[type=password]").first
            login.wait_for(timeout=30_000)
            seen["login_shown"] = True
            page.screenshot(path=str(shots / "1-login.png"))
            login.fill(secret)
            login.press("Enter")
            box = page.locator("textarea").first
            box.wait_for(timeout=30_000)
            box.fill("Hello desktop")
            box.press("Enter")
            page.get_by_text(ANSWER).first.wait_for(timeout=60_000)
            page.screenshot(path=str(shots / "2-answer.png"))
            page.reload()
            page.locator("textarea").first.wait_for(timeout=30_000)
            page.get_by_text(ANSWER[:20]).first.wait_for(timeout=30_000)
            # The chat's first words appear twice: its row in the sessions list, its bubble.
            page.get_by_text("Hello desktop").nth(1).wait_for(timeout=30_000)
            seen["listed"] = page.get_by_text("Hello desktop").count()
            page.screenshot(path=str(shots / "3-sessions.png"))
        except Exception:
            page.screenshot(path=str(shots / "failed.png"))
            (shots / "failed.log").write_text("\n".join(seen["frames"]))
            raise
        finally:
            browser.close()
    return seen


async def test_nanobot_webui_logs_in_chats_with_streaming_and_lists_the_session(
    webui_dist: Path, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply(ANSWER, chunk=6, delay=0.05))
    runtime = await start_runtime(
        tmp_path, scripted_server, tokenIssueSecret=SECRET, webuiDist=str(webui_dist)
    )
    # NANOBOT_TEST_SHOTS keeps the screenshots somewhere to look at them.
    shots = Path(os.environ.get("NANOBOT_TEST_SHOTS", tmp_path)) / "websocket-webui"
    shots.mkdir(parents=True, exist_ok=True)
    try:
        seen = await asyncio.to_thread(
            drive, url_of(runtime, "http"), SECRET, tmp_path / "chromium", shots
        )
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    deltas = [f for f in seen["frames"] if '"event": "delta"' in f]
    assert len(deltas) > 2, "the answer reached the browser streamed"
    assert seen["login_shown"]
    assert seen["listed"] >= 2, "the chat is in the sessions list (from /api/sessions)"
    keys = [s["key"] for s in runtime.agent.sessions.list_sessions()]
    assert len(keys) == 1 and keys[0].startswith("websocket:")
    shutil.rmtree(tmp_path / "chromium", ignore_errors=True)
