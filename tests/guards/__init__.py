"""Suite-wide guards (pytest plugins loaded by tests/conftest.py)."""
