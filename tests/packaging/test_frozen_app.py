"""Smoke test of the built artefacts: the installed .deb's frozen app is the same program.

Against the scripted model server (``tests/fakes/openai_server.py``): ``--version``; a key
stored and read through the real Secret Service by the frozen binary; ``agent -m`` with a tool
call; the headless commands; the window and tray under Xvfb started from the installed
``.desktop`` entry, quitting with exit 0 and no traceback; the tarball's ``install.sh``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop import __version__
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.packaging.frozen import (
    APP,
    BUILD_WAIT_S,
    Artefacts,
    Installed,
    find_artefacts,
    frozen_env,
    install_deb,
    wait_for,
)
from tests.real_keyring import RealKeyring
from tests.ui.test_tray_smoke import (  # noqa: F401
    SCREENS,
    XSession,
    _agent_ready,
    _tray_icon_embedded,
    xsession,
)

# The first test may first wait for scripts/test.sh's background build (frozen.wait_for_build);
# every test's own steps keep their timeouts (a program run: 120 s).
pytestmark = pytest.mark.timeout(BUILD_WAIT_S + 300)

# The Qt libraries scripts/setup.sh installs for the xcb platform: the .deb must declare them.
QT_SYSTEM_PACKAGES = ("libxcb-cursor0", "libxkbcommon-x11-0", "libxcb-icccm4", "libxcb-image0",
                      "libxcb-keysyms1", "libxcb-randr0", "libxcb-render-util0", "libxcb-shape0",
                      "libxcb-xkb1", "libegl1", "libgl1", "libfontconfig1", "libdbus-1-3",
                      "libglib2.0-0")  # fmt: skip


@pytest.fixture(scope="module")
def artefacts() -> Artefacts:
    return find_artefacts()


@pytest.fixture(scope="module")
def installed(
    artefacts: Artefacts, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Installed]:
    yield from install_deb(artefacts.deb, tmp_path_factory.mktemp("deb-root"))


def _config(home: Path, api_base: str, *, provider: str = "custom", model: str = "scripted-model",
            channels: dict[str, object] | None = None, **tools: object) -> Path:  # fmt: skip
    workspace = home / "workspace"
    data = {
        "agents": {"defaults": {"model": model, "provider": provider, "workspace": str(workspace)}},
        "providers": {provider: {"apiBase": api_base}},
        "tools": tools,
        **({"channels": channels} if channels is not None else {}),
    }
    (home / ".nanobot").mkdir(parents=True, exist_ok=True)
    (home / ".nanobot" / "config.json").write_text(json.dumps(data), encoding="utf-8")
    return workspace


def _run(program: Path, *args: str, env: dict[str, str], stdin: str | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return subprocess.run(
        [str(program), *args], env=env, input=stdin, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def _log(home: Path) -> str:
    log = home / ".nanobot" / "logs" / "nanobot-desktop.log"
    return log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""


def _saved(home: Path, text: str) -> bool:
    """Whether a session file under ``home`` holds ``text`` (wherever nanobot keeps them)."""
    for path in home.rglob("*.jsonl"):
        try:
            if text in path.read_text(encoding="utf-8"):
                return True
        except OSError:
            pass
    return False


def test_deb_declares_layout_and_dependencies(artefacts: Artefacts) -> None:
    """Version, the Qt system libraries as Depends, and the files where Debian wants them."""
    fields = {
        name: subprocess.run(
            ["dpkg-deb", "-f", str(artefacts.deb), name], capture_output=True, text=True,
            check=True,
        ).stdout.strip()
        for name in ("Package", "Version", "Depends", "Recommends")
    }  # fmt: skip
    assert fields["Package"] == APP and fields["Version"] == __version__
    depends = {item.split()[0] for item in fields["Depends"].split(",")}
    assert set(QT_SYSTEM_PACKAGES) - {"libxcb-xinerama0"} <= depends, fields["Depends"]
    assert "bubblewrap" in depends  # the exec tool's sandbox
    assert "gnome-keyring" in fields["Recommends"]
    assert "fonts-noto-color-emoji" in fields["Recommends"]  # emoji, not empty boxes
    assert "fonts-noto-cjk | fonts-wqy-microhei" in fields["Recommends"]  # Chinese glyphs
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(artefacts.deb)], capture_output=True, text=True, check=True
    ).stdout
    for path in (
        f"./opt/{APP}/{APP}",
        f"./opt/{APP}/_internal/desktop/_data/templates/agent/identity.md",
        f"./opt/{APP}/_internal/desktop/_data/skills/weather/SKILL.md",
        f"./opt/{APP}/_internal/desktop/_data/resources/translations/nanobot_zh_CN.qm",
        f"./opt/{APP}/_internal/PySide6/Qt/translations/qtbase_zh_CN.qm",
        f"./usr/bin/{APP} -> /opt/{APP}/{APP}",
        f"./usr/share/applications/{APP}.desktop",
        f"./usr/share/icons/hicolor/256x256/apps/{APP}.png",
        f"./usr/share/icons/hicolor/scalable/apps/{APP}.svg",
    ):
        assert path in listing, f"{path} not in the .deb"
    # Nothing of the test tooling, and no system X11/font libraries bundled.
    assert "/_internal/pytest" not in listing and "/_internal/llama_cpp" not in listing
    assert not re.search(
        r"/_internal/lib(X11|xcb|fontconfig|freetype|GL|EGL|stdc\+\+)\.so", listing
    )


def test_installed_libraries_resolve(installed: Installed) -> None:
    """Every library the executable and Qt's xcb plugin need is found, X11 from the system."""
    internal = installed.resolve(f"/opt/{APP}/{APP}").parent / "_internal"
    files = [internal / "libpython3.11.so.1.0", internal / "PySide6/Qt/plugins/platforms/libqxcb.so",
             internal / "libQt6Gui.so.6", internal / "PySide6/QtWidgets.abi3.so"]  # fmt: skip
    out = subprocess.run(
        ["ldd", *map(str, files)], capture_output=True, text=True, timeout=60, check=False,
        env=dict(os.environ, LD_LIBRARY_PATH=str(internal)),
    ).stdout  # fmt: skip
    assert "not found" not in out, out
    assert re.search(r"libX11\.so\.6 => /(usr/)?lib/", out), out


