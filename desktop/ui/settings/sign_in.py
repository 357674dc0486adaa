"""Sign in to an OAuth provider from Settings: the flow runs in the app, cancel works.

GitHub Copilot shows a code to type at github.com (Copy code, Open browser); ChatGPT (Codex)
opens the browser, which comes back to the app by itself. Once signed in the box says who,
with a Sign out button.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices, QFont, QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop.core.config.provider_registry import ProviderSpec
from desktop.core.config.secrets import KeyringUnavailable
from desktop.core.providers.oauth.flow import LoginError, LoginPrompt
from desktop.core.utils.redact import redact
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus, button, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

# The button and the paragraph per provider, marked for translation (shown through tr()).
_WHAT = {
    "openai_codex": (
        QT_TR_NOOP("Sign in with ChatGPT"),
        QT_TR_NOOP(
            "Uses your ChatGPT plan (Plus, Pro, Team…) instead of an API key. Your browser opens "
            "to sign in and comes back here by itself."
        ),
    ),
    "xai_grok": (
        QT_TR_NOOP("Sign in with xAI"),
        QT_TR_NOOP(
            "Uses your xAI Grok subscription instead of an API key. Your browser opens to sign "
            "in to your xAI account and comes back here by itself."
        ),
    ),
    "github_copilot": (
        QT_TR_NOOP("Sign in with GitHub"),
        QT_TR_NOOP(
            "Uses your GitHub Copilot plan instead of an API key. You type a short code on "
            "github.com to let nanobot Desktop in."
        ),
    ),
}


class SignInBox(OwnsTasks, QWidget):
    """Sign-in state of one OAuth provider, with Sign in / Cancel / Sign out.

    Args:
        services: The shared services (config, secret store).
        spec: The provider (``spec.oauth``).

    Signals:
        changed(): someone signed in or out.
    """

    changed = Signal()

    def __init__(
        self, services: AppServices, spec: ProviderSpec, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.spec = spec
        self.prompt: LoginPrompt | None = None
        self._flow: asyncio.Task[object] | None = None
        name = self.name = tr(spec.display_name)
        if spec.name in _WHAT:
            label, about = (tr(text) for text in _WHAT[spec.name])
        else:
            label, about = tr("Sign in to {provider}").format(provider=name), ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.state_label = QLabel(tr("Checking the keyring…"))
        self.state_label.setWordWrap(True)
        self.state_label.setAccessibleName(tr("{provider} sign-in state").format(provider=name))
        layout.addWidget(self.state_label)
        self.about = hint(about)
        layout.addWidget(self.about)

        # While a device sign-in runs: the address, the code, Copy / Open browser.
        self.instructions = QLabel("")
        self.instructions.setWordWrap(True)
        self.instructions.setOpenExternalLinks(False)
        self.instructions.setAccessibleName(
            tr("{provider} sign-in instructions").format(provider=name)
        )
        layout.addWidget(self.instructions)
        self.code = QLabel("")
        font = QFont(self.code.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        font.setFamilies(["monospace"])
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.code.setFont(font)
        self.code.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.code.setAccessibleName(tr("{provider} sign-in code").format(provider=name))
        layout.addWidget(self.code)

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self.sign_in_button = button(
            label, tr("{action} ({provider})").format(action=label, provider=name)
        )
        self.sign_in_button.clicked.connect(self.start)
        self.copy_button = button(
            tr("Copy code"), tr("Copy the {provider} sign-in code").format(provider=name)
        )
        self.copy_button.clicked.connect(self.copy_code)
        self.open_button = button(
            tr("Open browser"), tr("Open the {provider} sign-in page").format(provider=name)
        )
        self.open_button.clicked.connect(self.open_page)
        self.cancel_button = button(
            tr("Cancel"), tr("Cancel signing in to {provider}").format(provider=name)
        )
        self.cancel_button.clicked.connect(self.cancel)
        self.sign_out_button = button(
            tr("Sign out"), tr("Sign out of {provider}").format(provider=name)
        )
        self.sign_out_button.clicked.connect(lambda: self.spawn(self.sign_out(), "sign-out"))
        for widget in (
            self.sign_in_button,
            self.copy_button,
            self.open_button,
            self.cancel_button,
            self.sign_out_button,
        ):
            row.addWidget(widget)
        row.addStretch(1)
        layout.addLayout(row)
        self.status = InlineStatus(accessible=tr("{provider} sign-in status").format(provider=name))
        layout.addWidget(self.status)
        self._show_idle(signed_in=None)

    # -- state -----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether a sign-in is in progress."""
        return self._flow is not None and not self._flow.done()

    def refresh(self) -> None:
        """Read who is signed in (in the background); nothing changes while signing in."""
        if not self.running:
            self.spawn(self._refresh(), "sign-in-refresh")

    async def _refresh(self) -> None:
        from desktop.core.providers.oauth.accounts import asigned_in

        try:
            tokens = await asigned_in(self.spec.name, self.services.secrets)
        except KeyringUnavailable as exc:
            self.state_label.setText(
                tr("Cannot read the keyring: {error}").format(error=redact(exc))
            )
            self._show_idle(signed_in=None)
            return
        if self.running:
            return
        if tokens is None:
            self.state_label.setText(tr("Not signed in."))
        elif tokens.account:
            self.state_label.setText(tr("Signed in as {account}").format(account=tokens.account))
        else:
            self.state_label.setText(tr("Signed in as an unnamed account"))
        self._show_idle(signed_in=tokens is not None)

    def _show_idle(self, *, signed_in: bool | None) -> None:
        self.prompt = None
        self.instructions.hide()
        self.code.hide()
        self.copy_button.hide()
        self.open_button.hide()
        self.cancel_button.hide()
        self.sign_in_button.setVisible(signed_in is not True)
        self.sign_in_button.setEnabled(signed_in is False)
        self.sign_out_button.setVisible(signed_in is True)
        self.about.setVisible(signed_in is not True)

    def _show_running(self) -> None:
        self.sign_in_button.hide()
        self.sign_out_button.hide()
        self.cancel_button.show()

    # -- actions -----------------------------------------------------------------------------
    def start(self) -> None:
        """Start the sign-in (a click on Sign in)."""
        if self.running:
            return
        self.status.clear()
        self._show_running()
        self.state_label.setText(tr("Starting the sign-in…"))
        self._flow = self.spawn(self.sign_in(), "sign-in")

    async def sign_in(self) -> bool:
        """Run the flow to the end; whether it signed in."""
        from desktop.core.providers.oauth.accounts import sign_in

        try:
            tokens = await sign_in(
                self.spec.name, self.services.secrets, self.services.config, on_prompt=self._prompt
            )
        except asyncio.CancelledError:
            self.status.info(tr("Sign-in cancelled. Nothing was stored."))
            await self._refresh_after_flow()
            raise
        except LoginError as exc:
            self.status.error(tr("{error} Nothing was stored.").format(error=localized(exc)))
            await self._refresh_after_flow()
            return False
        except KeyringUnavailable as exc:
            self.status.error(
                tr("Signed in, but the sign-in could not be kept: {error}").format(
                    error=localized(exc)
                )
            )
            await self._refresh_after_flow()
            return False
        self.status.ok(
            tr("Signed in to {provider}. The sign-in is in the OS keyring.").format(
                provider=self.name
            )
        )
        await self._refresh_after_flow()
        self.changed.emit()
        return tokens is not None

    async def _refresh_after_flow(self) -> None:
        """Show who is signed in now; a cancelled flow still gets this refresh (shielded), which
        is a task of this box like any other, so closing the box stops it too."""
        self._flow = None
        task = self.spawn(self._refresh(), "sign-in-refresh")
        if task is not None:
            await asyncio.shield(task)

    def _prompt(self, prompt: LoginPrompt) -> None:
        self.prompt = prompt
        self.instructions.show()
        self.open_button.show()
        if prompt.kind == "device":
            minutes = max(1, round(prompt.expires_in / 60))
            self.state_label.setText(tr("Waiting for you to enter the code…"))
            self.instructions.setText(
                tr("Open {url} and enter this code (it works for {minutes} minutes):").format(
                    url=prompt.url, minutes=minutes
                )
            )
            self.code.setText(prompt.user_code)
            self.code.show()
            self.copy_button.show()
        else:
            self.state_label.setText(tr("Waiting for the browser…"))
            self.instructions.setText(
                tr(
                    "Finish signing in in your browser; this page updates by itself. If no "
                    "browser opened, click Open browser."
                )
            )
            self.open_page()

    def copy_code(self) -> None:
        """Put the device code on the clipboard."""
        if self.prompt is not None and self.prompt.user_code:
            clipboard = QGuiApplication.clipboard()
            clipboard.setText(self.prompt.user_code)
            self.status.info(tr("Code copied."))

    def open_page(self) -> None:
        """Open the sign-in page in the default browser."""
        if self.prompt is None:
            return
        if not QDesktopServices.openUrl(QUrl(self.prompt.url)):
            self.status.warn(
                tr("No browser could be opened; open {url} yourself.").format(url=self.prompt.url)
            )

    def cancel(self) -> None:
        """Stop a running sign-in."""
        if self._flow is not None and not self._flow.done():
            self._flow.cancel()

    async def sign_out(self) -> bool:
        """Forget the sign-in."""
        from desktop.core.providers.oauth.accounts import sign_out

        try:
            existed = await sign_out(self.spec.name, self.services.secrets)
        except KeyringUnavailable as exc:
            self.status.error(tr("Not signed out: {error}").format(error=exc))
            return False
        self.status.ok(
            (
                tr("Signed out of {provider}.")
                if existed
                else tr("Nobody was signed in to {provider}.")
            ).format(provider=self.name)
        )
        await self._refresh()
        self.changed.emit()
        return existed

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel a running sign-in."""
        self.cancel_tasks()
        super().closeEvent(event)
