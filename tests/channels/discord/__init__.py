"""Tests of the Discord channel."""
