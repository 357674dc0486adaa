"""Test doubles that run for real: a scripted OpenAI-compatible HTTP server, a memory keyring."""
