"""Chat channel runtimes (channels issue)."""
