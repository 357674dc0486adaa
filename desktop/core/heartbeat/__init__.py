"""The heartbeat: periodic HEARTBEAT.md checks (see :mod:`desktop.core.heartbeat.service`)."""
