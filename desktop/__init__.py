"""nanobot Desktop: the nanobot agent system with a Qt window as its home."""

__version__ = "0.1.0"
