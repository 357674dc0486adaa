"""Key backends for :class:`~desktop.ui.settings.key_field.KeyField`: provider keys and secret
config fields (channel credentials, the web search key). Keys go to the keyring only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.config import secret_fields
from desktop.core.config.loader import config_origin
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.key_field import KeyBackend, KeySource, StoredWithWarning
from desktop.ui.settings.page import commit_changes, save_error_text
from desktop.ui.settings.widgets import mask

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

_PROVIDER_SOURCES = {
    "keyring": QT_TR_NOOP("OS keyring"),
    "session": QT_TR_NOOP("held for this session only"),
}


def _plaintext_in_file(services: AppServices, provider: str) -> bool:
    """Whether ``providers.<provider>.apiKey`` in the file is a plaintext key (not ``${VAR}``)."""
    section = services.config.provider_config(provider)
    if section is None or not section.api_key:
        return False
    preserved = config_origin(services.config).preserved
    return not any(
        len(path) == 3
        and path[0] == "providers"
        and path[2] in ("apiKey", "api_key")
        and path[1].replace("_", "").lower() == provider.replace("_", "").lower()
        for path in preserved
    )


def provider_key_backend(services: AppServices, provider: str) -> KeyBackend:
    """Keys of provider ``provider`` (registry name) in the keyring."""

    async def resolve() -> KeySource:
        key = await services.secrets.aresolve(provider, services.config)
        detail = key.detail
        if key.source == "keyring":
            detail = tr("OS keyring ({entry})").format(entry=key.detail.removeprefix("keyring "))
        elif key.source in _PROVIDER_SOURCES:
            detail = tr(_PROVIDER_SOURCES[key.source])
        return KeySource(key.found, key.source, detail, mask(key.value))

    async def store(value: str) -> None:
        await services.secrets.aset(provider, value)
        if _plaintext_in_file(services, provider) and hasattr(services.config.providers, provider):
            # The keyring wins from now on; the plaintext copy leaves the file.
            try:
                await commit_changes(services, {f"providers.{provider}.api_key": None})
            except Exception as exc:  # noqa: BLE001 - the save error is told to the person
                raise StoredWithWarning(
                    tr(
                        "The key is in the keyring, but the old plaintext copy could not be "
                        "removed from config.json. {error}"
                    ).format(error=save_error_text(exc))
                ) from None

    async def delete() -> bool:
        return await services.secrets.adelete(provider)

    async def store_session(value: str) -> None:
        services.secrets.set_session(provider, value)

    return KeyBackend(resolve, store, delete, store_session)


def field_key_backend(services: AppServices, path: str) -> KeyBackend:
    """A secret config field (``channels.telegram.token``) kept in the keyring."""

    async def resolve() -> KeySource:
        state = await secret_fields.aresolve(services.config, services.secrets, path)
        return KeySource(state.found, state.source, state.detail, mask(state.value))

    async def store(value: str) -> None:
        await secret_fields.astore(services.config, services.secrets, path, value)
        try:
            await services.save_config()  # a plaintext copy in the file becomes ""
        except Exception as exc:  # noqa: BLE001 - the save error is told to the person
            raise StoredWithWarning(
                tr("The value is in the keyring, but config.json was not updated. {error}").format(
                    error=save_error_text(exc)
                )
            ) from None

    async def delete() -> bool:
        existed = await secret_fields.adelete(services.config, services.secrets, path)
        await services.save_config()
        return existed

    return KeyBackend(resolve, store, delete, None)
