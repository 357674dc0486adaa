"""Qt widgets. Only this package (and desktop.app) may import Qt."""
