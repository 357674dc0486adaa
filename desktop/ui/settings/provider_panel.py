"""One provider's settings: the key (how to get one, with a link), test and model list first;
API base, extra headers and a section's own fields in a collapsed "Advanced" section."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.edit import ChangeError
from desktop.core.config.errors import ConfigError
from desktop.core.config.provider_registry import ProviderSpec
from desktop.core.providers.probe import EXAMPLE_MODELS, check_connection, list_models, listing_base
from desktop.ui.i18n import localized, tr
from desktop.ui.settings.guided import Collapsible, LinkText
from desktop.ui.settings.key_backends import provider_key_backend
from desktop.ui.settings.key_field import KeyField
from desktop.ui.settings.page import commit_changes, save_error_text
from desktop.ui.settings.provider_extras import ABOUT, SectionExtras
from desktop.ui.settings.provider_guides import (
    ProviderGuide,
    endpoint_is_essential,
    guide_for,
    join_sentences,
)
from desktop.ui.settings.sign_in import SignInBox
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import (
    InlineStatus,
    LinesEdit,
    button,
    check_url,
    format_mapping,
    heading,
    hint,
    parse_mapping,
)

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


def _box(*parts: QWidget | QLayout) -> QWidget:
    """A column of rows and widgets with no margins, to sit in one form field."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(4)
    for part in parts:
        if isinstance(part, QLayout):
            column.addLayout(part)
        else:
            column.addWidget(part)
    return box


def _how_to_label(guide: ProviderGuide) -> QLabel:
    """The guide's paragraph with the provider's key page (opens in the browser)."""
    text = html.escape(guide.how_to)
    if guide.link:
        link = f'<a href="{html.escape(guide.link)}">{html.escape(guide.link_text)}</a>'
        text = join_sentences([text, link])
    label = LinkText(text)
    label.setAccessibleName(tr("How to get a key"))
    return label


