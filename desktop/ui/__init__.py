"""Qt widgets. Only this package (and desktop.app) may import Qt."""

import PySide6.QtCore  # noqa: F401  # before the check below: its import hook comes with it

from desktop.ui import qt_feature

qt_feature.install()
