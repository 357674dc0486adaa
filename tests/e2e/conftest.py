"""The real local model: SmolLM2-135M served by llama-cpp-python's OpenAI-compatible server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

MODEL = Path(
    os.environ.get(
        "NANOBOT_TEST_MODEL", REPO / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    )
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _unavailable(reason: str) -> None:
    if os.environ.get("NANOBOT_TEST_REQUIRE_E2E") == "1":
        pytest.fail(f"end-to-end tier required but unavailable: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def local_model_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the model server once per session; yield its ``/v1`` base URL."""
    if not MODEL.is_file():
        _unavailable(f"model file missing: {MODEL} (scripts/setup.sh --test fetches it)")
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as exc:
        _unavailable(f"llama-cpp-python[server] not installed: {exc}")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.e2e.llama_server",  # llama_cpp.server, see its docstring
                "--model",
                str(MODEL),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "2048",
                "--model_alias",
                "smollm2",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            # llama.cpp's OpenMP threads spin while they wait for each other. With the rest of
            # the suite busy on both cores a spinning thread holds a core its partner needs:
            # under two busy loops 1,500 prompt tokens took 35 s of CPU instead of 16.5 s and
            # 30 generated tokens over a minute instead of 1 s. Passive waiting sleeps instead.
            env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
        )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(
                    f"llama server exited early:\n{log.read_text(errors='replace')[-3000:]}"
                )
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"llama server did not start:\n{log.read_text(errors='replace')[-3000:]}"
                )
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