class ProviderPanel(OwnsTasks, QScrollArea):
    """Settings of one provider.

    Args:
        services: The shared services.
        spec: The provider.

    Signals:
        modelsFetched(list): model ids fetched from the provider.
        useModel(str, str): the person picked ``(model, provider)`` as the default.
        keyChanged(): a key was stored or deleted, or someone signed in or out.
        configError(str): the config file on disk is malformed.
    """

    modelsFetched = Signal(list)
    useModel = Signal(str, str)
    keyChanged = Signal()
    configError = Signal(str)

    def __init__(  # noqa: C901  # one optional row per provider feature
        self, services: AppServices, spec: ProviderSpec, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.spec = spec
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        name = tr(spec.display_name)
        self.setAccessibleName(tr("{provider} provider settings").format(provider=name))
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(12, 0, 8, 8)
        layout.setSpacing(8)
        self.setWidget(body)
        layout.addWidget(heading(name, level=2))
        about = []
        if spec.is_local:
            about.append(tr("A server on your machine or network; usually no key is needed."))
        elif spec.is_gateway:
            about.append(tr("A gateway that serves models of many vendors."))
        if spec.env_key:
            about.append(
                tr("The key may also come from the environment variable {variable}.").format(
                    variable=spec.env_key
                )
            )
        if spec.oauth:
            cli = spec.name.replace("_", "-")
            about.append(
                tr("The sign-in is kept in the OS keyring. From a terminal: {command}").format(
                    command=f"nanobot-desktop provider login {cli}"
                )
            )
        about.extend(tr(text) for text in ABOUT.get(spec.name, ()))
        if spec.alias_for:
            about.append(
                tr(
                    "nanobot's earlier name for the OpenCode Zen section; a key stored here is "
                    "used for models chosen with this provider."
                )
            )
        if about:
            layout.addWidget(hint(join_sentences(about)))
        self.guide = guide_for(spec)
        self.how_to = _how_to_label(self.guide)
        layout.addWidget(self.how_to)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        # OAuth providers are signed in to; the others take an API key.
        self.key: KeyField | None = None
        self.sign_in: SignInBox | None = None
        if spec.oauth:
            self.sign_in = self.adopt(SignInBox(services, spec))
            self.sign_in.changed.connect(self.keyChanged)
            form.addRow(tr("Account"), self.sign_in)
        else:
            self.key = self.adopt(
                KeyField(
                    provider_key_backend(services, spec.name),
                    label=tr("{provider} API key").format(provider=name),
                    needs_key=spec.needs_key,
                )
            )
            self.key.changed.connect(self.keyChanged)
            form.addRow(tr("API key"), self.key)
        self.api_base = QLineEdit()
        self.api_base.setAccessibleName(tr("{provider} API base URL").format(provider=name))
        self.api_base.setPlaceholderText(
            spec.default_api_base or listing_base(spec, None) or tr("provider default")
        )
        self.api_base.setToolTip(tr("The address requests go to (empty: the provider's own)."))
        self.headers = LinesEdit(
            placeholder=tr("Header-Name: value (one per line)"),
            rows=2,
            accessible=tr("{provider} extra headers").format(provider=name),
        )
        self.headers.setToolTip(
            tr("HTTP headers sent with every request, one “Name: value” a line.")
        )
        self.endpoint_dirty = False  # typed but not saved: a reload must not wipe it
        self._filling = False
        self.api_base.textEdited.connect(self._endpoint_edited)
        self.headers.textChanged.connect(self._endpoint_edited)
        # The endpoint is an essential only where there is no address of the provider's own.
        self.advanced = Collapsible(
            tr("Advanced"), accessible=tr("{provider} advanced").format(provider=name)
        )
        advanced = QFormLayout(self.advanced.body)
        advanced.setContentsMargins(0, 0, 0, 0)
        advanced.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.endpoint_essential = endpoint_is_essential(spec)
        endpoint_form = form if self.endpoint_essential else advanced
        endpoint_form.addRow(tr("API base"), self.api_base)
        advanced.addRow(tr("Extra headers"), self.headers)
        self.extras = SectionExtras(spec, self._endpoint_edited)
        for label, field in self.extras.rows():
            advanced.addRow(label, field)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self.endpoint_status = InlineStatus(
            accessible=tr("{provider} endpoint status").format(provider=name)
        )
        row.addWidget(self.endpoint_status, 1)
        row.addStretch(0)
        self.save_endpoint = button(
            tr("Save endpoint"),
            tr("Save the {provider} API base and headers").format(provider=name),
        )
        self.save_endpoint.clicked.connect(
            lambda: self.spawn(self.save_endpoint_settings(), "save-endpoint")
        )
        row.addWidget(self.save_endpoint)
        endpoint_form.addRow("", _box(row))
        if self.endpoint_essential:
            advanced.addRow("", hint(tr("Saved with “Save endpoint” above, with the API base.")))

        test_row = QHBoxLayout()
        self.test_model = QLineEdit()
        self.test_model.setAccessibleName(tr("Model used to test {provider}").format(provider=name))
        example = EXAMPLE_MODELS.get(spec.name)
        self.test_model.setPlaceholderText(
            tr("e.g. {model}").format(model=example) if example else tr("model name")
        )
        self.test_button = button(
            tr("Test connection"), tr("Test the connection to {provider}").format(provider=name)
        )
        self.test_button.clicked.connect(lambda: self.spawn(self.test(), "provider-test"))
        test_row.addWidget(self.test_model, 1)
        test_row.addWidget(self.test_button)
        self.test_status = InlineStatus(
            accessible=tr("{provider} connection test result").format(provider=name)
        )
        self.test_box = _box(test_row, self.test_status)
        form.addRow(tr("Test with model"), self.test_box)

        self.fetch_button = button(
            tr("Fetch models"), tr("Fetch the list of {provider} models").format(provider=name)
        )
        self.fetch_button.clicked.connect(lambda: self.spawn(self.fetch(), "provider-models"))
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(tr("Filter models"))
        self.filter.setAccessibleName(tr("Filter {provider} models").format(provider=name))
        self.filter.textChanged.connect(self._filter)
        self.models = QListWidget()
        self.models.setAccessibleName(tr("{provider} models").format(provider=name))
        self.models.setMinimumHeight(140)
        self.models.itemDoubleClicked.connect(lambda _item: self._use_selected())
        self.models.itemSelectionChanged.connect(
            lambda: self.use_button.setEnabled(bool(self.models.selectedItems()))
        )
        self.use_button: QPushButton = button(
            tr("Use as default model"),
            tr("Use the selected {provider} model as the default").format(provider=name),
        )
        self.use_button.setEnabled(False)
        self.use_button.clicked.connect(self._use_selected)
        self.models_status = InlineStatus(
            accessible=tr("{provider} model list status").format(provider=name)
        )
        fetch_row = QHBoxLayout()
        fetch_row.addWidget(self.fetch_button)
        fetch_row.addWidget(self.filter, 1)
        fetch_row.addWidget(self.use_button)
        fetch_row.addStretch(0)
        self.models_box = _box(fetch_row, self.models_status, self.models)
        form.addRow(tr("Models"), self.models_box)
        if spec.transcription_only:  # it answers no chat: nothing to test with a model
            for hidden in (self.test_box, self.models_box):
                form.setRowVisible(hidden, False)
        layout.addLayout(form)
        layout.addWidget(self.advanced)
        self.form = form
        self.advanced_form = advanced
        can_list = spec.supports_model_listing
        self._show_model_list(False)
        if not can_list:
            self.fetch_button.setEnabled(False)
            self.fetch_button.setToolTip(
                tr("This provider has no model list; type the model name.")
            )
            self.models_status.info(
                tr("{provider} offers no model list here; type the model name.").format(
                    provider=name
                )
            )
        layout.addStretch(1)

    # -- state -------------------------------------------------------------------------------
    def load(self) -> None:
        """Fill the fields from the config and read where the key comes from."""
        section = self.services.config.provider_config(self.spec.name)
        if not self.endpoint_dirty:
            self._filling = True
            try:
                self.api_base.setText((section.api_base if section else None) or "")
                self.headers.set_lines(
                    format_mapping(section.extra_headers if section else None, ":")
                )
                self.extras.load(section)
            finally:
                self._filling = False
        if not self.test_model.text():
            self.test_model.setText(self._default_model_for_me())
        self.refresh_credentials()

    def refresh_credentials(self) -> None:
        """Read the key's source (or who is signed in) again, in the background."""
        if self.key is not None:
            self.key.refresh()
        if self.sign_in is not None:
            self.sign_in.refresh()

    def _default_model_for_me(self) -> str:
        """The default model when it is (explicitly or by name) served by this provider."""
        defaults = self.services.config.agents.defaults
        if defaults.provider == self.spec.name:
            return defaults.model
        lowered = defaults.model.lower()
        if defaults.provider in ("", "auto") and (
            lowered.startswith(f"{self.spec.name}/")
            or any(k in lowered for k in self.spec.keywords)
        ):
            return defaults.model
        return ""

    def _endpoint(self) -> tuple[str | None, dict[str, str]]:
        base = check_url(self.api_base.text(), label=tr("API base"))
        headers = parse_mapping(
            self.headers.lines(), label=tr("Extra headers"), separator_char=":", kind="header"
        )
        return base, headers

    async def save_endpoint_settings(self) -> bool:
        """Save API base and extra headers."""
        try:
            base, headers = self._endpoint()
            prefix = f"providers.{self.spec.name}"
            section = self.services.config.provider_config(self.spec.name)
            await commit_changes(
                self.services,
                {
                    f"{prefix}.api_base": base,
                    f"{prefix}.extra_headers": headers or None,
                    **self.extras.changes(prefix, section),
                },
            )
        except ChangeError as exc:
            self.endpoint_status.error(
                tr("{field}: {reason}. Nothing was saved.").format(
                    field=exc.path, reason=exc.reason
                )
            )
            return False
        except (ConfigError, OSError) as exc:
            self.endpoint_status.error(save_error_text(exc))
            if isinstance(exc, ConfigError):
                self.configError.emit(localized(exc))
            return False
        self.endpoint_dirty = False
        self.endpoint_status.ok(tr("Saved."))
        return True

    # -- actions -----------------------------------------------------------------------------
    async def test(self) -> bool:
        """One tiny real request with what is typed (key, base, headers) or saved."""
        try:
            base, headers = self._endpoint()
        except ChangeError as exc:
            self.test_status.error(f"{exc.path}: {exc.reason}.")
            return False
        self.test_button.setEnabled(False)
        self.test_status.info(tr("Testing…"))
        try:
            result = await check_connection(
                self.services.config,
                self.services.secrets,
                provider=self.spec.name,
                model=self.test_model.text(),
                api_key=(self.key.typed() if self.key is not None else "") or None,
                api_base=base or "",
                extra_headers=headers,
            )
        finally:
            self.test_button.setEnabled(True)
        (self.test_status.ok if result.ok else self.test_status.error)(localized(result.message))
        return result.ok

    async def fetch(self) -> bool:
        """List the provider's models (``GET {apiBase}/models``)."""
        try:
            base, headers = self._endpoint()
        except ChangeError as exc:
            self.models_status.error(f"{exc.path}: {exc.reason}.")
            return False
        key = (self.key.typed() if self.key is not None else "") or None
        if (
            key is None and not self.spec.oauth
        ):  # a stored key is sent even to keyless servers that were given one
            resolved = await self.services.secrets.aresolve(self.spec.name, self.services.config)
            key = resolved.value
        self.fetch_button.setEnabled(False)
        self.models_status.info(tr("Fetching models…"))
        try:
            result = await list_models(self.spec, api_base=base, api_key=key, extra_headers=headers)
        finally:
            self.fetch_button.setEnabled(True)
        if not result.ok:
            self.models_status.error(localized(result.message))
            return False
        self.models.clear()
        self.models.addItems(result.models)
        self._show_model_list(True)
        self.models_status.ok(
            localized(result.message) + " " + tr("Double-click one to use it as the default model.")
        )
        if not self.test_model.text():
            self.test_model.setText(result.models[0])
        self._filter(self.filter.text())
        self.modelsFetched.emit(result.models)
        return True

    def _show_model_list(self, shown: bool) -> None:
        self.filter.setVisible(shown)
        self.use_button.setVisible(shown)
        self.models.setVisible(shown)

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.models.count()):
            item = self.models.item(row)
            item.setHidden(bool(needle) and needle not in item.text().lower())

    def _endpoint_edited(self, *_args: object) -> None:
        if not self._filling:
            self.endpoint_dirty = True
            if self.endpoint_status.kind == "ok":
                self.endpoint_status.clear()

    def _use_selected(self) -> None:
        items = self.models.selectedItems()
        if items:
            self.spawn(self.use_model(items[0].text()), "use-model")

    async def use_model(self, model: str) -> bool:
        """Make ``model`` of this provider the default; an edited endpoint is saved first."""
        if self.endpoint_dirty and not await self.save_endpoint_settings():
            return False
        self.useModel.emit(model, self.spec.name)
        return True

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what this panel started."""
        self.cancel_tasks()  # the key field's tasks too (adopted)
        super().closeEvent(event)
