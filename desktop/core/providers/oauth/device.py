"""The OAuth device flow (RFC 8628): show a code, poll until the person has entered it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from desktop.core.providers.oauth.flow import LoginError, error_text, json_body, post_form
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
DEFAULT_INTERVAL_S = 5.0
SLOW_DOWN_STEP_S = 5.0  # RFC 8628 §3.5: add 5 s when the server says "slow_down"


@dataclass(frozen=True)
class DeviceCode:
    """The server's answer to "start a device sign-in"."""

    device_code: str = field(repr=False)
    user_code: str
    verification_uri: str
    expires_in: float
    interval: float


async def request_device_code(
    client: httpx.AsyncClient, url: str, *, client_id: str, scope: str
) -> DeviceCode:
    """Ask for a device code and the code the person types.

    Raises:
        LoginError: The server refused or answered nonsense.
    """
    response = await post_form(
        client,
        url,
        {"client_id": client_id, "scope": scope},
        what=Phrase(QT_TR_NOOP("starting the sign-in")),
    )
    data = json_body(response)
    if response.status_code >= 400 or not data.get("device_code") or not data.get("user_code"):
        raise LoginError(
            Phrase(QT_TR_NOOP("The sign-in could not start ({error})."), error=error_text(response))
        )
    interval = data.get("interval")
    return DeviceCode(
        device_code=str(data["device_code"]),
        user_code=str(data["user_code"]),
        verification_uri=str(
            data.get("verification_uri") or data.get("verification_uri_complete") or ""
        ),
        expires_in=float(data.get("expires_in") or 900),
        interval=float(interval) if isinstance(interval, (int, float)) else DEFAULT_INTERVAL_S,
    )


async def poll_for_token(
    client: httpx.AsyncClient,
    url: str,
    code: DeviceCode,
    *,
    client_id: str,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> dict[str, Any]:
    """Poll the token endpoint until the person has entered the code; the token response.

    ``authorization_pending`` waits one interval; ``slow_down`` makes the interval longer
    (the server's new ``interval`` when it sends one, else 5 s more). Errors are answered with
    HTTP 200 (GitHub) or 400 (RFC 8628); both are read.

    Raises:
        LoginError: The code expired, the person refused, or the server failed.
    """
    interval = code.interval
    deadline = time.monotonic() + code.expires_in
    data = {"client_id": client_id, "device_code": code.device_code, "grant_type": DEVICE_GRANT}
    while True:
        await sleep(interval)
        if time.monotonic() > deadline:
            raise LoginError(
                Phrase(
                    QT_TR_NOOP("The code expired before it was entered. Start the sign-in again.")
                )
            )
        response = await post_form(
            client, url, data, what=Phrase(QT_TR_NOOP("waiting for the code"))
        )
        body = json_body(response)
        if body.get("access_token"):
            return body
        error = str(body.get("error") or "")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            new = body.get("interval")
            if isinstance(new, (int, float)):
                interval = max(interval, float(new))
            else:
                interval += SLOW_DOWN_STEP_S
            continue
        if error == "expired_token":
            raise LoginError(
                Phrase(
                    QT_TR_NOOP("The code expired before it was entered. Start the sign-in again.")
                )
            )
        if error == "access_denied":
            raise LoginError(Phrase(QT_TR_NOOP("The sign-in was cancelled in the browser.")))
        raise LoginError(
            Phrase(QT_TR_NOOP("The sign-in failed ({error})."), error=error_text(response))
        )
