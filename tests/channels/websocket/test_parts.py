"""The channel's pieces on their own: token lifetimes, finding nanobot's WebUI, serving its
files without leaving its folder."""

from __future__ import annotations

from pathlib import Path

from desktop.core.channels.websocket.tokens import TokenStore, secret_matches
from desktop.core.channels.websocket.webui import find_dist, static_file
from tests.typed import present


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_tokens_expire_and_connection_tokens_are_used_up() -> None:
    clock = Clock()
    store = TokenStore(clock=clock)
    socket_token = store.issue(60, "webui")
    api_token = store.issue_api(60)
    assert store.api_ok(api_token) and not store.api_ok(socket_token)
    assert store.take(socket_token) == "webui"
    assert store.take(socket_token) is None, "one handshake only"
    late = store.issue(60)
    clock.now += 61
    assert store.take(late) is None and not store.api_ok(api_token), "expired"
    assert store.take("") is None


def test_the_login_secret_is_read_from_either_header() -> None:
    assert secret_matches({"authorization": "Bearer pw"}, "pw")
    assert secret_matches({"X-Nanobot-Auth": " pw "}, "pw")
    assert not secret_matches({"Authorization": "Basic pw"}, "pw")
    assert not secret_matches({}, "pw")


def _dist(root: Path) -> Path:
    dist = root / "nanobot" / "web" / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<html>app</html>")
    (dist / "assets" / "app.js").write_text("console.log(1)")
    (dist / "assets" / "app.js.gz").write_bytes(b"gzipped")
    return dist


def test_the_webui_is_found_from_a_venv_site_packages_or_the_dist_itself(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    dist = _dist(venv / "lib" / "python3.11" / "site-packages")
    site = venv / "lib" / "python3.11" / "site-packages"
    assert find_dist(str(venv)) == dist.resolve()
    assert find_dist(str(site)) == dist.resolve()
    assert find_dist(str(dist)) == dist.resolve()
    assert find_dist(str(tmp_path / "nothing-here")) is None


def test_files_are_served_from_the_dist_only(tmp_path: Path) -> None:
    dist = _dist(tmp_path).resolve()
    (tmp_path / "secret.txt").write_text("not for browsers")
    assert static_file(dist, "/", "") == (b"<html>app</html>", "text/html; charset=utf-8", "")
    assert present(static_file(dist, "/settings/channels", ""))[0] == b"<html>app</html>", (
        "app route"
    )
    body, kind, encoding = present(static_file(dist, "/assets/app.js", "gzip, br"))
    assert (body, encoding) == (b"gzipped", "gzip") and kind.startswith("text/javascript")
    assert present(static_file(dist, "/assets/app.js", ""))[0] == b"console.log(1)"
    assert static_file(dist, "/../secret.txt", "") is None
    assert static_file(dist, "/assets/missing.js", "") is None
