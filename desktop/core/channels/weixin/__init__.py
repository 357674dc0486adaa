"""The Weixin (personal WeChat) channel, through the iLink bot HTTP API."""
