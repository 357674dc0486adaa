"""Heartbeat service (scheduling issue)."""
