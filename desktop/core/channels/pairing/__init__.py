"""DM pairing: a stranger who writes to the bot directly gets a code; approving it lets them in.

:mod:`.store` keeps ``pairing.json`` (nanobot 0.3.5's file and format), :mod:`.gate` is the
channel side, :mod:`.command` the ``/pairing`` chat command and ``channels pair`` text.
"""

from desktop.core.channels.pairing.store import (
    PairingRequest,
    Pairings,
    PairingStore,
    normalize_code,
)

__all__ = ["PairingRequest", "PairingStore", "Pairings", "normalize_code"]
