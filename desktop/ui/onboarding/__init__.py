"""First-run onboarding: :class:`OnboardingWizard` and :func:`needs_onboarding`."""

from desktop.ui.onboarding.check import needs_onboarding, needs_onboarding_sync
from desktop.ui.onboarding.wizard import OnboardingWizard

__all__ = ["OnboardingWizard", "needs_onboarding", "needs_onboarding_sync"]
