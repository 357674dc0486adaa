"""Qt widgets. Only this package (and desktop.app) may import Qt.

(Importing the package itself loads no Qt: the chat's state, changes and records under it are
Qt-free. The app's first Qt module, :mod:`desktop.ui.main_window`, installs
:mod:`desktop.ui.qt_feature` right after PySide6 loads.)
"""
