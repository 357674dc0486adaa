"""The approval policy kept in ``desktop.json``: loaded from the preferences, saved on change."""

from __future__ import annotations

import logging

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.config.prefs import MAX_APPROVAL_TIMEOUT_MIN, PrefsStore
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)


def timeout_seconds(minutes: int | None) -> float | None:
    """The gate's timeout for the preference's minutes (``None``: never)."""
    return None if minutes is None else minutes * 60.0


def timeout_minutes(seconds: float | None) -> int | None:
    """The preference's whole minutes for a gate timeout (1 to 1440; ``None``: never)."""
    if seconds is None:
        return None
    return min(MAX_APPROVAL_TIMEOUT_MIN, max(1, round(seconds / 60)))


def policy_from_prefs(store: PrefsStore, owner: TaskOwner) -> ApprovalPolicy:
    """An :class:`ApprovalPolicy` that follows ``store`` both ways.

    Its mode, always-allowed tools and timeout come from the preferences; a change made
    through the policy (an "Always allow" answer) is written back in a task owned by ``owner``;
    a change in the preferences (Settings) is applied to the policy, and so to the running gate.
    """

    def remember(policy: ApprovalPolicy) -> None:
        store.update(
            approval_mode=policy.mode,
            always_allowed_tools=sorted(policy.always_allowed),
            approval_timeout_minutes=timeout_minutes(policy.timeout_s),
        )
        owner.try_spawn(store.asave(), name="save-approval-prefs")

    prefs = store.prefs
    policy = ApprovalPolicy(
        mode=prefs.approval_mode,
        always_allowed=set(prefs.always_allowed_tools),
        on_change=remember,
        timeout_s=timeout_seconds(prefs.approval_timeout_minutes),
    )

    def follow(changed: set[str]) -> None:
        if "approval_mode" in changed:
            policy.set_mode(store.prefs.approval_mode)
        if "approval_timeout_minutes" in changed:
            policy.set_timeout(timeout_seconds(store.prefs.approval_timeout_minutes))
        if "always_allowed_tools" in changed:
            wanted = set(store.prefs.always_allowed_tools)
            for tool in policy.always_allowed - wanted:
                policy.revoke(tool)
            for tool in wanted - policy.always_allowed:
                policy.allow_always(tool)

    store.subscribe(follow)
    return policy
