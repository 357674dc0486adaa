"""Local triggers: a named hook bound to one chat that a command line fires (nanobot 0.3.5's
``/trigger <name>`` and ``nanobot trigger <id> "message"``), stored as 0.3.5 stores them."""
