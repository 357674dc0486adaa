"""The WeCom (企业微信) AI bot channel, over the bot's WebSocket long connection."""
