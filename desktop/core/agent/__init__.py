"""Agent loop, runner, hooks, context builder, slash commands, subagents, skills (agent-core issue)."""
