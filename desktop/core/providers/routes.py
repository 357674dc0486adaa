"""What a LiteLLM route needs beyond model, key and API base, read from the config section.

- Azure OpenAI: ``api_version`` (the registry's default, or ``extraQuery["api-version"]`` as
  nanobot users write it).
- AWS Bedrock: ``aws_region_name`` (``region``) and the shared-config profile whose credentials
  sign the requests (``profile``; :mod:`desktop.core.providers.aws` resolves them off the loop).
- OpenAI-style routes: the section's ``extraBody`` is added to each request.
"""

from __future__ import annotations

from typing import Any

from desktop.core.config.provider_spec import ProviderSpec
from desktop.core.config.schema import ProviderConfig

AZURE_VERSION_KEYS = ("api-version", "api_version", "apiVersion")
PROFILE_OPTION = "aws_profile_name"
# Routes whose request body is not OpenAI's: an ``extraBody`` would not mean the same there.
_NATIVE = ("anthropic", "bedrock")


def route_options(spec: ProviderSpec, section: ProviderConfig | None) -> dict[str, Any]:
    """The LiteLLM arguments ``spec``'s route takes from ``section`` (and the spec's fixed ones).

    Args:
        spec: The provider as routed.
        section: Its config section (``None``: defaults only).
    """
    options: dict[str, Any] = dict(spec.litellm_options)
    if section is None:
        return options
    prefix = spec.litellm_prefix.split("/", 1)[0]
    if prefix == "azure":
        query = section.extra_query or {}
        for key in AZURE_VERSION_KEYS:
            if query.get(key):
                options["api_version"] = query[key]
                break
    if prefix == "bedrock":
        region = getattr(section, "region", None)
        profile = getattr(section, "profile", None)
        if region:
            options["aws_region_name"] = region
        if profile:
            options[PROFILE_OPTION] = profile
    if section.extra_body and prefix not in _NATIVE:
        options["extra_body"] = dict(section.extra_body)
    return options
