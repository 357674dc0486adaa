"""Configuration: schema, loading and saving, paths, and secrets in the OS keyring."""
