"""llama-cpp-python's OpenAI-compatible server, without llama.cpp's extra weight buffers.

Run as ``python -m tests.e2e.llama_server ARGS`` (the arguments of ``python -m
llama_cpp.server``). The only change: models load with ``use_extra_bufts = False``, so the
weights stay in plain CPU buffers instead of being repacked for AMX tiles. A llama.cpp built
with ``-march=native`` on a virtual machine that reports AMX but does not run it (Firecracker
here) dies with SIGILL (``tileloadd``) on the first token otherwise; the 135M test model
gains nothing from the repacking.
"""

from __future__ import annotations

import runpy
import sys
from typing import Any

import llama_cpp.llama_cpp as low

_default_params = low.llama_model_default_params


def _params() -> Any:
    params = _default_params()
    params.use_extra_bufts = False
    return params


if __name__ == "__main__":
    low.llama_model_default_params = _params
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
