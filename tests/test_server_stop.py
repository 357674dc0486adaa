"""Test servers stop at once: their ``shutdown()`` does not sit out socketserver's half second.

``socketserver``'s ``serve_forever`` looks for a ``shutdown()`` request once per
``poll_interval`` (0.5 s by default), so every stop of a scripted server (hundreds of tests
start one) cost up to half a second of teardown. They are served through
``tests.waiting.serving``, which polls every :data:`tests.waiting.SERVE_POLL` seconds.
"""

from __future__ import annotations

import socketserver
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.conftest import REPO
from tests.waiting import SERVE_POLL, serving


def test_every_test_server_is_served_through_serving() -> None:
    """No ``serve_forever`` in the tests but the one in ``tests/waiting.py`` (which passes
    its poll interval): a new test server cannot bring the half-second stop back."""
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        if path != REPO / "tests" / "waiting.py" and path != REPO / "tests" / "test_server_stop.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "serve_forever" in line
    ]
    assert not offenders, f"serve through tests.waiting.serving instead: {offenders}"


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


def test_serving_polls_for_shutdown_often_and_stops() -> None:
    """The thread serves requests with :data:`SERVE_POLL` as its poll interval, and ends on
    ``shutdown()``."""
    seen: list[float] = []
    original = socketserver.BaseServer.serve_forever

    class Recording(ThreadingHTTPServer):
        def serve_forever(self, poll_interval: float = 0.5) -> None:
            seen.append(poll_interval)
            original(self, poll_interval)

    server = Recording(("127.0.0.1", 0), _Ok)
    thread = serving(server)
    assert thread.daemon
    thread.start()
    try:
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.read() == b"ok"
    finally:
        server.shutdown()
        server.server_close()
    thread.join(10)
    assert not thread.is_alive()
    assert seen == [SERVE_POLL] and SERVE_POLL <= 0.05
