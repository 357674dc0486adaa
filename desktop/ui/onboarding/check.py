"""When the first-run flow is needed (no Qt)."""

from __future__ import annotations

from desktop.core.config.loader import config_origin
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.utils.threads import run_daemon


def needs_onboarding_sync(config: Config, secrets: SecretStore) -> bool:
    """Blocking version of :func:`needs_onboarding` (keyring calls; use from a thread or CLI)."""
    from desktop.core.providers.factory import resolve_choice

    origin = config_origin(config)
    if not origin.path.expanduser().exists():
        return True
    try:
        choice, key = resolve_choice(config, secrets)
    except LookupError:  # no provider fits the configured model
        return True
    if choice.spec.oauth:  # signed in to under Settings → Providers; the key step cannot help
        return False
    return choice.spec.needs_key and not key.found


async def needs_onboarding(config: Config, secrets: SecretStore) -> bool:
    """Whether to show the first-run flow: there is no config file yet, or the configured
    model's provider needs a key and none is available (keyring, config or environment).

    A keyless provider — a local server, or the ``custom`` provider with an OpenAI-compatible
    ``apiBase`` — needs no key. Safe on the event loop: the keyring is read in a daemon thread.
    """
    return await run_daemon(lambda: needs_onboarding_sync(config, secrets), "needs-onboarding")
