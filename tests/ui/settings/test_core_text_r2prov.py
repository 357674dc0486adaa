"""Providers, config and keys: the core's messages shown in the window's language (issue #25
§6). Each message is brought about for real (a missing key, a refused connection, a workspace
that is a file, a broken desktop.json, no keyring, a bad timezone…); its English stays as it
was, the pseudo locale shows no English outside ⟦…⟧ but data, and zh_CN shows Chinese."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.edit import ChangeError, apply_changes
from desktop.core.config.loader import load_config
from desktop.core.config.prefs import load_prefs
from desktop.core.config.provider_registry import find_by_name
from desktop.core.config.schema import Config
from desktop.core.config.secret_fields import describe
from desktop.core.config.secrets import KeyringUnavailable, SecretStore
from desktop.core.providers.factory import MissingKeyError, build_provider
from desktop.core.providers.oauth.device import request_device_code
from desktop.core.providers.oauth.flow import LoginError, async_client
from desktop.core.providers.probe import check_connection, list_models
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language, localized
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.key_field import KeyBackend, KeyField, KeySource
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.settings.widgets import mask
from desktop.ui.startup import AgentStarter
from tests.conftest import write_config
from tests.fakes.openai_server import Fail, ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated
from tests.ui.settings.pages import page_of

SVC = "nanobot-desktop-test-r2prov"


@pytest.fixture
def chinese() -> Iterator[None]:
    """The zh_CN translation installed for the test's block (English again afterwards)."""
    try:
        assert install_language("zh_CN") == "zh_CN"
        yield
    finally:
        install_language("en")


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def tab_providers(tab: SettingsTab) -> ProvidersPage:
    """The Providers page of ``tab``, shown."""
    tab.show_section("providers")
    page = page_of(tab, "providers", ProvidersPage)
    assert isinstance(page, ProvidersPage)
    return page


def _pseudo_clean(text: object, *data: str) -> str:
    """What of ``localized(text)`` reads as English in the pseudo locale (``""``: nothing)."""
    with pseudo_locale():
        shown = localized(text)
    return _english(shown, frozenset(data))


