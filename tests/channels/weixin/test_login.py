"""``nanobot-desktop channels login weixin`` (a real subprocess) against the local iLink server:
the QR code drawn in the terminal decodes to the server's code; after the scan the token is in
nanobot's account.json."""

from __future__ import annotations

import json
from pathlib import Path

from tests.channels.weixin.conftest import account_file, config_file, logged_in, until
from tests.channels.weixin.server import TOKEN, IlinkServer
from tests.channels.whatsapp.test_login import Login, _read_back
from tests.qr_decode import zbarimg


async def test_login_draws_the_code_and_saves_the_token_after_the_scan(
    ilink: IlinkServer, tmp_path: Path, isolated_env: Path
) -> None:
    zbarimg()
    config = config_file(tmp_path, ilink, enabled=False)
    login = await Login.start(config, isolated_env, "weixin", "--blocks")
    await until(lambda: any("Waiting for the scan" in line for line in login.out), what="drawn")
    ilink.scan()
    assert await login.end() == 0, login.stderr
    assert login.out[-1] == "WeChat is linked."
    assert "scan" in "\n".join(login.out)
    [drawing] = login.drawings()
    assert _read_back(drawing, tmp_path / "code.png") == [
        f"https://liteapp.weixin.qq.com/q/{ilink.codes[-1]}"
    ]
    saved = json.loads(account_file(tmp_path).read_text())
    assert saved["token"] == TOKEN and saved["base_url"] == ilink.url
    assert TOKEN not in login.stderr and TOKEN not in "\n".join(login.out)
    assert "channel is off" in login.stderr


async def test_a_saved_login_needs_no_code(
    ilink: IlinkServer, tmp_path: Path, isolated_env: Path
) -> None:
    logged_in(tmp_path, ilink)
    config = config_file(tmp_path, ilink)
    login = await Login.start(config, isolated_env, "weixin", "--json")
    assert await login.end() == 0, login.stderr
    assert login.out == ['{"event": "linked"}']
    assert ilink.calls_to("get_bot_qrcode") == []


async def test_an_expired_saved_login_is_replaced_by_a_new_one(
    ilink: IlinkServer, tmp_path: Path, isolated_env: Path
) -> None:
    logged_in(tmp_path, ilink, token="an-expired-token-42", get_updates_buf="buf-9")
    config = config_file(tmp_path, ilink)
    login = await Login.start(config, isolated_env, "weixin", "--json")
    await until(lambda: any('"qr"' in line for line in login.out), what="a code")
    ilink.scan()
    assert await login.end() == 0, login.stderr
    saved = json.loads(account_file(tmp_path).read_text())
    assert saved["token"] == TOKEN and saved["get_updates_buf"] == ""
    assert saved["context_tokens"] == {}, "the other keys kept"
