"""Conversation sessions stored as JSONL in nanobot's format."""

from desktop.core.session.manager import Session, SessionManager

__all__ = ["Session", "SessionManager"]
