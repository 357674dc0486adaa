"""The Microsoft Teams channel (the Bot Framework SDK: botbuilder-core, botbuilder-integration-aiohttp)."""
