"""Signal through signal-cli's JSON-RPC daemon."""
