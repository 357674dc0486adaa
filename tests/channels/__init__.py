"""Tests of the chat channels against real or protocol-faithful local servers."""
