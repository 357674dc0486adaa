"""The local socket through which the CLI talks to a running app or gateway."""
