"""The approval policy kept in ``desktop.json``: loaded from the preferences, saved on change."""

from __future__ import annotations

import logging

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.config.prefs import PrefsStore
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)


def policy_from_prefs(store: PrefsStore, owner: TaskOwner) -> ApprovalPolicy:
    """An :class:`ApprovalPolicy` that follows ``store`` both ways.

    Its mode and always-allowed tools come from the preferences; a change made through the
    policy (an "Always allow" answer) is written back in a task owned by ``owner``; a change of
    the mode in the preferences (Settings) is applied to the policy.
    """

    def remember(policy: ApprovalPolicy) -> None:
        store.update(approval_mode=policy.mode, always_allowed_tools=sorted(policy.always_allowed))
        owner.try_spawn(store.asave(), name="save-approval-prefs")

    prefs = store.prefs
    policy = ApprovalPolicy(
        mode=prefs.approval_mode,
        always_allowed=set(prefs.always_allowed_tools),
        on_change=remember,
    )

    def follow(changed: set[str]) -> None:
        if "approval_mode" in changed:
            policy.set_mode(store.prefs.approval_mode)
        if "always_allowed_tools" in changed:
            wanted = set(store.prefs.always_allowed_tools)
            for tool in policy.always_allowed - wanted:
                policy.revoke(tool)
            for tool in wanted - policy.always_allowed:
                policy.allow_always(tool)

    store.subscribe(follow)
    return policy
