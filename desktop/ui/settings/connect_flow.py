"""The steps after "Test connection" on a channel page: install missing support, turn it on.

A channel page's test gives one plain result. Two things can follow it, each a button under the
result:

- the channel's SDK is missing: in a source install, "Install <Channel> support" — the exact
  command is shown before it runs, its output streams under a busy bar, and the test runs
  again by itself once it is done; elsewhere (a bundle, an installed package) the command to
  run is shown instead (the app never changes an installation it does not own);
- the test worked and the channel is off: "Turn on <Channel>", which saves the page with the
  channel enabled (the window then connects it).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop.core.utils.extras import InstallPlan
from desktop.ui.i18n import tr
from desktop.ui.settings.widgets import hint


class ConnectSteps(QWidget):
    """The install and turn-on steps of one channel page (hidden until one applies).

    Args:
        title: The channel's name for people (``Telegram``).

    Signals:
        installRequested(): the person asked to run :attr:`plan`.
        enableRequested(): the person asked to turn the channel on.
    """

    installRequested = Signal()
    enableRequested = Signal()

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.plan: InstallPlan | None = None
        self.transcript: list[str] = []
        """The last install's output (its last 40 lines), kept after the steps are hidden."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.command = hint("")
        self.command.setAccessibleName(tr("{channel} install command").format(channel=title))
        layout.addWidget(self.command)
        row = QHBoxLayout()
        install = tr("Install {channel} support").format(channel=title)
        self.install_button = QPushButton(install)
        self.install_button.setAccessibleName(install)
        self.install_button.clicked.connect(self.installRequested)
        turn_on = tr("Turn on {channel}").format(channel=title)
        self.enable_button = QPushButton(turn_on)
        self.enable_button.setAccessibleName(turn_on)
        self.enable_button.setToolTip(
            tr("Save this page with the channel enabled; it connects now")
        )
        self.enable_button.clicked.connect(self.enableRequested)
        row.addWidget(self.install_button)
        row.addWidget(self.enable_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy: pip says no fraction done
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.progress.setAccessibleName(tr("Installing {channel} support").format(channel=title))
        layout.addWidget(self.progress)
        self.last_line = QLabel()
        self.last_line.setWordWrap(True)
        self.last_line.setAccessibleName(tr("{channel} installer output").format(channel=title))
        layout.addWidget(self.last_line)
        self.clear()

    def clear(self) -> None:
        """Hide every step."""
        self.plan = None
        for widget in (
            self.command,
            self.install_button,
            self.enable_button,
            self.progress,
            self.last_line,
        ):
            widget.hide()
        self.command.setText("")
        self.last_line.setText("")
        self.setVisible(False)

    def offer_install(self, plan: InstallPlan) -> None:
        """Offer to run ``plan``, saying first what it runs."""
        self.clear()
        self.plan = plan
        self.command.setText(tr("This runs: {command}").format(command=plan.command))
        self.command.show()
        self.install_button.setEnabled(True)
        self.install_button.show()
        self.setVisible(True)

    def show_command(self, command: str) -> None:
        """Say which command installs the missing support (where the app does not run it)."""
        self.clear()
        self.command.setText(tr("To add it, run: {command}").format(command=command))
        self.command.show()
        self.setVisible(True)

    def installing(self) -> None:
        """The install runs: a busy bar and its output instead of the button."""
        self.install_button.setEnabled(False)
        self.transcript = []
        self.progress.show()
        self.last_line.show()

    def output(self, line: str) -> None:
        """Show the installer's latest line."""
        self.transcript = [*self.transcript[-39:], line]
        self.last_line.setText(line[-300:])
        self.last_line.setToolTip("\n".join(self.transcript))

    def installed(self) -> None:
        """The install finished (either way): no more bar or button."""
        self.progress.hide()
        self.install_button.hide()

    def offer_enable(self) -> None:
        """Offer to turn the channel on (after a test that worked)."""
        self.clear()
        self.enable_button.setEnabled(True)
        self.enable_button.show()
        self.setVisible(True)
