"""Allow ``python -m desktop``."""

from desktop.cli import main

raise SystemExit(main())
