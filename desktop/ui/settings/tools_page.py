"""Tools & safety: workspace restriction, the exec tool and its sandbox (what commands see,
their limits), web search, approval mode and how long an approval request waits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from desktop.core.config import secret_fields
from desktop.core.config.edit import ChangeError
from desktop.core.config.prefs import MAX_APPROVAL_TIMEOUT_MIN
from desktop.core.security.sandbox import (
    PROTECTIONS,
    SandboxMode,
    SandboxStatus,
    probe_sandbox,
    sandbox_mode,
)
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.allowances import AllowancesBox
from desktop.ui.settings.key_backends import field_key_backend
from desktop.ui.settings.key_field import KeyField
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.prefs_access import prefs_store, update_prefs
from desktop.ui.settings.sandbox_box import SandboxBox
from desktop.ui.settings.schema_form import SchemaForm, config_path, title_of
from desktop.ui.settings.widgets import check_patterns, heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

ALLOW_EXPLANATION = QT_TR_NOOP(
    "Allow patterns only exempt a command from the built-in safety rules (the whole command must "
    "match). They are not an allowlist: commands no rule refuses run whether or not they match. "
    "(The original nanobot treated allowPatterns as an allowlist.) Deny patterns always refuse a "
    "command that contains a match; nothing overrides them. Both are regular expressions, one "
    "per line."
)
_ALLOW = config_path(lambda c: c.tools.exec.allow_patterns)
_DENY = config_path(lambda c: c.tools.exec.deny_patterns)
_PROVIDER = config_path(lambda c: c.tools.web.search.provider)
SEARCH_PROVIDERS = (
    ("duckduckgo", QT_TR_NOOP("DuckDuckGo (no key needed)")),
    ("brave", QT_TR_NOOP("Brave Search (needs a key)")),
)


def sandbox_words(status: SandboxStatus, mode: SandboxMode) -> str:
    """:meth:`SandboxStatus.describe` in the window's language (the probe's reason and notes
    too; the errors of ``bwrap`` and the OS inside them stay as they are)."""
    if mode == "off":
        return tr(
            'Sandbox: off (tools.exec.sandbox is "none") — commands run without '
            "containment; only the safety rules apply"
        )
    if status.available:
        if status.notes:
            return tr("Sandbox: bubblewrap, active ({notes})").format(
                notes=tr("; ", "between notes").join(localized(note) for note in status.notes)
            )
        return tr("Sandbox: bubblewrap, active")
    if mode == "required":
        return tr("Sandbox: unavailable — {reason}. Commands are refused until it works").format(
            reason=localized(status.reason)
        )
    return tr("Sandbox: unavailable — {reason}").format(reason=localized(status.reason))


class ToolsPage(SettingsPage):
    """Restrict to workspace, exec timeout and patterns, web search, approval mode."""

    section = "tools"
    title = QT_TR_NOOP("Tools & safety")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description=tr("What the agent's tools may do, and when it asks you first."),
        )
        add = self.body_layout.addWidget
        add(heading(tr("Approval"), level=2))
        self.ask = QRadioButton(
            tr("Ask me before running commands, writing outside the workspace, or using MCP tools")
        )
        self.ask.setAccessibleName(tr("Approval mode: ask"))
        self.autonomous = QRadioButton(
            tr("Autonomous: run tools without asking (nanobot's behaviour)")
        )
        self.autonomous.setAccessibleName(tr("Approval mode: autonomous"))
        self.approval = QButtonGroup(self)
        self.approval.addButton(self.ask)
        self.approval.addButton(self.autonomous)
        add(self.ask)
        add(self.autonomous)
        wait_form = QFormLayout()
        wait_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.approval_timeout = QSpinBox()
        self.approval_timeout.setRange(0, MAX_APPROVAL_TIMEOUT_MIN)
        self.approval_timeout.setSpecialValueText(tr("Never"))  # shown for 0
        self.approval_timeout.setSuffix(tr(" min"))
        self.approval_timeout.setMinimumWidth(120)
        self.approval_timeout.setAccessibleName(tr("Approval timeout in minutes (0 = never)"))
        self.approval_timeout.setToolTip(
            tr(
                "A request nobody answers in this time counts as denied, and the agent is told "
                "so. Never: the turn waits until you answer or stop it."
            )
        )
        wait_form.addRow(tr("Deny unanswered requests after"), self.approval_timeout)
        self.body_layout.addLayout(wait_form)
        self.approval_timeout_label = wait_form.labelForField(self.approval_timeout)
        self.ask.toggled.connect(self._show_timeout_enabled)
        add(self.adopt(AllowancesBox(services)))

        add(heading(tr("Files and commands"), level=2))
        self.files_form = form = SchemaForm()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.restrict = form.check(lambda c: c.tools.restrict_to_workspace)
        self.sandbox_status = QLabel(tr("Sandbox: checking…"))
        self.sandbox_status.setWordWrap(True)
        self.sandbox_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sandbox_status.setAccessibleName(tr("Sandbox status"))
        self.sandbox_status.setToolTip(tr(PROTECTIONS))
        form.addRow(self.sandbox_status)
        self.sandbox_network = form.check(lambda c: c.tools.exec.sandbox_network)
        self.timeout = form.number(lambda c: c.tools.exec.timeout, width=120)
        self.allow = form.lines(
            lambda c: c.tools.exec.allow_patterns,
            placeholder=tr("e.g. {example}").format(example=r"^rm -rf \./build$"),
        )
        self.deny = form.lines(
            lambda c: c.tools.exec.deny_patterns,
            placeholder=tr("e.g. {example}").format(example=r"\bgit push\b"),
        )
        self.body_layout.addLayout(form)
        add(hint(tr(ALLOW_EXPLANATION)))
        self.sandbox_box = SandboxBox()
        self.sandbox_box.edited.connect(self._edited)
        add(self.sandbox_box)

        add(heading(tr("Web search"), level=2))
        self.search_form = search_form = SchemaForm()
        self.search_provider = QComboBox()
        self.search_provider.setAccessibleName(tr("Web search provider"))
        for value, label in SEARCH_PROVIDERS:
            self.search_provider.addItem(tr(label), value)
        search_form.addRow(title_of(_PROVIDER), self.search_provider)
        self.results = search_form.number(lambda c: c.tools.web.search.max_results, width=120)
        self.body_layout.addLayout(search_form)
        key_form = QFormLayout()
        key_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.search_key = self.adopt(
            KeyField(
                field_key_backend(services, secret_fields.WEB_SEARCH_KEY),
                label=tr("Brave Search API key"),
            )
        )
        key_form.addRow(tr("Brave API key"), self.search_key)
        self.body_layout.addLayout(key_form)
        add(hint(tr("The search key is stored in the OS keyring. With a key, Brave is used.")))
        self.body_layout.addStretch(1)
        self.watch(
            self.ask,
            self.autonomous,
            self.approval_timeout,
            self.restrict,
            self.sandbox_network,
            self.timeout,
            self.allow,
            self.deny,
            self.search_provider,
            self.results,
        )

    def load(self) -> None:
        """Show the saved values (approval mode from the desktop preferences)."""
        tools = self.services.config.tools
        self.files_form.load(self.services.config)
        self.search_form.load(self.services.config)
        index = self.search_provider.findData(tools.web.search.provider.lower())
        self.search_provider.setCurrentIndex(max(index, 0))
        self.search_key.refresh()
        self.spawn(self._load_approval(), "load-approval")
        self.spawn(self._load_sandbox(), "load-sandbox")

    async def _load_sandbox(self) -> None:
        """Show whether commands run sandboxed (detection runs once, in a worker thread)."""
        status = await probe_sandbox()
        mode = sandbox_mode(self.services.config.tools.exec.sandbox)
        self.sandbox_status.setText(sandbox_words(status, mode))
        self.sandbox_network.setEnabled(status.available and mode != "off")
        self.sandbox_box.setEnabled(status.available and mode != "off")

    async def _load_approval(self) -> None:
        store = await prefs_store(self.services)
        was_dirty = self.dirty
        self._loading = True
        try:
            (self.autonomous if store.prefs.approval_mode == "autonomous" else self.ask).setChecked(
                True
            )
            self._show_timeout_enabled(self.ask.isChecked())
            self.approval_timeout.setValue(store.prefs.approval_timeout_minutes or 0)
            self.sandbox_box.load(store.prefs.sandbox)
        finally:
            self._loading = False
        self._set_dirty(was_dirty)

    def _show_timeout_enabled(self, asking: bool) -> None:
        """The timeout matters only while the mode asks: greyed out (with its label) else."""
        self.approval_timeout.setEnabled(asking)
        self.approval_timeout_label.setEnabled(asking)

    def collect(self) -> dict[str, Any]:
        """Validated values for config.json."""
        changes = {**self.files_form.collect(), **self.search_form.collect()}
        for path in (_ALLOW, _DENY):
            changes[path] = check_patterns(changes[path], label=path)
        changes[_PROVIDER] = str(self.search_provider.currentData())
        return changes

    async def save(self) -> bool:
        """Save config.json, then the approval mode and timeout and the sandbox's settings
        (desktop preferences; the running gate and the next command follow them at once)."""
        mode = "autonomous" if self.autonomous.isChecked() else "ask"
        minutes = self.approval_timeout.value() or None  # 0 is "Never"
        try:
            sandbox = self.sandbox_box.collect()
        except ChangeError as exc:
            self.status.error(
                tr("Folders commands may see: {reason}. Nothing was saved.").format(
                    reason=localized(exc.reason)
                )
            )
            return False
        if not await super().save():
            return False
        try:
            await update_prefs(
                self.services,
                approval_mode=mode,
                approval_timeout_minutes=minutes,
                sandbox=sandbox,
            )
        except (ChangeError, OSError) as exc:
            self.status.warn(
                tr("Saved, but the approval settings were not saved: {error}").format(
                    error=localized(exc)
                )
            )
            return False
        await self._load_approval()
        return True
