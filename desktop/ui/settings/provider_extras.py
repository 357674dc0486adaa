"""What some providers' settings pages add: a sentence about the provider, and the fields of
its config section beyond key, endpoint and headers (nanobot 0.3.5's names).

- AWS Bedrock: ``region`` and ``profile`` (the section's own fields, with their titles).
- Azure OpenAI: the API version, kept as nanobot users write it,
  ``extraQuery: {"api-version": …}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic.fields import FieldInfo
from PySide6.QtWidgets import QLineEdit, QWidget

from desktop.core.config.provider_schema import BedrockProviderConfig, ProviderConfig
from desktop.core.config.provider_spec import ProviderSpec
from desktop.core.providers.routes import AZURE_VERSION_KEYS
from desktop.ui.i18n import QT_TR_NOOP, tr

# Marked for translation; shown through tr().
ABOUT: dict[str, tuple[str, ...]] = {
    "azure_openai": (
        QT_TR_NOOP(
            "The API base is your resource's endpoint (https://NAME.openai.azure.com) and the model "
            "is your deployment's name."
        ),
    ),
    "bedrock": (
        QT_TR_NOOP(
            "An Amazon Bedrock API key is optional: without one, the AWS credentials of the "
            "environment or of the profile below sign the requests."
        ),
    ),
    "kimi_coding": (QT_TR_NOOP("Kimi's Coding Plan (keys starting sk-kimi-)."),),
    "assemblyai": (
        QT_TR_NOOP(
            "AssemblyAI only turns voice messages into text; it answers no chat. Choose it with "
            '"transcription": {"provider": "assemblyai"} in config.json.'
        ),
    ),
}
_SECTIONS: dict[str, type[ProviderConfig]] = {"bedrock": BedrockProviderConfig}


def _azure_default(spec: ProviderSpec) -> str:
    return str(dict(spec.litellm_options).get("api_version", ""))


def _placeholder(info: FieldInfo) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    text = extra.get("placeholder")
    return tr(text) if isinstance(text, str) else ""


def extra_fields(spec: ProviderSpec) -> list[tuple[str, str, str]]:
    """``(name, label, help)`` of the extra fields of ``spec``'s section (none for most), in
    the window's language."""
    return [(name, label, tip) for name, label, tip, _ in _extra_fields(spec)]


def _extra_fields(spec: ProviderSpec) -> list[tuple[str, str, str, str]]:
    """``(name, label, help, placeholder)`` of the extra fields of ``spec``'s section."""
    found: list[tuple[str, str, str, str]] = []
    section = _SECTIONS.get(spec.name)
    if section is not None:
        for name, info in section.model_fields.items():
            if name not in ProviderConfig.model_fields:
                title = tr(info.title) if info.title else name
                tip = tr(info.description) if info.description else ""
                found.append((name, title, tip, _placeholder(info)))
    if spec.litellm_prefix == "azure":
        found.append(
            (
                "api_version",
                tr("API version"),
                tr("Default: {version}.").format(version=_azure_default(spec)),
                _azure_default(spec),
            )
        )
    return found


class SectionExtras:
    """The extra fields of one provider's section, as line edits.

    Args:
        spec: The provider.
        edited: Called when the person types in one of them.
    """

    def __init__(self, spec: ProviderSpec, edited: Callable[..., None]) -> None:
        self.spec = spec
        self.fields: dict[str, QLineEdit] = {}
        self.labels: dict[str, str] = {}
        for name, label, tip, placeholder in _extra_fields(spec):
            self._add(name, label, tip, placeholder, edited)

    def _add(
        self, name: str, label: str, tip: str, placeholder: str, edited: Callable[..., None]
    ) -> None:
        field = QLineEdit()
        field.setAccessibleName(f"{tr(self.spec.display_name)} {label}")
        field.setToolTip(tip)
        field.setPlaceholderText(placeholder)
        field.textEdited.connect(edited)
        self.fields[name] = field
        self.labels[name] = label

    def rows(self) -> list[tuple[str, QWidget]]:
        """``(label, field)`` for the form."""
        return [(self.labels[name], field) for name, field in self.fields.items()]

    def load(self, section: ProviderConfig | None) -> None:
        """Show ``section``'s values."""
        for name, field in self.fields.items():
            if name == "api_version":
                query = (section.extra_query if section else None) or {}
                value = next((query[k] for k in AZURE_VERSION_KEYS if query.get(k)), "")
            else:
                value = getattr(section, name, None) or ""
            field.setText(str(value))

    def changes(self, prefix: str, section: ProviderConfig | None) -> dict[str, Any]:
        """The config changes the fields ask for (``{dotted path: value}``)."""
        found: dict[str, Any] = {}
        for name, field in self.fields.items():
            value = field.text().strip() or None
            if name == "api_version":
                query = {
                    k: v
                    for k, v in ((section.extra_query if section else None) or {}).items()
                    if k not in AZURE_VERSION_KEYS
                }
                if value:
                    query["api-version"] = value
                found[f"{prefix}.extra_query"] = query or None
            else:
                found[f"{prefix}.{name}"] = value
        return found
