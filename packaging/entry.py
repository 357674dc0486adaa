"""Entry point of the frozen app: the same ``nanobot-desktop`` command as the console script."""

import multiprocessing

from desktop.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a no-op unless something spawns a multiprocessing child
    raise SystemExit(main())