def test_version_from_the_launcher(installed: Installed, tmp_path: Path) -> None:
    result = _run(installed.launcher, "--version", env=frozen_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"nanobot-desktop {__version__}"


def test_key_in_secret_service_and_agent_reply(
    installed: Installed,
    real_keyring: RealKeyring,
    tmp_path: Path,
) -> None:
    """The frozen binary stores a key in the real Secret Service, reads it back for a request
    (the server sees it), runs a shell command and an MCP server's tool, and streams the reply;
    the templates and builtin skills inside the bundle are found."""
    key = "sk-frozen-test-0123456789abcdef"
    server = ScriptedOpenAIServer(default=Reply("All done from the frozen app.")).start()
    try:
        server.push(
            Reply(tool_calls=[("exec", json.dumps({"command": "echo LD=[$LD_LIBRARY_PATH]"}))]),
            Reply(tool_calls=[("mcp_time_get_current_time", '{"timezone": "Asia/Tokyo"}')]),
            Reply("All done from the frozen app."),
        )
        # The official time server over stdio, run by this venv's Python (a program the
        # frozen app starts, as a person's uvx or npx server would be).
        time_server = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
        _config(tmp_path, server.url, provider="openai", model="gpt-4o-mini",
                exec={"allowedEnvKeys": ["LD_LIBRARY_PATH"]},
                mcpServers={"time": time_server})  # fmt: skip
        env = frozen_env(
            tmp_path,
            NANOBOT_DESKTOP_KEYRING_SERVICE=real_keyring.service,
            LD_LIBRARY_PATH="/the/users/own/lib",
        )
        stored = _run(installed.launcher, "keys", "set", "openai", "--stdin", env=env, stdin=key)
        assert stored.returncode == 0, stored.stderr
        assert "SecretService" in stored.stdout, stored.stdout
        assert real_keyring.get("openai") == key  # really in the Secret Service
        listed = _run(installed.launcher, "keys", "list", env=env)
        assert re.search(r"^openai\s+keyring", listed.stdout, re.MULTILINE), listed.stdout

        reply = _run(installed.launcher, "agent", "-m", "Say hi", env=env)
        assert reply.returncode == 0, reply.stderr
        assert "All done from the frozen app." in reply.stdout
        assert "Traceback" not in reply.stderr + _log(tmp_path)
        first, second, third = server.chat_requests()[:3]
        assert first.headers.get("Authorization") == f"Bearer {key}"
        tools = [tool["function"]["name"] for tool in first.body["tools"]]
        assert "mcp_time_get_current_time" in tools and "exec" in tools
        system = first.body["messages"][0]["content"]
        assert "weather" in system and "skill-creator" in system  # builtin skills found
        tool_result = json.dumps(second.body["messages"])
        # The app's children get the user's LD_LIBRARY_PATH back, not the bundle's.
        assert "LD=[/the/users/own/lib]" in tool_result, tool_result
        mcp_result = next(m for m in third.body["messages"][::-1] if m["role"] == "tool")
        assert "Asia/Tokyo" in mcp_result["content"] and "+09:00" in mcp_result["content"]
        assert key not in _log(tmp_path) and key not in reply.stdout + reply.stderr
        # The thin OpenAI path prices the calls from LiteLLM's table inside the bundle (read as
        # a file, LiteLLM not imported): gpt-4o-mini's rates, 10 in + 5 out per call.
        ledgers = list((tmp_path / ".nanobot").glob("usage/*/ledger-*.jsonl"))
        assert ledgers, "no usage ledger"
        lines = ledgers[0].read_text(encoding="utf-8").splitlines()
        costs = [float(json.loads(line).get("cost_usd") or 0) for line in lines if line.strip()]
        assert costs and all(c > 0 for c in costs), costs
    finally:
        server.stop()


def test_headless_commands(installed: Installed, tmp_path: Path) -> None:
    """status, cron, memory and gateway run from the frozen binary."""
    with ScriptedOpenAIServer() as server:
        workspace = _config(tmp_path, server.url)
        env = frozen_env(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
        status = _run(installed.launcher, "status", env=env)
        assert status.returncode == 0 and "Custom" in status.stdout, status.stderr
        added = _run(installed.launcher, "cron", "add", "--message", "Stretch", "--every", "3600",
                     env=env)  # fmt: skip
        assert added.returncode == 0, added.stderr
        listed = _run(installed.launcher, "cron", "list", env=env)
        assert "Stretch" in listed.stdout and "dream" in listed.stdout, listed.stdout
        log = _run(installed.launcher, "memory", "log", env=env)
        assert log.returncode == 0 and "init" in log.stdout, log.stdout + log.stderr
        assert (workspace / ".git").is_dir()  # pygit2 inside the bundle made the repository

        gateway = subprocess.Popen(
            [str(installed.launcher), "gateway"], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert gateway.stdout is not None
            lines: list[str] = []
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not any("running" in x for x in lines):
                line = gateway.stdout.readline()
                if not line:
                    break
                lines.append(line)
            assert any("running" in x for x in lines), "".join(lines)
            gateway.send_signal(signal.SIGINT)
            _, err = gateway.communicate(timeout=30)
            assert gateway.returncode == 0, err
            assert "Traceback" not in err
        finally:
            if gateway.poll() is None:
                gateway.kill()
                gateway.wait()


def test_window_and_tray_from_the_launcher_entry(
    installed: Installed,
    xsession: XSession,  # noqa: F811 - fixture from the tray smoke test
    tmp_path: Path,
) -> None:
    """Run the installed .desktop entry's Exec line under Xvfb with a tray: the window paints,
    the tray icon is embedded, a typed message gets its reply, and SIGINT quits with exit 0
    and no traceback."""
    reply = "Here you are:\n\n```python\nprint('frozen')\n```\n"
    with ScriptedOpenAIServer(default=Reply(reply)) as server:
        _config(tmp_path, server.url)
        env = frozen_env(
            tmp_path, QT_QPA_PLATFORM="xcb", NANOBOT_DESKTOP_BENCH="1",
            PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
            DISPLAY=xsession.env["DISPLAY"],
            DBUS_SESSION_BUS_ADDRESS=xsession.env["DBUS_SESSION_BUS_ADDRESS"],
        )  # fmt: skip
        argv = installed.desktop_exec()
        app = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)  # fmt: skip
        try:
            assert app.stdout is not None
            assert app.stdout.readline().startswith("first-paint"), app.communicate(timeout=10)
            wait_for(lambda: "system tray available" in _log(tmp_path), 30, "the tray icon")
            wait_for(lambda: _tray_icon_embedded(xsession.tree()), 15, "the icon in trayer")
            window = xsession.run("xdotool", "search", "--name", "^nanobot Desktop$").split()
            assert window, "main window not found"
            wait_for(lambda: _agent_ready(tmp_path), 45, "the agent and scheduler")
            # A message typed into the chat: streamed reply (markdown + highlighted code).
            xsession.run("xdotool", "windowfocus", "--sync", window[0])
            xsession.run("xdotool", "type", "--delay", "20", "Show me some code")
            xsession.run("xdotool", "key", "Return")
            wait_for(lambda: _saved(tmp_path, "print('frozen')"), 60, "the reply in the session")
            assert (
                server.chat_requests()[0]
                .body["messages"][-1]["content"]
                .endswith("Show me some code")
            )
            time.sleep(0.5)  # let the last chunk paint before the screenshot
            SCREENS.mkdir(parents=True, exist_ok=True)
            shot = SCREENS / "frozen-from-launcher.png"
            xsession.run("import", "-window", "root", str(shot))
            assert shot.stat().st_size > 5000
            app.send_signal(signal.SIGINT)
            _, err = app.communicate(timeout=30)
            assert app.returncode == 0, err
            assert "Traceback" not in err and "Traceback" not in _log(tmp_path)
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()


def test_tarball_installs_and_uninstalls_per_user(artefacts: Artefacts, tmp_path: Path) -> None:
    """install.sh puts the app in ~/.local/opt, a launcher entry and icons; uninstall removes
    them and leaves ~/.nanobot alone."""
    home = tmp_path / "home"
    (home / ".nanobot").mkdir(parents=True)
    (home / ".nanobot" / "config.json").write_text("{}")
    with tarfile.open(artefacts.tarball) as archive:
        archive.extractall(tmp_path / "unpacked", filter="tar")
    (top,) = (tmp_path / "unpacked").iterdir()
    env = dict(frozen_env(home), XDG_DATA_HOME=str(home / ".local" / "share"))
    result = subprocess.run([str(top / "install.sh")], env=env, capture_output=True, text=True,
                            timeout=300, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    app = home / ".local" / "opt" / APP
    entry = home / ".local" / "share" / "applications" / f"{APP}.desktop"
    assert f"Exec={app / APP}\n" in entry.read_text()
    assert (home / ".local/share/icons/hicolor/128x128/apps" / f"{APP}.png").is_file()
    version = _run(home / ".local" / "bin" / APP, "--version", env=env)
    assert version.stdout.strip() == f"nanobot-desktop {__version__}", version.stderr
    assert "Missing system libraries" not in result.stdout  # all present on this machine

    removed = subprocess.run([str(app / "uninstall.sh")], env=env, capture_output=True,
                             text=True, timeout=120, check=False)  # fmt: skip
    assert removed.returncode == 0, removed.stderr
    assert not app.exists() and not entry.exists()
    assert not (home / ".local" / "bin" / APP).exists()
    assert not list((home / ".local/share/icons").rglob(f"{APP}.*"))
    assert (home / ".nanobot" / "config.json").read_text() == "{}"


async def test_channel_sdks_run_in_the_frozen_gateway(installed: Installed, tmp_path: Path) -> None:
    """The bundled channel SDKs are importable from the frozen binary (``channels status``), and
    the frozen gateway's Telegram channel (python-telegram-bot inside the bundle) answers a
    message through the local Bot API server and stops cleanly."""
    import asyncio

    from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer

    api = await BotApiServer().start()
    chat = 4242
    try:
        with ScriptedOpenAIServer(Reply("Hello from the frozen gateway.")) as server:
            telegram = {
                "enabled": True,
                "token": TOKEN,
                "baseUrl": api.base_url,
                "allowFrom": ["*"],
                "reactEmoji": "",
            }
            _config(tmp_path, server.url, channels={"telegram": telegram})
            env = frozen_env(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
            status = await asyncio.to_thread(
                _run, installed.launcher, "channels", "status", "--test", env=env
            )
            lines = {line.split()[0]: line for line in status.stdout.splitlines() if line.strip()}
            for name in ("Telegram", "Email", "Matrix"):
                assert "not installed" not in lines[name], status.stdout
            assert "enabled, installed" in lines["Telegram"], status.stdout
            assert status.returncode == 0, status.stdout + status.stderr
            assert api.calls_of("getMe"), "the connection test called the Bot API"

            gateway = await asyncio.create_subprocess_exec(
                str(installed.launcher), "gateway", env=env,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                deadline = time.monotonic() + 90
                while not api.calls_of("getUpdates"):
                    assert time.monotonic() < deadline, "the gateway never polled Telegram"
                    await asyncio.sleep(0.1)
                api.put_message(chat, "Are you there?")
                while not api.sent(chat):
                    assert time.monotonic() < deadline, "no answer reached Telegram"
                    await asyncio.sleep(0.1)
                assert "Hello from the frozen gateway." in str(api.sent(chat)[0].params)
                gateway.send_signal(signal.SIGINT)
                _, err = await asyncio.wait_for(gateway.communicate(), 30)
                assert gateway.returncode == 0, err.decode(errors="replace")
                assert b"Traceback" not in err
            finally:
                if gateway.returncode is None:
                    gateway.kill()
                    await gateway.wait()
    finally:
        await api.stop()


async def test_the_feishu_sdk_bundled_as_compiled_modules_runs(
    installed: Installed, tmp_path: Path
) -> None:
    """lark-oapi goes into the bundle as ``.pyc`` files compiled beside the import analysis
    (``spec_helpers.PRECOMPILED``): the frozen ``channels status --test`` imports the Feishu
    channel (which imports the SDK whole) and reads the bot's profile from the local Feishu
    server."""
    import asyncio

    from tests.channels.feishu.feishu_server import APP_ID, APP_SECRET, FeishuServer

    feishu = await FeishuServer().start()
    try:
        section = {
            "enabled": True,
            "appId": APP_ID,
            "appSecret": APP_SECRET,
            "baseUrl": feishu.base_url,
            "allowFrom": ["*"],
        }
        _config(tmp_path, "http://127.0.0.1:9", channels={"feishu": section})
        env = frozen_env(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
        status = await asyncio.to_thread(
            _run, installed.launcher, "channels", "status", "--test", env=env
        )
    finally:
        await feishu.stop()
    lines = {line.split()[0]: line for line in status.stdout.splitlines() if line.strip()}
    assert "enabled, installed" in lines["Feishu"], status.stdout + status.stderr
    assert "Connected as nanobot test bot" in lines["Feishu"], status.stdout + status.stderr
    assert status.returncode == 0, status.stdout + status.stderr
