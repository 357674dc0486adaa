"""Agent loop, context builder, slash commands, subagents (the runner, hooks and skills: desktop.core.engine)."""
