"""Settings → Tools & safety: what sandboxed commands see, and their resource limits.

The values live in ``desktop.json`` under ``sandbox``
(:class:`~desktop.core.config.sandbox_settings.SandboxPrefs`); the page saves them with
its other preferences. Commands read them anew each time, so a change applies to the next
command without a restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.edit import ChangeError
from desktop.core.config.sandbox_settings import SandboxFolder, SandboxLimits, SandboxPrefs
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.widgets import heading, hint

HOME_HINT = QT_TR_NOOP(
    "Off (the default): commands see the workspace, the system (read-only) and a scratch home "
    "folder of their own, kept per workspace, so the keys, tokens and mail in your home folder "
    "stay out of their reach. The config folder stays hidden either way."
)
FOLDERS_HINT = QT_TR_NOOP(
    "Folders outside the workspace that commands may see, each read-only or writable."
)
LIMITS_HINT = QT_TR_NOOP(
    "For each command and everything it starts. Reaching the process or memory limit stops "
    "the command; a larger file or more CPU time fails. Everything it started ends with it."
)
ACCESS = ((QT_TR_NOOP("Read-only"), False), (QT_TR_NOOP("Read and write"), True))
# (field, label, unit suffix: MiB stays as it is)
LIMIT_FIELDS = (
    ("processes", QT_TR_NOOP("Processes"), ""),
    ("memory_mb", QT_TR_NOOP("Memory (all processes together)"), " MiB"),
    ("file_size_mb", QT_TR_NOOP("Largest file"), " MiB"),
    ("tmp_size_mb", QT_TR_NOOP("Size of /tmp"), " MiB"),
    ("cpu_seconds", QT_TR_NOOP("CPU time per process"), QT_TR_NOOP(" s")),
)


def _bounds(name: str) -> tuple[int, int]:
    """The ``ge``/``le`` of a :class:`SandboxLimits` field."""
    low, high = 0, 2**31 - 1
    for item in SandboxLimits.model_fields[name].metadata:
        low = int(getattr(item, "ge", low))
        high = int(getattr(item, "le", high))
    return low, min(high, 2**31 - 1)


class SandboxBox(QWidget):
    """The home-folder switch, the extra folders and the limits.

    Signals:
        edited(): the person changed something.
    """

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(tr("What commands see and their limits"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading(tr("What commands see"), level=2))
        self.home_visible = QCheckBox(tr("Let commands see my home folder (read-only)"))
        self.home_visible.setAccessibleName(tr("Let commands see my home folder"))
        self.home_visible.toggled.connect(self._changed)
        layout.addWidget(self.home_visible)
        layout.addWidget(hint(tr(HOME_HINT)))
        layout.addWidget(hint(tr(FOLDERS_HINT)))
        self.folders = QTableWidget(0, 2)
        self.folders.setAccessibleName(tr("Folders commands may see"))
        self.folders.setHorizontalHeaderLabels([tr("Folder"), tr("Access")])
        header = self.folders.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        sample = QComboBox()
        for label, _value in ACCESS:
            sample.addItem(tr(label))
        header.resizeSection(1, sample.sizeHint().width() + 8)
        self.folders.verticalHeader().hide()
        self.folders.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.folders.setMinimumHeight(110)
        self.folders.setMaximumHeight(140)
        self.folders.itemChanged.connect(self._changed)
        layout.addWidget(self.folders)
        row = QHBoxLayout()
        self.add_button = QPushButton(tr("Add folder…"))
        self.add_button.setAccessibleName(tr("Add a folder commands may see"))
        self.add_button.clicked.connect(self._browse)
        self.remove_button = QPushButton(tr("Remove"))
        self.remove_button.setAccessibleName(tr("Remove the selected folder"))
        self.remove_button.clicked.connect(self.remove_selected)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout.addLayout(row)

        layout.addWidget(heading(tr("Limits per command"), level=2))
        layout.addWidget(hint(tr(LIMITS_HINT)))
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.limits: dict[str, QSpinBox] = {}
        for name, text, suffix in LIMIT_FIELDS:
            label = tr(text)
            box = QSpinBox()
            box.setRange(*_bounds(name))
            box.setSuffix(tr(suffix) if suffix else "")
            box.setGroupSeparatorShown(True)
            box.setMinimumWidth(140)
            box.setAccessibleName(label)
            box.valueChanged.connect(self._changed)
            form.addRow(label, box)
            self.limits[name] = box
        layout.addLayout(form)
        self._dialog: QFileDialog | None = None
        self._loading = False

    def _changed(self, *_args: object) -> None:
        if not self._loading:
            self.edited.emit()

    # -- folders -----------------------------------------------------------------------------
    def add_folder(self, path: str, writable: bool = False) -> None:
        """Add a row for ``path``."""
        row = self.folders.rowCount()
        self.folders.insertRow(row)
        self.folders.setItem(row, 0, QTableWidgetItem(path))
        access = QComboBox()
        access.setAccessibleName(tr("Access to {path}").format(path=path))
        for label, value in ACCESS:
            access.addItem(tr(label), value)
        access.setCurrentIndex(1 if writable else 0)
        access.currentIndexChanged.connect(self._changed)
        self.folders.setCellWidget(row, 1, access)
        self._changed()

    def remove_selected(self) -> None:
        """Remove the selected rows."""
        rows = sorted({index.row() for index in self.folders.selectedIndexes()}, reverse=True)
        for row in rows:
            self.folders.removeRow(row)
        if rows:
            self._changed()

    def _browse(self) -> None:
        # Non-modal: open() + a signal, never exec() (no nested event loop under qasync).
        dialog = QFileDialog(self, tr("Choose a folder commands may see"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setDirectory(str(Path.home()))
        dialog.fileSelected.connect(self._picked)
        dialog.finished.connect(dialog.deleteLater)
        self._dialog = dialog
        dialog.open()

    def _picked(self, path: str) -> None:
        if path:
            self.add_folder(path)

    def folder_rows(self) -> list[tuple[str, bool]]:
        """The rows as ``(path, writable)``."""
        rows = []
        for row in range(self.folders.rowCount()):
            item = self.folders.item(row, 0)
            access = self.folders.cellWidget(row, 1)
            writable = bool(access.currentData()) if isinstance(access, QComboBox) else False
            rows.append(((item.text() if item is not None else "").strip(), writable))
        return rows

    # -- load / collect ------------------------------------------------------------------------
    def load(self, prefs: SandboxPrefs) -> None:
        """Show ``prefs``."""
        self._loading = True
        try:
            self.home_visible.setChecked(prefs.home_visible)
            self.folders.setRowCount(0)
            for folder in prefs.folders:
                self.add_folder(folder.path, folder.writable)
            values: dict[str, Any] = prefs.limits.model_dump()
            for name, box in self.limits.items():
                box.setValue(int(values[name]))
        finally:
            self._loading = False

    def collect(self) -> SandboxPrefs:
        """The values shown, validated.

        Raises:
            ChangeError: A folder is neither absolute nor in the home folder (``~``).
        """
        folders = []
        for path, writable in self.folder_rows():
            if not path:
                continue
            if not (path.startswith(("/", "~/")) or path == "~"):
                raise ChangeError(
                    "sandbox.folders",
                    tr("{path} is not a full path (start it with / or ~/)").format(path=repr(path)),
                )
            folders.append(SandboxFolder(path=path, writable=writable))
        limits = SandboxLimits(**{name: box.value() for name, box in self.limits.items()})
        return SandboxPrefs(
            home_visible=self.home_visible.isChecked(), folders=folders, limits=limits
        )


__all__ = ["SandboxBox"]
