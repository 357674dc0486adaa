"""The telegram channel. Its SDK (python-telegram-bot, an optional extra) is imported by
``channel.py`` and the modules it uses, never by ``config.py`` (part of the config schema) or
``markup.py``."""
