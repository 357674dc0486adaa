"""The DingTalk channel against a local DingTalk."""
