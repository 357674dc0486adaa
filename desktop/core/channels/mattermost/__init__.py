"""The Mattermost channel (REST API v4 and its WebSocket, over aiohttp)."""
