"""The Telegram channel against a local Bot API server."""
