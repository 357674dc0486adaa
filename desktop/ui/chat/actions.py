"""The chat's daily-driver actions: switch model, regenerate, edit and resend, export, titles.

Each action is a thin layer over core: the chat's own model over
:mod:`desktop.core.providers.chat_model` (the default model over
:meth:`desktop.core.runtime.Runtime.use_model`), regenerate and edit over
:mod:`desktop.core.session.edits` (the conversation as it was is kept as a version of the same
chat, switched with "‹ 2/3 ›" on the message: :mod:`desktop.core.session.versions`),
export over :mod:`desktop.core.session.export`, titles over :mod:`desktop.core.session.titles`.
Mixed into :class:`~desktop.ui.chat.chat_tab.ChatTab` (it uses the tab's store, models, state
and panes).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QWidget

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.config.errors import ConfigError
from desktop.core.providers.chat_model import ModelChoice
from desktop.core.session.edits import RewindError
from desktop.core.session.versions import VersionError
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.model_picker import AUTO, provider_label, remember
from desktop.ui.i18n import QT_TR_NOOP, localized, tr

if TYPE_CHECKING:
    from collections import OrderedDict
    from collections.abc import Coroutine

    from PySide6.QtCore import Signal

    from desktop.ui.chat.conversation import ConversationPane
    from desktop.ui.chat.message_model import MessageModel
    from desktop.ui.chat.session_list_model import SessionListModel
    from desktop.ui.chat.session_panel import SessionPanel
    from desktop.ui.chat.session_store import SessionStore
    from desktop.ui.chat.sessions_controller import SessionsController
    from desktop.ui.chat.state import ChatState
    from desktop.ui.chat.turns import TurnRunner
    from desktop.ui.services import AppServices

    _Host = QWidget  # the widget this is mixed into, for the type checker
else:
    _Host = object

log = logging.getLogger(__name__)
EXPORT_FILTERS = {  # marked; shown through tr()
    "md": QT_TR_NOOP("Markdown (*.md)"),
    "json": QT_TR_NOOP("JSON (*.json)"),
}


class ChatActions(_Host):
    """Actions of :class:`ChatTab` (a mixin).

    The attributes and methods declared below belong to :class:`ChatTab`; they are declared
    here so the type checker checks every use of them.
    """

    services: AppServices
    store: SessionStore
    sessions: SessionListModel
    panel: SessionPanel
    pane: ConversationPane
    list_controller: SessionsController
    state: ChatState
    turns: TurnRunner
    current: str
    auto_titles: bool
    _models: OrderedDict[str, MessageModel]
    _recent: list[dict[str, str]]
    _editing: tuple[str, int, str] | None
    _titling: set[str]
    _chat_models: dict[str, ModelChoice | None]
    _via: dict[ModelChoice, str]
    modelShown: ClassVar[Signal]

    if TYPE_CHECKING:

        def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]: ...
        def _update_busy(self, key: str) -> None: ...
        async def _load(self, key: str) -> None: ...

    # -- model ----------------------------------------------------------------------------
    def _default_choice(self) -> ModelChoice:
        defaults = self.services.config.agents.defaults
        return ModelChoice(defaults.model, defaults.provider or AUTO)

    def _own_model(self, key: str) -> ModelChoice | None:
        """The chat's own model (``None``: it uses the default, or has the default as its
        own)."""
        own = self._chat_models.get(key)
        return None if own is None or own == self._default_choice() else own

    def refresh_model(self) -> None:
        """Show the shown chat's model — its own, else the default — in the picker and the
        status bar (and who serves it, once known)."""
        default = self._default_choice()
        own = self._own_model(self.current)
        runtime = self.services.runtime
        if own is not None:
            shown = own
            via = self._via.get(own) or (
                provider_label(own.provider) if own.provider != AUTO else ""
            )
        else:
            shown = default
            choice = runtime.provider.choice if runtime is not None else None
            via = choice.spec.display_name if choice is not None else ""
        picker = self.pane.picker
        picker.recent = self._recent_models()
        picker.presets = [(n, p.model) for n, p in self.services.config.model_presets.items()]
        picker.set_model(
            shown.model,
            shown.provider,
            via=via,
            own=own is not None,
            default=(default.model, default.provider),
        )
        picker.set_preset(picker.preset if picker.preset in dict(picker.presets) else "")
        self.pane.fit_header()
        text = f"{shown.model} · {via}" if via else shown.model  # names: not translated
        self.modelShown.emit(tr("{model} (this chat)").format(model=text) if own else text)

    # -- model presets ----------------------------------------------------------------------
    def choose_preset(self, name: str) -> None:
        """Put the shown chat on preset ``name`` (``""``: back to the default model)."""
        self._spawn(self.apply_preset(self.current, name))

    async def apply_preset(self, key: str, name: str) -> bool:
        """Save chat ``key``'s preset in its session (its next turn uses it)."""
        if not key:
            return False
        try:
            await self.store.access.set_preset(key, name or None)
        except OSError as exc:
            self.panel.snackbar.show_message(
                tr("The preset was not set: {error}").format(error=exc)
            )
            return False
        if name:  # a preset replaces the chat's own model (the store removed it)
            self._chat_models[key] = None
        if key == self.current:
            self.pane.picker.set_preset(name)
            self.refresh_model()
        return True

    async def show_preset(self, key: str) -> None:
        """Show the preset chat ``key`` is on (when it is still the shown chat)."""
        try:
            name = await self.store.access.preset(key) if key else None
        except OSError:
            name = None
        if key == self.current:
            self.pane.picker.set_preset(name or "")
            self.pane.fit_header()

    def _recent_models(self) -> list[dict[str, str]]:
        """Recent models, the shown one first and the default always among them."""
        prefs = self.services.prefs
        stored = list(getattr(prefs.prefs, "recent_models", []) or []) if prefs else []
        recent = [dict(r) for r in (stored or self._recent) if isinstance(r, dict)]
        default = self._default_choice()
        shown = self._own_model(self.current) or default
        recent = remember(recent, default.model, default.provider)
        return remember(recent, shown.model, shown.provider)

    async def _remember_recent(self, choice: ModelChoice) -> None:
        self._recent = remember(self._recent_models(), choice.model, choice.provider)
        prefs = self.services.prefs
        if prefs is not None:
            try:
                prefs.update(recent_models=self._recent)
                await prefs.asave()
            except (OSError, ValueError):
                log.warning("saving the recent models failed", exc_info=True)

    def choose_model(self, model: str, provider: str) -> None:
        """Give the shown chat ``model`` (its running answer keeps the model it started with)."""
        self._spawn(self.switch_model(model, provider))

    async def switch_model(self, model: str, provider: str) -> bool:
        """Give the shown chat its own model (the default model: it follows the default
        again); ``False`` (and a message) when the model cannot be used. Other chats and the
        default are not changed."""
        key = self.current
        runtime = self.services.runtime
        picker = self.pane.picker
        if runtime is None or picker.busy or not key:
            return False
        choice = ModelChoice(model, provider or AUTO)
        own = None if choice == self._default_choice() else choice
        picker.set_busy(True, tr("Checking…"))
        try:
            if own is not None and runtime.chat_models is not None:
                built = await runtime.chat_models.build(own)  # a missing key shows now
                self._via[own] = built.choice.spec.display_name
            await self._store_chat_model(key, own)
        except LookupError as exc:  # no key for it, or no provider fits the name
            picker.set_busy(False)
            self.panel.snackbar.show_message(tr("Model not changed: {error}").format(error=exc))
            return False
        except Exception as exc:
            log.exception("choosing the chat's model failed")
            picker.set_busy(False)
            error = f"{type(exc).__name__}: {exc}"
            self.panel.snackbar.show_message(tr("Model not changed: {error}").format(error=error))
            return False
        picker.set_busy(False)
        self._chat_models[key] = own
        if own is not None:  # a model of its own replaces a preset (the store removed it)
            picker.set_preset("")
        await self._remember_recent(choice)
        self.refresh_model()
        return True

    async def _store_chat_model(self, key: str, own: ModelChoice | None) -> None:
        """Keep the chat's model in the chat (a new chat's, once its first message is sent)."""
        entry = self.sessions.entry(key)
        if entry is not None and not entry.draft:
            await self.store.set_chat_model(key, own)

    def follow_default(self) -> None:
        """The shown chat goes back to the default model."""
        default = self._default_choice()
        self._spawn(self.switch_model(default.model, default.provider))

    def make_default(self) -> None:
        """Make the shown chat's model the default for new chats (and chats without one)."""
        self._spawn(self.save_default())

    async def save_default(self) -> bool:
        """Switch the default model to the shown chat's own model and save it in the config
        (as Settings does); ``False`` (and a message) on failure."""
        key = self.current
        own = self._own_model(key)
        runtime = self.services.runtime
        picker = self.pane.picker
        if runtime is None or own is None or picker.busy:
            return False
        picker.set_busy(True, tr("Switching…"))
        try:
            await runtime.use_model(own.model, self.services.secrets, provider=own.provider)
        except LookupError as exc:
            picker.set_busy(False)
            self.panel.snackbar.show_message(tr("Default not changed: {error}").format(error=exc))
            return False
        except Exception as exc:
            log.exception("switching the default model failed")
            picker.set_busy(False)
            error = f"{type(exc).__name__}: {exc}"
            self.panel.snackbar.show_message(tr("Default not changed: {error}").format(error=error))
            return False
        picker.set_busy(False)
        try:
            await self.services.save_config()
        except (ConfigError, OSError) as exc:  # switched; only the default was not saved
            log.warning("saving the default model failed: %s", exc)
            self.panel.snackbar.show_message(
                tr("Now using {model}, but it was not saved as the default: {error}").format(
                    model=own.model, error=localized(exc)
                )
            )
        self._chat_models[key] = None  # the default now; the chat follows it
        try:
            await self._store_chat_model(key, None)
        except OSError as exc:
            log.warning("clearing the chat's own model failed: %s", exc)
        self.refresh_model()
        self.panel.snackbar.show_message(
            tr("New chats now use {model}.").format(model=own.model), timeout_ms=4000
        )
        return True

    def open_other_model(self) -> None:
        """Show the inline "other model" form."""
        form = self.pane.other_model
        form.fetch = self._list_models
        form.spawn = self._spawn
        picker = self.pane.picker
        form.open(picker.model, picker.provider)

    async def _list_models(self, provider: str) -> list[str]:
        from desktop.core.config.provider_registry import find_by_name
        from desktop.core.providers.probe import list_models

        config = self.services.config
        runtime = self.services.runtime
        if provider == AUTO:
            choice = runtime.provider.choice if runtime is not None else None
            spec = choice.spec if choice is not None else None
        else:
            spec = find_by_name(provider)
        if spec is None or not spec.supports_model_listing:
            return []
        from desktop.core.config.secrets import SecretStore

        section = config.provider_config(spec.name)
        secrets = self.services.secrets or SecretStore()
        resolved = await secrets.aresolve(spec.name, config)
        result = await list_models(
            spec,
            api_base=section.api_base if section else None,
            api_key=resolved.value,
            extra_headers=section.extra_headers if section else None,
            timeout=8.0,
        )
        return result.models if result.ok else []

    # -- regenerate / edit ----------------------------------------------------------------
    def _can_rewind(self, key: str) -> bool:
        if self.services.runtime is None or not key.startswith(f"{DESKTOP_CHANNEL}:"):
            self.panel.snackbar.show_message(tr("Only desktop chats can be answered again here."))
            return False
        if self.state.busy(key) or self.state.queued(key):
            self.panel.snackbar.show_message(tr("Wait for the current answer (or stop it) first."))
            return False
        return True

    def regenerate(self) -> None:
        """Answer the last message again (the current answer is kept as a version)."""
        key = self.current
        if self._can_rewind(key):
            self._spawn(self._rewind(key, None))

    def start_edit(self, row: int) -> None:
        """Put the text of the person's message in ``row`` into the composer for editing."""
        model = self._models.get(self.current)
        if model is None or not 0 <= row < model.rowCount():
            return
        item = model.item(row)
        if item.kind != "user" or item.echo or not self._can_rewind(self.current):
            return
        ordinal = sum(1 for i in model.items[:row] if i.kind == "user" and not i.echo)
        self._editing = (self.current, ordinal, item.text)
        composer = self.pane.composer
        composer.edit.setPlainText(item.text)
        composer.edit.moveCursor(composer.edit.textCursor().MoveOperation.End)
        self.pane.editing.show()
        composer.edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def cancel_edit(self) -> None:
        """Leave edit mode (the composer keeps its text)."""
        self._editing = None
        self.pane.editing.hide()

    def edit_last(self) -> bool:
        """Edit the person's last message (Up in an empty composer); whether one was found."""
        model = self._models.get(self.current)
        if model is None:
            return False
        for row in range(model.rowCount() - 1, -1, -1):
            item = model.item(row)
            if item.kind == "user" and not item.echo:
                self.start_edit(row)
                return True
        return False

    async def _rewind(self, key: str, edit: tuple[int, str, str] | None) -> None:
        """Fork ``key`` (regenerate: at the last message; edit: at (ordinal, old text)) and
        send the message — or its new text — as the next turn."""
        try:
            if edit is None:
                rewind = await self.store.regenerate(key)
                text = str(rewind.message.get("content") or "")
            else:
                ordinal, old, text = edit
                rewind = await self.store.edit(key, ordinal, old)
        except RewindError as exc:
            self.panel.snackbar.show_message(tr(str(exc)))
            return
        except OSError as exc:
            self.panel.snackbar.show_message(
                tr("Could not change the chat: {error}").format(error=exc)
            )
            return
        media = [m for m in rewind.message.get("media") or [] if isinstance(m, str)]
        self.turns.clear_error(key)
        await self._load(key)
        row = ChatItem("user", text, media=media)
        if rewind.version is not None:
            version = rewind.version
            row.fork = (version.at, version.current, version.total)
        model = self._models.get(key)
        if key == self.current:
            self.pane.view.scroll_to_bottom()
        if model is not None:
            model.append(row)
        self.turns.send(key, text, media, row)
        self._update_busy(key)
        self.list_controller.refresh_soon()
        if rewind.version is not None:
            note = tr("The previous version is kept: switch with ‹ › under your message.")
        else:
            note = tr("The previous version was too long to keep here: it is in the chat list.")
        self.panel.snackbar.show_message(note, timeout_ms=4000)

    def show_version(self, row: int, step: int) -> None:
        """Show the previous (``step=-1``) or next version of the conversation from ``row``."""
        key = self.current
        model = self._models.get(key)
        if model is None or not 0 <= row < model.rowCount():
            return
        fork = model.item(row).fork
        if fork is None:
            return
        at, current, total = fork
        target = current - 1 + step
        if not 0 <= target < total or not self._can_rewind(key):
            return
        self._spawn(self._show_version(key, at, target))

    async def _show_version(self, key: str, at: int, target: int) -> None:
        try:
            info = await self.store.show_version(key, at, target)
        except VersionError as exc:
            self.panel.snackbar.show_message(tr(str(exc)))
            return
        except OSError as exc:
            self.panel.snackbar.show_message(
                tr("Could not switch versions: {error}").format(error=exc)
            )
            return
        await self._load(key)
        self.list_controller.refresh_soon()
        model = self._models.get(key)
        if model is None or key != self.current:
            return
        for row, item in enumerate(model.items):  # keep the person at the message they switched
            if item.fork is not None and item.fork[0] == at:
                self.pane.view.reveal(row)
                break
        self.pane.view.announce(
            tr("Version {number} of {total}").format(number=info.current, total=info.total)
        )

    def send_edit(self, text: str) -> bool:
        """Send ``text`` as the edit being made; ``False`` when not editing this chat."""
        editing, self._editing = self._editing, None
        self.pane.editing.hide()
        if editing is None or editing[0] != self.current or not text.strip():
            return False
        key, ordinal, old = editing
        if not self._can_rewind(key):
            return True
        self.pane.composer.clear_input()
        self._spawn(self._rewind(key, (ordinal, old, text)))
        return True

    # -- export ---------------------------------------------------------------------------
    def export(self, fmt: str) -> None:
        """Ask where to save the chat as ``md`` or ``json`` (a non-blocking file dialog)."""
        key = self.current
        entry = self.sessions.entry(key)
        if not key or entry is None or entry.draft:
            self.panel.snackbar.show_message(tr("Nothing to export yet."))
            return
        safe = "".join(c if c.isalnum() or c in " -_" else "_" for c in entry.title).strip()
        where = str(Path.home() / f"{safe or 'chat'}.{fmt}")
        dialog = QFileDialog(self, tr("Export chat"), where)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(tr(EXPORT_FILTERS[fmt]))
        dialog.setDefaultSuffix(fmt)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self._spawn(self.export_to(key, fmt, Path(path))))
        self._export_dialog = dialog
        dialog.open()

    async def export_to(self, key: str, fmt: str, path: Path) -> bool:
        """Write the chat ``key`` as ``fmt`` to ``path`` (atomically, in a thread)."""
        from desktop.core.session.export import export_format
        from desktop.core.utils.atomic import atomic_write_text

        try:
            text = await self.store.export(key, export_format(fmt))
            await asyncio.to_thread(atomic_write_text, path, text)
        except (OSError, ValueError) as exc:
            self.panel.snackbar.show_message(tr("Not exported: {error}").format(error=exc))
            return False
        self.panel.snackbar.show_message(tr("Exported to {name}.").format(name=path.name))
        return True

    # -- titles ---------------------------------------------------------------------------
    def title_soon(self, key: str) -> None:
        """After a turn: give a new desktop chat a title from its first exchange."""
        runtime = self.services.runtime
        if runtime is None or not key.startswith(f"{DESKTOP_CHANNEL}:") or key in self._titling:
            return
        if not self.auto_titles:
            return
        self._titling.add(key)
        self._spawn(self._title(key, runtime.provider))

    async def _title(self, key: str, provider: Any) -> None:
        try:
            title = await self.store.auto_title(key, provider)
        except Exception as exc:  # noqa: BLE001 - a title is a nicety, never an error shown
            log.info("automatic title of %s failed: %s", key, exc)
            title = None
        finally:
            self._titling.discard(key)
        if not title:
            return
        self.sessions.update(key, title=title)
        if key == self.current:
            self.pane.set_title(title, key.partition(":")[0])


__all__ = ["ChatActions", "provider_label"]
