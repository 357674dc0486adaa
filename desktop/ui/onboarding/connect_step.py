"""Step 2: the server address (for servers you run) and the API key, with a test."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desktop.core.config.edit import ChangeError
from desktop.core.config.provider_registry import ProviderSpec
from desktop.core.config.secrets import KeyringUnavailable
from desktop.core.providers.probe import (
    EXAMPLE_MODELS,
    ProbeResult,
    check_connection,
    list_models,
    listing_base,
)
from desktop.core.utils.redact import redact
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.key_field import KeyEdit
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus, button, check_url, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


class ConnectStep(OwnsTasks, QWidget):
    """API base (servers you run), API key (stored in the keyring on Next), Test.

    Attributes:
        models: Model ids found by the last successful test.
    """

    title = QT_TR_NOOP("Connect")  # shown through tr()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.spec: ProviderSpec | None = None
        self.models: list[str] = []
        self.existing_key = ""  # where an already available key comes from
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.about = hint("")
        layout.addWidget(self.about)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.api_base = QLineEdit()
        self.api_base.setAccessibleName(tr("Server URL"))
        key_row = QHBoxLayout()
        self.key = KeyEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setAccessibleName(tr("API key"))
        self.key.setClearButtonEnabled(True)
        self.reveal = QPushButton(tr("Show"))
        self.reveal.setCheckable(True)
        self.reveal.setAccessibleName(tr("Show or hide the typed key"))
        self.reveal.toggled.connect(self._toggle_reveal)
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.reveal)
        form.addRow(tr("Server URL"), self.api_base)
        form.addRow(tr("API key"), key_row)
        self.form = form
        layout.addLayout(form)
        self.key_hint = hint(
            tr("The key is stored in your system's keyring (never in a plain file).")
        )
        layout.addWidget(self.key_hint)
        row = QHBoxLayout()
        self.test_button = button(tr("Test connection"), tr("Test the connection"))
        self.test_button.clicked.connect(lambda: self.spawn(self.test(), "onboarding-test"))
        row.addWidget(self.test_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.status = InlineStatus(accessible=tr("Connection test result"))
        layout.addWidget(self.status)
        self.session_button = button(
            tr("Keep the key for this session only"),
            tr("Keep the key in memory for this session only"),
        )
        self.session_button.clicked.connect(self._keep_for_session)
        self.session_button.hide()
        layout.addWidget(self.session_button)
        layout.addStretch(1)

    def setup(self, spec: ProviderSpec) -> None:
        """Prepare the step for ``spec`` (keeps typed values when the provider did not change)."""
        if self.spec is not None and self.spec.name == spec.name:
            return
        self.spec = spec
        self.models = []
        self.status.clear()
        self.session_button.hide()
        self.key.clear()
        runs_locally = spec.is_local or spec.name == "custom"
        section = self.services.config.provider_config(spec.name)
        self.api_base.setText((section.api_base if section else None) or spec.default_api_base)
        self.api_base.setPlaceholderText(
            "http://localhost:8080/v1" if spec.name == "custom" else spec.default_api_base
        )
        self.form.setRowVisible(self.api_base, runs_locally)
        if spec.name == "custom":
            self.about.setText(
                tr(
                    "Enter the address of an OpenAI-compatible server (llama.cpp, vLLM, LocalAI, "
                    "a company gateway…), usually ending in /v1. A key is only needed if the "
                    "server asks for one."
                )
            )
        elif spec.is_local:
            self.about.setText(
                tr("{provider} must be running. Check its address; no key is needed.").format(
                    provider=spec.display_name
                )
            )
        elif spec.env_key:
            self.about.setText(
                tr("Paste your {provider} API key (or set {env}). Test it before going on.").format(
                    provider=spec.display_name, env=spec.env_key
                )
            )
        else:
            self.about.setText(
                tr("Paste your {provider} API key. Test it before going on.").format(
                    provider=spec.display_name
                )
            )
        self.key.setPlaceholderText(
            tr("optional") if not spec.needs_key else tr("paste your API key")
        )
        self.existing_key = ""
        self.spawn(self._check_existing_key(spec), "onboarding-key")

    async def _check_existing_key(self, spec: ProviderSpec) -> None:
        try:
            resolved = await self.services.secrets.aresolve(spec.name, self.services.config)
        except KeyringUnavailable:
            return
        if resolved.found and self.spec is spec:
            self.existing_key = resolved.detail
            self.key.setPlaceholderText(
                tr("a key is already available ({source}); paste one to replace it").format(
                    source=localized(resolved.detail)
                )
            )

    def _toggle_reveal(self, shown: bool) -> None:
        self.key.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.reveal.setText(tr("Hide") if shown else tr("Show"))

    def api_base_value(self) -> str | None:
        """The server URL when this provider shows one (validated), else ``None``.

        Raises:
            ChangeError: Not a URL (or missing for the custom provider).
        """
        assert self.spec is not None
        if not (self.spec.is_local or self.spec.name == "custom"):
            return None
        return check_url(
            self.api_base.text(), label=tr("Server URL"), required=self.spec.name == "custom"
        )

    async def test(self) -> ProbeResult | None:
        """List the models (or, where that is impossible, send a one-token request)."""
        assert self.spec is not None
        try:
            base = self.api_base_value()
        except ChangeError as exc:
            self.status.error(f"{exc.path}: {exc.reason}.")
            return None
        key = self.key.text().strip() or None
        if key is None:
            resolved = await self.services.secrets.aresolve(self.spec.name, self.services.config)
            key = resolved.value
        if self.spec.needs_key and not key:
            self.status.error(tr("Paste your API key first."))
            return None
        self.test_button.setEnabled(False)
        self.status.info(tr("Testing…"))
        try:
            if listing_base(self.spec, base) is not None:
                result = await list_models(self.spec, api_base=base, api_key=key)
            else:
                result = await check_connection(
                    self.services.config,
                    self.services.secrets,
                    provider=self.spec.name,
                    model=EXAMPLE_MODELS.get(self.spec.name, "test"),
                    api_key=key,
                    api_base=base or "",
                )
        finally:
            self.test_button.setEnabled(True)
        if result.ok:
            self.models = result.models
            message = localized(result.message)
            self.status.ok(
                tr("It works. {result}").format(result=message) if result.models else message
            )
        else:
            self.status.error(localized(result.message))
        return result

    async def commit(self) -> bool:
        """Check the inputs and store a typed key in the keyring (on Next)."""
        assert self.spec is not None
        try:
            self.api_base_value()
        except ChangeError as exc:
            self.status.error(f"{exc.path}: {exc.reason}.")
            return False
        value = self.key.text().strip()
        if not value:
            if self.spec.needs_key and not self.existing_key:
                self.status.error(tr("Paste your API key to go on (or Skip to set it up later)."))
                return False
            return True
        if any(ch.isspace() for ch in value):
            self.status.error(tr("A key has no spaces or line breaks; check what was pasted."))
            return False
        try:
            await self.services.secrets.aset(self.spec.name, value)
        except KeyringUnavailable as exc:
            self.status.error(str(exc))
            self.session_button.show()
            return False
        except Exception as exc:  # noqa: BLE001 - the message is for the person
            self.status.error(tr("The key was not stored: {error}").format(error=redact(exc)))
            return False
        self.key.clear()
        self.existing_key = "the OS keyring"
        self.key.setPlaceholderText(tr("stored in the OS keyring; paste another to replace it"))
        return True

    def _keep_for_session(self) -> None:
        if self.spec is None or not self.key.text().strip():
            return
        self.services.secrets.set_session(self.spec.name, self.key.text().strip())
        self.key.clear()
        self.existing_key = "this session"
        self.session_button.hide()
        self.status.warn(
            tr(
                "The key is kept for this session only; add it again in Settings once a "
                "keyring works."
            )
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what this step started."""
        self.cancel_tasks()
        super().closeEvent(event)
