"""The email channel (its SDK is imported by ``channel.py`` only)."""
