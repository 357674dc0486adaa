"""The default model picker: ``agents.defaults.model`` and ``agents.defaults.provider``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent, QPalette
from PySide6.QtWidgets import QComboBox, QGridLayout, QGroupBox, QLabel, QPushButton, QWidget

from desktop.core.config.edit import ChangeError
from desktop.core.config.errors import ConfigError
from desktop.core.config.provider_registry import PROVIDERS, find_by_name
from desktop.core.utils.redact import redact
from desktop.core.utils.threads import run_daemon
from desktop.ui.i18n import QT_TR_NOOP, Phrase, localized, tr
from desktop.ui.settings.page import commit_changes, save_error_text
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus

if TYPE_CHECKING:
    from desktop.core.config.secrets import ResolvedKey
    from desktop.core.providers.matching import ProviderChoice
    from desktop.ui.services import AppServices

AUTO = "auto"


def _account(detail: str) -> str:
    """Who is signed in, from an OAuth key's ``detail`` (without where the sign-in is kept)."""
    if isinstance(detail, Phrase) and "account" in detail.fields:
        account = detail.fields["account"]
        if isinstance(account, Phrase) and "account" in account.fields:  # "signed in as …"
            return Phrase(QT_TR_NOOP("signed in as {account}"), account=account.fields["account"])
        return account if isinstance(account, str) else str(account)
    return detail.split(" (", 1)[0]


class DefaultModelBox(OwnsTasks, QGroupBox):
    """Model name (editable, with fetched suggestions) and provider (auto or explicit).

    Signals:
        saved(): the default model was saved.
        configError(str): the config file on disk is malformed.
    """

    saved = Signal()
    configError = Signal(str)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(tr("Default model"), parent)
        self.services = services
        grid = QGridLayout(self)
        grid.setHorizontalSpacing(8)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.setAccessibleName(tr("Default model"))
        edit = self.model.lineEdit()
        assert edit is not None  # the combo box is editable
        edit.setPlaceholderText(tr("e.g. {model}").format(model="anthropic/claude-opus-4-5"))
        self.provider = QComboBox()
        self.provider.setAccessibleName(tr("Provider of the default model"))
        self.provider.addItem(tr("Auto (from the model name and your keys)"), AUTO)
        for spec in (s for s in PROVIDERS if s.chats):  # not the transcription-only ones
            self.provider.addItem(tr(spec.display_name), spec.name)
        self.save_button = QPushButton(tr("Save"))
        self.save_button.setAccessibleName(tr("Save the default model"))
        self.save_button.clicked.connect(lambda: self.spawn(self.save(), "save-model"))
        self.route = QLabel("")
        self.route.setWordWrap(True)
        self.route.setAccessibleName(tr("Where the default model is sent"))
        self.status = InlineStatus(accessible=tr("Default model status"))
        self.scope = QLabel(
            tr("Every chat uses this model unless it was given its own in the chat's header.")
        )
        self.scope.setWordWrap(True)
        self.scope.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        grid.addWidget(QLabel(tr("Model")), 0, 0)
        grid.addWidget(self.model, 0, 1)
        grid.addWidget(QLabel(tr("Provider")), 0, 2)
        grid.addWidget(self.provider, 0, 3)
        grid.addWidget(self.save_button, 0, 4)
        grid.addWidget(self.route, 1, 1, 1, 4)
        grid.addWidget(self.status, 2, 1, 1, 4)
        grid.addWidget(self.scope, 3, 1, 1, 4)
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(3, 2)

    def load(self) -> None:
        """Show the saved model and provider."""
        defaults = self.services.config.agents.defaults
        self.model.setEditText(defaults.model)
        index = self.provider.findData(defaults.provider or AUTO)
        self.provider.setCurrentIndex(max(index, 0))
        self.spawn(self.describe_route(), "model-route")

    def suggest(self, models: list[str]) -> None:
        """Offer ``models`` (e.g. just fetched) in the model list."""
        current = self.model.currentText()
        known = {self.model.itemText(i) for i in range(self.model.count())}
        for name in models:
            if name not in known:
                self.model.addItem(name)
        self.model.setEditText(current)

    def choose(self, model: str, provider: str) -> None:
        """Put ``model`` served by ``provider`` into the fields and save."""
        self.model.setEditText(model)
        index = self.provider.findData(provider)
        self.provider.setCurrentIndex(max(index, 0))
        self.spawn(self.save(), "save-model")

    async def save(self) -> bool:
        """Save model and provider (a model name is required)."""
        model = self.model.currentText().strip()
        provider = str(self.provider.currentData() or AUTO)
        if not model:
            self.status.error(tr("Model: enter a model name. Nothing was saved."))
            return False
        if any(ch.isspace() for ch in model):
            self.status.error(tr("Model: a model name has no spaces. Nothing was saved."))
            return False
        try:
            await commit_changes(
                self.services,
                {"agents.defaults.model": model, "agents.defaults.provider": provider},
            )
        except ChangeError as exc:
            self.status.error(
                tr("{reason}. Nothing was saved.").format(reason=localized(exc.reason))
            )
            return False
        except (ConfigError, OSError) as exc:
            self.status.error(save_error_text(exc))
            if isinstance(exc, ConfigError):
                self.configError.emit(localized(exc))
            return False
        self.status.ok(tr("Saved: new chats use {model}.").format(model=model))
        self.saved.emit()
        await self.describe_route()
        return True

    async def describe_route(self) -> None:
        """Say which provider the saved default model goes to and whether it has a key."""
        config, secrets = self.services.config, self.services.secrets

        def route() -> tuple[ProviderChoice, ResolvedKey]:
            # Imported in the thread: the agent's start may be importing the same module in
            # another one, and the loop would wait for that import's lock.
            from desktop.core.providers.factory import resolve_choice

            return resolve_choice(config, secrets)

        try:
            choice, key = await run_daemon(route, "model-route")
        except LookupError as exc:
            self.route.setText(tr("Not usable yet: {reason}").format(reason=redact(localized(exc))))
            return
        name = tr(choice.spec.display_name)
        if choice.spec.oauth:
            where = (
                localized(_account(key.detail))
                if key.found
                else tr("not signed in yet — sign in on the {provider} page below").format(
                    provider=name
                )
            )
        elif choice.spec.needs_key and not key.found:
            where = tr("no key yet — add one on the {provider} page below").format(provider=name)
        elif key.found:
            where = tr("key from {source}").format(source=localized(key.detail))
        else:
            where = tr("no key needed")
        if choice.api_base:
            text = tr("Sent to {provider} at {address} as {model} ({how}).").format(
                provider=name, address=choice.api_base, model=choice.model, how=where
            )
        else:
            text = tr("Sent to {provider} as {model} ({how}).").format(
                provider=name, model=choice.model, how=where
            )
        self.route.setText(text)

    def provider_display(self, name: str) -> str:
        """Display name of a registry name."""
        spec = find_by_name(name)
        return tr(spec.display_name) if spec else name

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what this box started."""
        self.cancel_tasks()
        super().closeEvent(event)
