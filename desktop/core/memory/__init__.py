"""MemoryStore, Consolidator, Dream and the git timeline (memory issue)."""