# -- start-up: missing key, a config that cannot be used ----------------------------------------
@pytest.mark.usefixtures("qloop", "memory_keyring")
def test_a_missing_key_at_start_is_said_in_the_window_language(
    tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No OpenAI key anywhere: the real start fails with MissingKeyError's phrase."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    defaults = {"model": "gpt-4o-mini", "provider": "openai", "workspace": str(tmp_path / "ws")}
    path = write_config(tmp_path / "config.json", {"agents": {"defaults": defaults}})

    def start() -> str:
        starter = AgentStarter(path)
        with qtbot.waitSignal(starter.agentFailed, timeout=20_000) as failed:
            starter.start()
        run_async(qtbot, qloop, starter.stop())
        return str(failed.args[0])

    english = start()
    assert english == (
        "No API key for OpenAI. Store one with 'nanobot-desktop keys set openai' or set "
        "OPENAI_API_KEY."
    )
    with pseudo_locale():
        shown = start()
    assert _english(shown, frozenset({"nanobot-desktop keys set openai", "OPENAI_API_KEY"})) == ""
    try:
        install_language("zh_CN")
        shown = start()
    finally:
        install_language("en")
    assert shown.startswith("没有 OpenAI 的 API 密钥。"), shown


@pytest.mark.usefixtures("qloop", "memory_keyring")
def test_a_workspace_that_is_a_file_is_said_in_the_window_language(
    tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """The config names a file as the workspace: the config banner's text (ConfigError with
    where and why) is translated, the paths kept."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    defaults = {"model": "gpt-4o-mini", "provider": "openai", "workspace": str(blocker)}
    path = write_config(tmp_path / "config.json", {"agents": {"defaults": defaults}})

    def start() -> str:
        starter = AgentStarter(path)
        with qtbot.waitSignal(starter.configFailed, timeout=10_000) as failed:
            task = starter.start()
        run_async(qtbot, qloop, asyncio.wait_for(asyncio.shield(task), 10))
        return str(failed.args[0])

    english = start()
    assert (
        f"{path}: field 'agents.defaults.workspace': the workspace {blocker} is a file, not a "
        "folder; choose a folder"
    ) in english
    with pseudo_locale():
        shown = start()
    assert _english(shown, frozenset({str(path), str(blocker), "agents.defaults.workspace"})) == ""
    try:
        install_language("zh_CN")
        shown = start()
    finally:
        install_language("en")
    assert f"字段“agents.defaults.workspace”：工作区 {blocker} 是文件而不是文件夹" in shown, shown


# -- Settings › Providers: test and model list -------------------------------------------------
def test_a_refused_model_list_is_framed_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """Fetching the model list from a port nobody listens on (a real refused connection)."""
    spec = find_by_name("custom")
    assert spec is not None
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    result = run_async(qtbot, qloop, list_models(spec, api_base=base, timeout=5))
    assert not result.ok and result.kind == "connection"
    assert isinstance(result.message, Phrase)
    url = f"{base}/models"
    assert str(result.message).startswith(f"Cannot reach {url}: ConnectError: ")
    error = str(result.message).removeprefix(f"Cannot reach {url}: ")
    assert _pseudo_clean(result.message, url, error) == ""
    try:
        install_language("zh_CN")
        assert localized(result.message) == f"无法连接 {url}：{error}"
    finally:
        install_language("en")


@pytest.mark.usefixtures("memory_keyring")
def test_connection_test_failures_without_a_request(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unknown provider, a missing key and no model: the test result's own words."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    store, config = SecretStore(SVC), Config()
    unknown = run_async(qtbot, qloop, check_connection(config, store, provider="nope", model="m"))
    no_key = run_async(
        qtbot, qloop, check_connection(config, store, provider="openai", model="gpt-4o-mini")
    )
    no_model = run_async(qtbot, qloop, check_connection(config, store, provider="openai", model=""))
    assert str(unknown.message) == "Unknown provider 'nope'."
    assert str(no_key.message) == "No API key for OpenAI: enter one first."
    for result in (unknown, no_key, no_model):
        assert _pseudo_clean(result.message, "'nope'") == "", result.message
    try:
        install_language("zh_CN")
        assert localized(unknown.message) == "未知的服务商 'nope'。"
        assert localized(no_key.message) == "没有 OpenAI 的 API 密钥：请先输入一个。"
    finally:
        install_language("en")


@pytest.mark.usefixtures("memory_keyring")
def test_a_missing_key_error_keeps_its_english_and_translates(
    monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    """build_provider's MissingKeyError carries a phrase (no template attributes any more)."""
    config = Config.model_validate({"agents": {"defaults": {"model": "claude-3-5-haiku-latest"}}})
    config.agents.defaults.provider = "anthropic"
    with pytest.raises(MissingKeyError) as info:
        build_provider(config, SecretStore(SVC), environ={})
    assert isinstance(info.value.args[0], Phrase)
    assert not hasattr(info.value, "template")
    data = ("nanobot-desktop keys set anthropic", "ANTHROPIC_API_KEY")
    assert _pseudo_clean(info.value, *data) == ""


# -- keys: where a key comes from, no keyring ---------------------------------------------------
def _config(tmp_path: Path, providers: dict[str, object], environ: dict[str, str]) -> Config:
    path = write_config(tmp_path / "config.json", {"providers": providers})
    return load_config(path, environ=environ)


def test_every_key_source_is_said_in_the_window_language(
    tmp_path: Path, memory_keyring: object, qtbot: QtBot
) -> None:
    """The whole family of "where the key comes from" (keyring, session, a ${VAR} reference,
    an environment override, plaintext, the provider's variable; a secret field's too),
    produced by the real resolution: nothing English outside the brackets but data."""
    store = SecretStore(SVC)
    environ = {"MY_OPENAI": "sk-ref-0123456789abcdef", "OPENAI_API_KEY": "sk-env-0123456789abc"}
    with_ref = _config(tmp_path, {"openai": {"apiKey": "${MY_OPENAI}"}}, environ)
    plain = _config(tmp_path, {"openai": {"apiKey": "sk-plain-0123456789abc"}}, environ)
    without = _config(tmp_path, {"openai": {}}, environ)
    override_path = write_config(tmp_path / "o.json", {"providers": {"openai": {}}})
    override = load_config(
        override_path, environ={"NANOBOT_PROVIDERS__OPENAI__API_KEY": "sk-override-0123456789"}
    )
    details = [
        store.resolve("openai", with_ref, environ).detail,
        store.resolve("openai", plain, environ).detail,
        store.resolve("openai", without, environ).detail,
        store.resolve("openai", override, {}).detail,
    ]
    store.set("openai", "sk-ring-0123456789abcdef")
    details.append(store.resolve("openai", without, environ).detail)
    store.delete("openai")
    store.set_session("openai", "sk-session-0123456789ab")
    details.append(store.resolve("openai", without, environ).detail)
    path = "channels.telegram.token"
    details += [describe(Config(), path, stored, SVC).detail for stored in ("123:abc", None)]
    assert details[0] == "config.json reference ${MY_OPENAI}"  # English as before
    assert details[2] == "environment variable OPENAI_API_KEY"
    data = (
        "${MY_OPENAI}",
        "OPENAI_API_KEY",
        "NANOBOT_PROVIDERS__OPENAI__API_KEY",
        f"{SVC}/openai",
        f"{SVC}/channels.telegram.token",
        "keys migrate",
    )
    for detail in details:
        assert isinstance(detail, Phrase), detail
        assert _pseudo_clean(detail, *data) == "", detail
    try:
        install_language("zh_CN")
        assert localized(details[2]) == "环境变量 OPENAI_API_KEY"
        assert localized(details[-1]) == "未设置"
    finally:
        install_language("en")


@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_is_said_in_the_window_language(qtbot: QtBot) -> None:
    """The 'fail' keyring (a headless box): storing a key raises KeyringUnavailable whose
    message names the alternatives; translated around the backend's and variable's names."""
    store = SecretStore(SVC)
    with pytest.raises(KeyringUnavailable) as info:
        store.set("openai", "sk-nokeyring-0123456789")
    assert str(info.value).startswith(
        "No usable OS keyring on this system (keyring.backends.fail.Keyring). The key can "
        "instead come from the environment variable OPENAI_API_KEY, or an "
        '"apiKey": "${MY_VAR}" reference in config.json.'
    )
    data = ("keyring.backends.fail.Keyring", "OPENAI_API_KEY", '"apiKey": "${MY_VAR}"')
    assert _pseudo_clean(info.value, *data) == ""
    try:
        install_language("zh_CN")
        shown = localized(info.value)
    finally:
        install_language("en")
    assert shown.startswith("此系统上没有可用的系统密钥环（keyring.backends.fail.Keyring）。"), (
        shown
    )
    assert "密钥也可以来自环境变量 OPENAI_API_KEY" in shown


# -- config edits and the desktop settings file -------------------------------------------------
def test_a_refused_timezone_is_said_in_the_window_language(qtbot: QtBot) -> None:
    """The schema's own validator refuses a timezone: ChangeError's reason is its phrase."""
    config = Config()
    with pytest.raises(ChangeError) as info:
        apply_changes(config, {"agents.defaults.timezone": "Mars/Base"})
    reason = info.value.reason
    assert reason == "unknown timezone 'Mars/Base' (use an IANA name like 'Europe/Berlin')"
    assert str(info.value) == f"agents.defaults.timezone: {reason}"
    assert _pseudo_clean(reason, "'Mars/Base'", "'Europe/Berlin'") == ""
    try:
        install_language("zh_CN")
        assert localized(reason).startswith("未知时区 'Mars/Base'（")
    finally:
        install_language("en")


def test_a_broken_desktop_settings_file_is_said_in_the_window_language(
    tmp_path: Path, qtbot: QtBot
) -> None:
    """desktop.json whose top level is a list: defaults, a copy kept, and the prefs banner's
    warning translated around the file names."""
    path = tmp_path / "desktop.json"
    path.write_text(json.dumps(["not", "an", "object"]))
    warning = load_prefs(path).load_warning
    assert warning is not None and isinstance(warning, Phrase)
    kept = next(p.name for p in tmp_path.iterdir() if p.name != "desktop.json")
    assert str(warning) == (
        f"The desktop settings file {path} could not be used (the top level is not a JSON "
        f"object); it was kept as {kept} and the defaults are in use."
    )
    assert _pseudo_clean(warning, str(path), kept) == ""
    try:
        install_language("zh_CN")
        shown = localized(warning)
    finally:
        install_language("en")
    assert shown == (
        f"桌面设置文件 {path} 无法使用（顶层不是 JSON 对象）；原文件已保留为 {kept}，"
        "现使用默认设置。"
    )


@pytest.mark.usefixtures("no_keyring")
def test_the_key_field_shows_where_the_key_is_and_no_keyring_translated(
    tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """Settings' key field on the real resolution (the provider's variable) and the real
    refusal of a headless box's keyring: its lines are wording around the names."""
    store = SecretStore(SVC)
    environ = {"OPENAI_API_KEY": "sk-env-0123456789abcdef"}
    config = _config(tmp_path, {"openai": {}}, environ)

    async def resolve() -> KeySource:
        key = store.resolve("openai", config, environ)
        return KeySource(key.found, key.source, key.detail, mask(key.value or ""))

    async def save(value: str) -> None:
        store.set("openai", value)

    async def delete() -> bool:
        return False

    def build() -> KeyField:
        # The label and noun are the caller's (translated there): data here.
        field = KeyField(KeyBackend(resolve, save, delete), label="API key", noun="API key")
        qtbot.addWidget(field)
        run_async(qtbot, qloop, field._refresh())
        field.edit.setText("sk-typed-0123456789abcdef")
        assert not run_async(qtbot, qloop, field.save())
        return field

    data = [
        "API key",
        "OPENAI_API_KEY",
        "keyring.backends.fail.Keyring",
        '"apiKey": "${MY_VAR}"',
        "cdef",
    ]
    with pseudo_locale():
        field = build()
        assert untranslated(field, allow=data) == []
    try:
        install_language("zh_CN")
        field = build()
        assert "环境变量 OPENAI_API_KEY" in field.source_label.text()
        assert field.status.text().startswith("此系统上没有可用的系统密钥环"), field.status.text()
    finally:
        install_language("en")


def test_a_sign_in_that_cannot_reach_its_server_is_said_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """The device sign-in against a port nobody listens on (a real refused connection): the
    LoginError's phrase frames the host and the network's own words."""
    url = f"http://127.0.0.1:{_closed_port()}/login/device/code"

    async def start() -> LoginError:
        async with async_client(timeout=5) as client:
            try:
                await request_device_code(client, url, client_id="id", scope="read:user")
            except LoginError as exc:
                return exc
        raise AssertionError("the sign-in reached a closed port")

    error = run_async(qtbot, qloop, start())
    assert str(error).startswith("Could not reach 127.0.0.1 (starting the sign-in): ")
    network = str(error).removeprefix("Could not reach 127.0.0.1 (starting the sign-in): ")
    assert _pseudo_clean(error, "127.0.0.1", network) == ""
    try:
        install_language("zh_CN")
        assert localized(error) == f"无法连接 127.0.0.1（开始登录时）：{network}"
    finally:
        install_language("en")


def test_the_provider_panel_shows_test_and_listing_failures_translated(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Settings › Providers › Custom: Fetch models from a closed port (refused for real) and
    Test connection refused with a 401 by the scripted server, in the pseudo locale and in
    Chinese: our framing translated, the address and the server's words kept."""
    tab = make_tab()
    panel = tab_providers(tab).panel("custom")
    closed = f"http://127.0.0.1:{_closed_port()}/v1"

    def fetch_failure() -> str:
        panel.api_base.setText(closed)
        assert not run_async(qtbot, qloop, panel.fetch())
        assert panel.models_status.kind == "error"
        return str(panel.models_status.text())

    def test_failure() -> str:
        panel.api_base.setText(scripted_server.url)
        panel.test_model.setText("scripted-model")
        scripted_server.push(Fail(401, "bad key here", error_type="invalid_request_error"))
        assert not run_async(qtbot, qloop, panel.test(), timeout_ms=60_000)
        return str(panel.test_status.text())

    english = fetch_failure()
    assert english.startswith(f"Cannot reach {closed}/models: ConnectError: ")
    network = english.removeprefix(f"Cannot reach {closed}/models: ")
    assert test_failure() == "HTTP 401: The provider rejected the API key: bad key here."
    with pseudo_locale():
        assert _english(fetch_failure(), frozenset({f"{closed}/models", network})) == ""
        assert _english(test_failure(), frozenset({"bad key here"})) == ""
    try:
        install_language("zh_CN")
        assert fetch_failure() == f"无法连接 {closed}/models：{network}"
        assert test_failure() == "HTTP 401：服务商拒绝了 API 密钥：bad key here。"
    finally:
        install_language("en")
