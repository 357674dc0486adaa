"""The Memory tab: memory files, the history log and the Dream timeline (see memory_tab)."""

from desktop.ui.memory.memory_tab import MemoryTab

__all__ = ["MemoryTab"]
