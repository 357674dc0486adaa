"""Reading ``exec`` results in tests: the command's output without its untrusted frame."""

from __future__ import annotations

import re

_FRAMED = re.compile(
    r"<<<untrusted id=([0-9a-f]{8}) source=exec>>>\n(.*?)\n<<<end untrusted id=\1>>>", re.DOTALL
)


def unframe(text: str) -> str:
    """``text`` with each framed output replaced by the output itself (notes kept)."""
    return _FRAMED.sub(lambda match: match.group(2), text)
