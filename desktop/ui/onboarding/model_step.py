"""Step 3: pick the model (from the list the test found, or typed), and try it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QVBoxLayout, QWidget

from desktop.core.config.provider_registry import ProviderSpec
from desktop.core.providers.probe import EXAMPLE_MODELS, check_connection
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus, button, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


class ModelStep(OwnsTasks, QWidget):
    """An editable model list and a one-token "Try it"."""

    title = QT_TR_NOOP("Pick a model")  # shown through tr()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.spec: ProviderSpec | None = None
        self.api_base: str | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.about = hint("")
        layout.addWidget(self.about)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        row = QHBoxLayout()
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.setAccessibleName(tr("Model"))
        self.model.setMaxVisibleItems(15)
        self.try_button = button(tr("Try it"), tr("Send a one-token test request to the model"))
        self.try_button.clicked.connect(lambda: self.spawn(self.try_model(), "onboarding-try"))
        row.addWidget(self.model, 1)
        row.addWidget(self.try_button)
        form.addRow(tr("Model"), row)
        layout.addLayout(form)
        self.status = InlineStatus(accessible=tr("Model test result"))
        layout.addWidget(self.status)
        layout.addStretch(1)

    def setup(self, spec: ProviderSpec, models: list[str], api_base: str | None) -> None:
        """Offer ``models`` of ``spec`` (keeps a typed choice when still valid)."""
        current = self.model.currentText().strip() if self.spec is spec else ""
        self.spec = spec
        self.api_base = api_base
        self.model.clear()
        self.model.addItems(models)
        configured = self.services.config.agents.defaults
        if current:
            self.model.setEditText(current)
        elif configured.provider == spec.name and configured.model:
            self.model.setEditText(configured.model)
        elif models:
            example = EXAMPLE_MODELS.get(spec.name, "")
            self.model.setCurrentIndex(models.index(example) if example in models else 0)
        else:
            self.model.setEditText("")
            suggestion = EXAMPLE_MODELS.get(spec.name)
            edit = self.model.lineEdit()
            assert edit is not None  # the combo box is editable
            edit.setPlaceholderText(
                tr("e.g. {model}").format(model=suggestion) if suggestion else tr("model name")
            )
        if len(models) == 1:
            found = tr("1 model was found; pick one or type a name.")
        elif models:
            found = tr("{count} models were found; pick one or type a name.").format(
                count=len(models)
            )
        else:
            found = tr("Type the name of the model to use.")
        self.about.setText(
            tr("{found} You can change it any time in Settings → Providers.").format(found=found)
        )
        self.status.clear()

    def chosen(self) -> str:
        """The model name typed or picked."""
        return self.model.currentText().strip()

    def validate(self) -> bool:
        """A model name is required (and has no spaces)."""
        name = self.chosen()
        if not name:
            self.status.error(tr("Pick or type a model to go on."))
            return False
        if any(ch.isspace() for ch in name):
            self.status.error(tr("A model name has no spaces."))
            return False
        return True

    async def try_model(self) -> bool:
        """A one-token request to the chosen model."""
        if self.spec is None or not self.validate():
            return False
        self.try_button.setEnabled(False)
        self.status.info(tr("Asking the model…"))
        try:
            result = await check_connection(
                self.services.config,
                self.services.secrets,
                provider=self.spec.name,
                model=self.chosen(),
                api_base=self.api_base or "",
            )
        finally:
            self.try_button.setEnabled(True)
        (self.status.ok if result.ok else self.status.error)(localized(result.message))
        return result.ok

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what this step started."""
        self.cancel_tasks()
        super().closeEvent(event)
