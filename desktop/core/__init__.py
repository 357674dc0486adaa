"""Everything that works without Qt. Nothing under this package may import Qt."""
