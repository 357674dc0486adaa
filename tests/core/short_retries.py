"""``nanobot-desktop`` for a forked test process whose provider retries wait next to nothing.

The providers the CLI builds retry with :data:`desktop.core.providers.retry.DEFAULT_DELAYS`
(1, 2 and 4 s): seven seconds of a test's wall time spent sleeping when the test is about
what the retries do (log, redact, count), not about how long they wait. The number of
retries stays the same.
"""

from __future__ import annotations

from collections.abc import Sequence

# As many retries as the app makes (three), each a hundredth of the wait.
SHORT_DELAYS: tuple[float, ...] = (0.01, 0.02, 0.04)


def main(argv: Sequence[str]) -> int:
    """``desktop.cli.main(argv)`` with :data:`SHORT_DELAYS` as the providers' back-off.

    A ``tests.zygote`` target: it runs in its own forked process, so the change ends with it.
    """
    from desktop.cli import main as cli_main
    from desktop.core.providers import litellm_provider, retry

    assert len(SHORT_DELAYS) == len(retry.DEFAULT_DELAYS)
    vars(litellm_provider)["DEFAULT_DELAYS"] = SHORT_DELAYS  # read by LiteLLMProvider()
    return cli_main(argv)
