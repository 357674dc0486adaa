"""The WebSocket channel (nanobot 0.3.5's protocol; its WebUI works against it)."""
