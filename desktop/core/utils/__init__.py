"""Shared helpers: atomic files, secret redaction, logging."""
