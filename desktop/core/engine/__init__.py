"""The model/tool loop the agent and memory both run: the runner, its hooks, the skills loader.

Below ``desktop.core.agent`` and ``desktop.core.memory`` (the Dream and the Consolidator run it
too), above ``tools`` and ``providers``.
"""
