"""PyInstaller runtime hook: settings the frozen app needs before any import.

- LiteLLM must use its bundled cost map (no network on import), as the source run does.
- The bootloader points ``LD_LIBRARY_PATH`` at the bundle so the app finds its libraries.
  The dynamic loader has read it by now, so it is put back as it was: programs the app
  starts (MCP servers, ``exec`` commands, git hooks, the browser) must load their own
  libraries, not the bundle's copies.
"""

import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if sys.platform.startswith("linux") and getattr(sys, "frozen", False):
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = original
