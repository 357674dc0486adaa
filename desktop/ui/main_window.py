"""The main window: four tabs, message banners, a status bar and the global shortcuts.

The window knows nothing about the agent: it shows placeholders until the composition root
(:mod:`desktop.app`) plugs the real tabs in with :meth:`MainWindow.set_tab`, and it turns
shortcuts into signals that the tabs connect to.

Banners float over the top of the page, centred under the tab bar (not in the layout): one
that appears or goes never moves the page under the pointer, and the page's corners (where
its actions are) stay free on a window of ordinary width.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QGuiApplication,
    QKeySequence,
    QPaintEvent,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import QLabel, QMainWindow, QTabWidget, QVBoxLayout, QWidget

from desktop.ui import qt_feature
from desktop.ui.banner import Action, Banner
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.placeholder import PlaceholderTab

qt_feature.install()  # the app's first Qt module: PySide6 has just loaded (see qt_feature)

APP_TITLE = "nanobot Desktop"
DEFAULT_SIZE = (1100, 720)
MINIMUM_SIZE = (760, 520)
SCREEN_FILL = 0.9  # a first window takes at most this share of the screen's free area
FRAME_GUESS = (16, 40)  # frame width and height allowed for before the window is decorated
BANNER_MARGIN = 8  # between the floating banners and the window's edges
SHADOW_ROOM = (8, 2, 8, 10)  # left, top, right, bottom room around the banners for shadows
BANNER_WIDTH = 620  # at most: centred, they leave the page's corners (its actions) free


def fit_rect(rect: QRect, area: QRect) -> QRect:
    """``rect`` shrunk to fit ``area`` and moved inside it (as little as possible)."""
    width, height = min(rect.width(), area.width()), min(rect.height(), area.height())
    x = min(max(rect.x(), area.x()), area.x() + area.width() - width)
    y = min(max(rect.y(), area.y()), area.y() + area.height() - height)
    return QRect(x, y, width, height)


def first_run_rect(area: QRect, default: QSize, minimum: QSize) -> QRect:
    """The default size, at most :data:`SCREEN_FILL` of ``area`` (never below ``minimum``,
    never beyond ``area``), centred in it."""
    width = min(
        area.width(), max(minimum.width(), min(default.width(), int(area.width() * SCREEN_FILL)))
    )
    height = min(
        area.height(),
        max(minimum.height(), min(default.height(), int(area.height() * SCREEN_FILL))),
    )
    return QRect(
        area.x() + (area.width() - width) // 2,
        area.y() + (area.height() - height) // 2,
        width,
        height,
    )


# key → (tab title, placeholder hint); marked, shown through tr()
TABS: dict[str, tuple[str, str]] = {
    "chat": (QT_TR_NOOP("Chat"), QT_TR_NOOP("Connecting to the agent…")),
    "settings": (
        QT_TR_NOOP("Settings"),
        QT_TR_NOOP("Providers, models, tools and appearance will be set here."),
    ),
    "skills": (QT_TR_NOOP("Skills"), QT_TR_NOOP("The agent's skills will be listed here.")),
    "memory": (
        QT_TR_NOOP("Memory"),
        QT_TR_NOOP("Memory files and the Dream history will be shown here."),
    ),
}
# How the start-up's "ready" status begins (see MainWindow.set_status).
READY = "ready — "


class MainWindow(QMainWindow):
    """The application window.

    Signals:
        newChatRequested(): Ctrl+N (the Chat tab is shown first).
        newTemporaryChatRequested(): Ctrl+Shift+N: a chat that keeps nothing (Chat tab first).
        searchRequested(): Ctrl+K (the Chat tab is shown first).
        stopRequested(): Esc: stop the running turn.
        quitRequested(): Ctrl+Q, or closing the window when it does not hide to the tray.
        hiddenToTray(): closing the window hid it (close-to-tray).
        firstPainted(): the window has painted once (start-up measurement and background work).
        activated(): the window became the active window (e.g. to clear unread reminders).
        openSessionRequested(str): show this session in the Chat tab (a reminder was clicked);
            the window is already in front with the Chat tab current.
        shuttingDown(): the application is quitting (waiting approvals are denied now); the
            shell then closes the tabs (``aclose``) and stops the agent and the scheduler.
        settingsSectionRequested(str): show this section of the Settings tab (the Settings
            tab is already current); the composition root connects the real tab to it.
    """

    newChatRequested = Signal()
    newTemporaryChatRequested = Signal()
    searchRequested = Signal()
    stopRequested = Signal()
    quitRequested = Signal()
    hiddenToTray = Signal()
    firstPainted = Signal()
    activated = Signal()
    openSessionRequested = Signal(str)
    shuttingDown = Signal()
    settingsSectionRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(APP_TITLE)
        self.setObjectName("mainWindow")
        self.hide_on_close = False
        self._quitting = False
        self._painted = False
        self._fitted = False
        self._banners: dict[str, Banner] = {}

        self._held: dict[str, Banner | None] = {}
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.tabs = QTabWidget(central)
        self.tabs.setDocumentMode(True)
        self.tabs.setObjectName("mainTabs")
        self.tabs.setAccessibleName(tr("Main sections"))
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        # Over the page, not in the layout (see the module docstring).
        self._banner_area = QWidget(central)
        self._banner_area.setObjectName("bannerArea")
        self._banner_layout = QVBoxLayout(self._banner_area)
        self._banner_layout.setContentsMargins(*SHADOW_ROOM)  # the banners' shadows show
        self._banner_layout.setSpacing(6)
        self._banner_area.hide()
        central.installEventFilter(self)
        self._banner_area.installEventFilter(self)

        self._keys: list[str] = []
        for key, (title, hint) in TABS.items():
            self._keys.append(key)
            self.tabs.addTab(PlaceholderTab(tr(title), tr(hint), self.tabs), tr(title))

        self._status = "connecting…"
        self._model_text = ""
        self.status_label = QLabel(tr("connecting…"), self)
        self.status_label.setAccessibleName(tr("Connection status"))
        self.statusBar().addPermanentWidget(self.status_label)
        self.statusBar().setSizeGripEnabled(True)

        self._shortcuts: dict[str, QShortcut] = {}
        self._shortcut("quit", QKeySequence("Ctrl+Q"), self.quitRequested.emit)
        self._shortcut("settings", QKeySequence("Ctrl+,"), lambda: self.show_tab("settings"))
        self._shortcut("new_chat", QKeySequence("Ctrl+N"), self.request_new_chat)
        self._shortcut(
            "new_temporary_chat", QKeySequence("Ctrl+Shift+N"), self.request_temporary_chat
        )
        self._shortcut("search", QKeySequence("Ctrl+K"), self.request_search)
        self._shortcut("stop", QKeySequence(Qt.Key.Key_Escape), self.stopRequested.emit)
        for number, key in enumerate(self._keys, start=1):
            self._shortcut(
                f"tab_{key}", QKeySequence(f"Ctrl+{number}"), functools.partial(self.show_tab, key)
            )

        self.setMinimumSize(*MINIMUM_SIZE)
        self.fit_to_screen(restored=False)

    # -- tabs -------------------------------------------------------------------------------
    def tab_keys(self) -> list[str]:
        """``["chat", "settings", "skills", "memory"]`` in tab order."""
        return list(self._keys)

    def tab(self, key: str) -> QWidget:
        """The widget currently shown for ``key``."""
        widget = self.tabs.widget(self._index(key))
        assert widget is not None, key
        return widget

    def set_tab(self, key: str, widget: QWidget) -> None:
        """Put ``widget`` in the tab ``key`` (replacing the placeholder or a previous widget).

        The window takes ownership; the old widget is deleted.
        """
        index = self._index(key)
        current = self.tabs.currentIndex()
        old = self.tabs.widget(index)
        title = self.tabs.tabText(index)
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, widget, title)
        self.tabs.setCurrentIndex(current)
        if old is not None and old is not widget:
            old.deleteLater()

    def show_tab(self, key: str) -> None:
        """Make ``key`` the current tab."""
        self.tabs.setCurrentIndex(self._index(key))

    def show_settings(self, section: str = "") -> None:
        """Make Settings the current tab, at ``section`` (``tools``, ``providers/openai``…)
        once the real Settings tab is in (before that, the placeholder is shown)."""
        self.show_tab("settings")
        if section:
            self.settingsSectionRequested.emit(section)

    def current_tab_key(self) -> str:
        """Key of the current tab."""
        return self._keys[self.tabs.currentIndex()]

    def _index(self, key: str) -> int:
        try:
            return self._keys.index(key)
        except ValueError:
            raise KeyError(f"no tab {key!r}; tabs are {self._keys}") from None

    # -- status and banners -----------------------------------------------------------------
    def set_status(self, text: str) -> None:
        """The connection text at the right of the status bar (and on the Chat placeholder).

        Once connected ("ready — …") it names the model the shown chat uses, when the Chat
        tab has said which (:meth:`show_model`). ``text`` is the English the start-up says
        (a text marked for translation, or ``ready — <model>``); it is shown translated.
        """
        self._status = text
        if text.startswith(READY):
            model = self._model_text or text[len(READY) :]
            name, dot, provider = model.rpartition(" · ")
            if dot:  # "model · provider": the provider's name as the window shows it
                model = f"{name} · {tr(provider)}"
            text = tr("ready — {model}").format(model=model)
        else:
            text = tr(text)
        self.status_label.setText(text)
        self.status_label.setToolTip(text)
        chat = self.tab("chat")
        if isinstance(chat, PlaceholderTab):
            chat.set_text(text[:1].upper() + text[1:])

    def show_model(self, text: str) -> None:
        """The model the shown chat uses ("name · provider", "… (this chat)"), at once."""
        self._model_text = text
        self.set_status(self._status)

    def show_banner(
        self, key: str, text: str, *, severity: str = "info", actions: list[Action] | None = None
    ) -> Banner:
        """Show (or replace) the banner named ``key`` over the top of the page.

        A banner :meth:`hold`-en back is made but not shown until :meth:`release`.
        """
        self.remove_banner(key)
        banner = Banner(text, severity=severity, actions=actions, parent=self._banner_area)
        banner.dismissed.connect(lambda k=key, b=banner: self._forget(k, b))
        if key in self._held:
            old = self._held[key]
            if old is not None:
                old.deleteLater()
            banner.hide()
            self._held[key] = banner
            return banner
        self._banners[key] = banner
        self._banner_layout.addWidget(banner)
        self._place_banners()
        return banner

    def hold(self, key: str) -> None:
        """Keep the banner ``key`` from showing (it is kept) until :meth:`release` — e.g.
        while the first-run setup is shown, an error about the provider it is about to set
        up would only confuse."""
        banner = self._banners.pop(key, None)
        if banner is not None:
            banner.hide()
            self._banner_layout.removeWidget(banner)
            self._place_banners()
        self._held[key] = banner or self._held.get(key)

    def release(self, key: str, *, show: bool = True) -> None:
        """Stop holding ``key`` back; ``show``: show the banner held meanwhile, if any (else
        it is dropped)."""
        banner = self._held.pop(key, None)
        if banner is None:
            return
        if not show:
            banner.deleteLater()
            return
        self.remove_banner(key)
        self._banners[key] = banner
        self._banner_layout.addWidget(banner)
        banner.show()
        self._place_banners()

    def _place_banners(self) -> None:
        """Float the banners over the top of the page, just under the tab bar."""
        area = self._banner_area
        central = self.centralWidget()
        area.setVisible(bool(self._banners))
        if not self._banners or central is None:
            return
        top = self.tabs.geometry().top() + self.tabs.tabBar().height() + BANNER_MARGIN
        width = max(1, min(BANNER_WIDTH, central.width() - 2 * BANNER_MARGIN))
        heights = []
        for banner in self._banners.values():
            banner.ensurePolished()
            layout = banner.layout()
            if layout is not None:
                layout.activate()
            wanted = banner.heightForWidth(width) if banner.hasHeightForWidth() else -1
            heights.append(max(wanted, banner.minimumSizeHint().height()))
        spacing = self._banner_layout.spacing() * (len(heights) - 1)
        left, above, right, below = SHADOW_ROOM
        x = (central.width() - width) // 2 - left
        height = sum(heights) + spacing + above + below
        area.setGeometry(x, top - above, width + left + right, height)
        area.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keep the banners in place and tall enough when the window is resized or a banner's
        contents change."""
        kind = event.type()
        if (watched is self.centralWidget() and kind == QEvent.Type.Resize) or (
            watched is self._banner_area and kind == QEvent.Type.LayoutRequest
        ):
            self._place_banners()
        return super().eventFilter(watched, event)

    def banner(self, key: str) -> Banner | None:
        """The banner named ``key``, if shown (not one held back)."""
        return self._banners.get(key)

    def remove_banner(self, key: str) -> None:
        """Remove the banner named ``key`` (no-op when absent)."""
        banner = self._banners.pop(key, None)
        if banner is not None:
            banner.hide()
            self._banner_layout.removeWidget(banner)
            banner.deleteLater()
        self._place_banners()

    def _forget(self, key: str, banner: Banner) -> None:
        if self._banners.get(key) is banner:
            del self._banners[key]
        self._banner_layout.removeWidget(banner)
        self._place_banners()

    # -- shortcuts --------------------------------------------------------------------------
    def _shortcut(self, name: str, sequence: QKeySequence, slot: Callable[[], None]) -> None:
        shortcut = QShortcut(sequence, self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(slot)
        self._shortcuts[name] = shortcut

    def shortcut(self, name: str) -> QShortcut:
        """The shortcut ``quit``, ``settings``, ``new_chat``, ``search``, ``stop`` or
        ``tab_<key>`` (Ctrl+1…4)."""
        return self._shortcuts[name]

    def request_new_chat(self) -> None:
        """Show the Chat tab and emit :attr:`newChatRequested` (Ctrl+N, tray menu)."""
        self.show_tab("chat")
        self.newChatRequested.emit()

    def request_temporary_chat(self) -> None:
        """Show the Chat tab and emit :attr:`newTemporaryChatRequested` (Ctrl+Shift+N)."""
        self.show_tab("chat")
        self.newTemporaryChatRequested.emit()

    def request_search(self) -> None:
        """Show the Chat tab and emit :attr:`searchRequested` (Ctrl+K)."""
        self.show_tab("chat")
        self.searchRequested.emit()

    def open_session(self, session_key: str) -> None:
        """Bring the window to the front on the Chat tab and emit :attr:`openSessionRequested`."""
        self.bring_to_front()
        self.show_tab("chat")
        self.openSessionRequested.emit(session_key)

    # -- window -----------------------------------------------------------------------------
    def bring_to_front(self) -> None:
        """Show the window (from the tray too), un-minimise it, raise and activate it."""
        if self.isMinimized():
            self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()

    def geometry_text(self) -> str:
        """``saveGeometry()`` as base64 text, for the preferences file."""
        return bytes(self.saveGeometry().toBase64().data()).decode("ascii")

    def restore_geometry_text(self, text: str | None) -> bool:
        """Restore a geometry saved by :meth:`geometry_text`, kept within the screens there
        are now; ``False`` if unusable (the window then keeps its first-run size)."""
        if not text:
            return False
        try:
            data = QByteArray.fromBase64(text.encode("ascii"))
        except (UnicodeEncodeError, ValueError):
            return False
        if not self.restoreGeometry(data):
            return False
        self.fit_to_screen(restored=True)
        return True

    def fit_to_screen(self, *, restored: bool) -> None:
        """Fit the window, title bar and frame included, to the screen it is on.

        First run (``restored=False``): the default size, at most 90 % of the free area,
        centred. A restored geometry (saved on a bigger or a disconnected screen, or at another
        scale) is shrunk and moved inside the free area. The minimum size never exceeds it.
        """
        geometry = self.geometry()
        screen = QGuiApplication.screenAt(geometry.center()) if restored else None
        screen = screen or self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        frame = self.frameGeometry()
        if self.isVisible() and frame != geometry:
            left, top = geometry.x() - frame.x(), geometry.y() - frame.y()
            extra = QSize(frame.width() - geometry.width(), frame.height() - geometry.height())
        elif restored:  # the real frame is allowed for when the window is first shown
            left, top, extra = 0, 0, QSize(0, 0)
        else:  # not decorated yet: allow for a typical title bar and border
            left, top, extra = FRAME_GUESS[0] // 2, FRAME_GUESS[1] - 4, QSize(*FRAME_GUESS)
        area = screen.availableGeometry()
        inner = QRect(
            area.x() + left,
            area.y() + top,
            max(1, area.width() - extra.width()),
            max(1, area.height() - extra.height()),
        )
        minimum = QSize(*MINIMUM_SIZE).boundedTo(inner.size())
        self.setMinimumSize(minimum)
        if self.isMaximized() or self.isFullScreen():
            return
        if restored:
            self.setGeometry(fit_rect(self.geometry(), inner))  # the minimum may have grown it
        else:
            self.setGeometry(first_run_rect(inner, QSize(*DEFAULT_SIZE), minimum))

    def showEvent(self, event: QShowEvent) -> None:
        """On the first show the real frame is known: fit once more with it."""
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            QTimer.singleShot(0, lambda: self.fit_to_screen(restored=True))

    def allow_close(self) -> None:
        """Let the next close really close (called by the shutdown sequence)."""
        self._quitting = True

    def closeEvent(self, event: QCloseEvent) -> None:
        """Hide to the tray, or ask the application to quit (it closes us when done).

        Only the person's close (title-bar button, Alt+F4: a spontaneous event) hides to the
        tray; a programmatic close, e.g. from ``QApplication.quit()`` at logout, means quit.
        """
        if self._quitting:
            event.accept()
            return
        event.ignore()
        if self.hide_on_close and event.spontaneous():
            self.hide()
            self.hiddenToTray.emit()
        else:
            self.quitRequested.emit()

    def changeEvent(self, event: QEvent) -> None:
        """Report activation (used to clear the unread count)."""
        super().changeEvent(event)
        if event.type() == event.Type.ActivationChange and self.isActiveWindow():
            self.activated.emit()

    def paintEvent(self, event: QPaintEvent) -> None:
        """Emit :attr:`firstPainted` once, after the first paint has finished."""
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self.firstPainted.emit)

    @property
    def painted(self) -> bool:
        """Whether the window has painted at least once."""
        return self._painted
