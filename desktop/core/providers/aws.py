"""AWS credentials for Bedrock, found off the event loop.

With an Amazon Bedrock API key (the keyring entry of ``bedrock``, or
``AWS_BEARER_TOKEN_BEDROCK``) requests carry it as a bearer token. Without one they are signed
(SigV4) with the credentials boto3 finds: the environment (``AWS_ACCESS_KEY_ID``…), the shared
files, the section's ``profile``, a container or instance role. Finding them reads files and
may ask a metadata service, so it runs in a worker thread before each call and LiteLLM gets the
result (it would otherwise look them up itself, on the event loop).
"""

from __future__ import annotations

import asyncio
from typing import Any

from desktop.core.providers.base import LLMError
from desktop.core.providers.routes import PROFILE_OPTION
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret

# LiteLLM reads credentials before it looks at a bearer token, and fails when there are none;
# with a token these stand in (they sign nothing: the request carries the token instead).
_UNUSED = {"aws_access_key_id": "bearer-token", "aws_secret_access_key": "bearer-token"}


def _resolve(profile: str | None) -> dict[str, str]:
    import boto3
    from botocore.exceptions import BotoCoreError

    try:
        session = boto3.Session(profile_name=profile) if profile else boto3.Session()
        found = session.get_credentials()
        frozen = found.get_frozen_credentials() if found is not None else None
    except BotoCoreError as exc:
        raise LLMError(
            Phrase(
                QT_TR_NOOP("AWS Bedrock: cannot use the AWS credentials ({error})."), error=str(exc)
            ),
            kind="auth",
            details=str(exc),
        ) from None
    if frozen is None or not frozen.access_key:
        where = (
            Phrase(QT_TR_NOOP("the profile {profile}"), profile=repr(profile))
            if profile
            else Phrase(QT_TR_NOOP("the environment or ~/.aws"))
        )
        raise LLMError(
            Phrase(
                QT_TR_NOOP(
                    "AWS Bedrock: no credentials. Store an Amazon Bedrock API key for bedrock, or "
                    "provide AWS credentials ({where})."
                ),
                where=where,
            ),
            kind="auth",
        )
    credentials = {
        "aws_access_key_id": frozen.access_key,
        "aws_secret_access_key": frozen.secret_key,
    }
    register_secret(frozen.secret_key)
    if frozen.token:
        register_secret(frozen.token)
        credentials["aws_session_token"] = frozen.token
    return credentials


_warm = False


def _read_bedrock_files() -> None:
    """Have LiteLLM read, now, the files its Bedrock route reads on first use and then keeps:
    botocore's Bedrock schema (to decode streamed events) and its own model table (to decide
    about strict tool schemas). Otherwise they are read on the event loop."""
    try:
        from litellm.llms.bedrock.common_utils import (
            _get_local_model_cost_map,
            get_bedrock_response_stream_shape,
        )
    except ImportError:  # another LiteLLM layout: it reads them itself
        return
    get_bedrock_response_stream_shape()
    _get_local_model_cost_map()


async def with_credentials(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` of a Bedrock call with the credentials LiteLLM should use (a copy).

    Raises:
        LLMError: No credentials could be found (kind ``auth``).
    """
    global _warm
    if not _warm:
        await asyncio.to_thread(_read_bedrock_files)
        _warm = True
    ready = dict(kwargs)
    profile = ready.pop(PROFILE_OPTION, None)
    if ready.get("api_key"):
        ready.update(_UNUSED)
    else:
        ready.update(await asyncio.to_thread(_resolve, profile))
    return ready
