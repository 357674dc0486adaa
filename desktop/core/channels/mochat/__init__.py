"""The mochat channel (its SDK is imported by ``channel.py`` only)."""
