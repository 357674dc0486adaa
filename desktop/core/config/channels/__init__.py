"""Channel config models (the ``channels.<name>`` sections of ``config.json``), one module each.

They sit beside the config schema so ``desktop.core.config`` never imports a channel package.
"""
