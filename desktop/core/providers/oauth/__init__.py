"""Providers signed in to with OAuth instead of an API key: ChatGPT (Codex), GitHub Copilot.

- :mod:`.accounts`: sign in, sign out, who is signed in, build the provider (the entry points
  the CLI, the Settings page and the factory use).
- :mod:`.codex` / :mod:`.copilot`: each provider's flow and facts; :mod:`.codex_provider` /
  :mod:`.copilot_provider`: the chat clients.
- Shared: :mod:`.flow` (prompt, errors), :mod:`.device` (device flow), :mod:`.pkce` (PKCE and
  the localhost callback), :mod:`.session` (refresh with an inter-process lock),
  :mod:`.tokens` (the keyring entry), :mod:`.endpoints` (overridable URLs).
"""
