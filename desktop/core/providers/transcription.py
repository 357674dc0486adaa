"""Voice messages as text, through the transcription providers nanobot 0.3.5 offers.

Which one: the top-level ``transcription.provider`` (nanobot's; ``channels.transcriptionProvider``
in older configs), else Groq. Its key is that provider's (keyring, then
``providers.<name>.apiKey``, then its environment variable), its endpoint the section's
``apiBase`` or the provider's own. ``transcription.model`` and ``transcription.language`` apply
when set; ``transcription.enabled: false`` turns voice transcription off.

The wire protocols (each provider's documented API):

- ``multipart``: OpenAI's ``POST …/audio/transcriptions`` form (``file``, ``model``,
  ``language``), a bearer key: Groq, OpenAI, SiliconFlow.
- ``json_audio``: the same path with a JSON body, the audio base64 in ``input_audio``:
  OpenRouter.
- ``assemblyai``: ``POST /upload`` (the raw bytes), ``POST /transcript`` (the upload's URL),
  then ``GET /transcript/<id>`` until it is ``completed``; the key as the ``Authorization``
  header itself.
- ``chat_audio``: a chat completion whose user message is the audio (Xiaomi MiMo's ASR).
- ``stepfun``: StepFun's ``POST …/audio/asr/sse``, server-sent events up to
  ``transcript.text.done``.

Transient failures (408, 429, 5xx, a lost connection) are tried again after 1, 2 and 4 s.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import mimetypes
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact, register_secret

log = logging.getLogger(__name__)

Protocol = Literal["multipart", "json_audio", "assemblyai", "chat_audio", "stepfun"]
TIMEOUT_S = 60.0
RETRY_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0)
POLL_INTERVAL_S = 2.0
POLL_ATTEMPTS = 60
_RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_MIME = {".m4a": "audio/mp4", ".ogg": "audio/ogg", ".opus": "audio/ogg", ".wav": "audio/wav"}
DEFAULT_PROVIDER = "groq"


@dataclass(frozen=True)
class TranscriptionSpec:
    """One transcription provider.

    Attributes:
        name: The provider's registry name (its key and config section).
        display_name: Name shown to people.
        protocol: How its API is spoken (see the module docstring).
        api_base: Its endpoint when the config gives none.
        default_model: The model asked for when ``transcription.model`` is unset.
        aliases: Other names ``transcription.provider`` may use.
    """

    name: str
    display_name: str
    protocol: Protocol
    api_base: str
    default_model: str
    aliases: tuple[str, ...] = ()


TRANSCRIPTION_PROVIDERS: tuple[TranscriptionSpec, ...] = (
    TranscriptionSpec(
        "groq", "Groq", "multipart", "https://api.groq.com/openai/v1", "whisper-large-v3"
    ),
    TranscriptionSpec("openai", "OpenAI", "multipart", "https://api.openai.com/v1", "whisper-1"),
    TranscriptionSpec(
        "openrouter", "OpenRouter", "json_audio", "https://openrouter.ai/api/v1", "openai/whisper-1"
    ),
    TranscriptionSpec(
        "xiaomi_mimo",
        "Xiaomi MiMo",
        "chat_audio",
        "https://api.xiaomimimo.com/v1",
        "mimo-v2.5-asr",
        ("mimo", "xiaomi"),
    ),
    TranscriptionSpec(
        "stepfun", "StepFun", "stepfun", "https://api.stepfun.com/v1", "stepaudio-2.5-asr"
    ),
    TranscriptionSpec(
        "assemblyai",
        "AssemblyAI",
        "assemblyai",
        "https://api.assemblyai.com/v2",
        "universal-3-pro,universal-2",
    ),
    TranscriptionSpec(
        "siliconflow",
        "SiliconFlow",
        "multipart",
        "https://api.siliconflow.cn/v1",
        "FunAudioLLM/SenseVoiceSmall",
        ("silicon",),
    ),
)
_BY_NAME = {name: spec for spec in TRANSCRIPTION_PROVIDERS for name in (spec.name, *spec.aliases)}


def find_transcription(name: str | None) -> TranscriptionSpec | None:
    """The transcription provider called ``name`` (any case; aliases too), else ``None``."""
    return _BY_NAME.get((name or "").strip().lower().replace("-", "_"))


def no_key_note(spec: TranscriptionSpec) -> str:
    """What a voice message becomes when the provider has no key."""
    return f"(voice message: no transcription available — set a {spec.display_name} key)"


@dataclass(frozen=True)
class TranscriptionAccess:
    """Where, how and with which key to transcribe. ``repr`` never shows the key."""

    spec: TranscriptionSpec
    api_key: str = field(repr=False)
    api_base: str
    model: str
    language: str | None = None


def chosen_spec(app_config: Any) -> TranscriptionSpec | None:
    """The configured transcription provider (Groq when none is named; ``None`` when voice
    transcription is turned off). An unknown name falls back to Groq, with a warning."""
    top = getattr(app_config, "transcription", None)
    if top is not None and not getattr(top, "enabled", True):
        return None
    named = getattr(top, "provider", None)
    channels = getattr(app_config, "channels", None)
    legacy = (getattr(channels, "model_extra", None) or {}).get("transcriptionProvider")
    for name in (named, legacy):
        if name:
            spec = find_transcription(name)
            if spec is not None:
                return spec
            log.warning("unknown transcription provider %r; using Groq", name)
            break
    return find_transcription(DEFAULT_PROVIDER)


async def transcription_access(app_config: Any) -> TranscriptionAccess | None:
    """The configured provider with its key and endpoint, or ``None`` (no key, turned off)."""
    if app_config is None:
        return None
    spec = chosen_spec(app_config)
    if spec is None:
        return None
    from desktop.core.config.secrets import SecretStore

    try:
        resolved = await SecretStore().aresolve(spec.name, app_config)
    except Exception as exc:  # noqa: BLE001 - a broken keyring must not lose the message
        log.warning("looking up the %s key failed: %s", spec.display_name, redact(exc))
        return None
    if not resolved.found or resolved.value is None:
        return None
    register_secret(resolved.value)
    section = app_config.provider_config(spec.name)
    base = (getattr(section, "api_base", None) or spec.api_base).rstrip("/")
    top = getattr(app_config, "transcription", None)
    model = (getattr(top, "model", None) or spec.default_model).strip()
    language = getattr(top, "language", None) or (
        (getattr(app_config.channels, "model_extra", None) or {}).get("transcriptionLanguage")
    )
    return TranscriptionAccess(spec, resolved.value, base, model, language or None)


def _endpoint(base: str, path: str) -> str:
    """``base`` + ``/path``, unless ``base`` already is the whole endpoint."""
    return base if base.endswith(path) else f"{base}/{path}"


def _mime(path: Path) -> str:
    return _MIME.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "audio/ogg"


async def _send(
    request: Callable[[], Awaitable[httpx.Response]], delays: Sequence[float]
) -> httpx.Response:
    """``request()`` with retries of transient failures; the last answer (or error) wins.

    Raises:
        httpx.HTTPError: The request failed for good.
    """
    for attempt in range(len(delays) + 1):
        last = attempt == len(delays)
        try:
            response = await request()
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError):
            if last:
                raise
        else:
            if response.status_code not in _RETRY_STATUS or last:
                response.raise_for_status()
                return response
        await asyncio.sleep(delays[attempt])
    raise AssertionError("unreachable")  # pragma: no cover


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(Phrase(QT_TR_NOOP("the transcription answer had no text")))
    return value.strip()


async def transcribe(
    path: Path,
    access: TranscriptionAccess,
    *,
    timeout: float = TIMEOUT_S,
    delays: Sequence[float] = RETRY_DELAYS,
    poll_interval: float = POLL_INTERVAL_S,
) -> str:
    """The spoken text of the audio file at ``path``.

    Raises:
        httpx.HTTPError: A request failed (after the retries).
        TypeError: The answer held no text.
        RuntimeError: The provider reported that it could not transcribe the audio.
    """
    data = await asyncio.to_thread(path.read_bytes)
    bearer = {"Authorization": f"Bearer {access.api_key}"}
    protocol = access.spec.protocol
    async with httpx.AsyncClient(timeout=timeout) as client:
        if protocol == "assemblyai":
            return await _assemblyai(client, data, access, delays, poll_interval)
        if protocol == "stepfun":
            return await _stepfun(client, data, path, access, bearer)
        if protocol == "multipart":
            fields = {"model": access.model, "response_format": "json"}
            if access.language:
                fields["language"] = access.language
            url = _endpoint(access.api_base, "audio/transcriptions")
            files = {"file": (path.name, data, _mime(path))}
            response = await _send(
                lambda: client.post(url, headers=bearer, data=fields, files=files), delays
            )
            return _text(response.json().get("text"))
        encoded = base64.b64encode(data).decode("ascii")
        if protocol == "json_audio":
            body: dict[str, Any] = {
                "model": access.model,
                "input_audio": {"data": encoded, "format": path.suffix.lstrip(".") or "ogg"},
            }
            if access.language:
                body["language"] = access.language
            url = _endpoint(access.api_base, "audio/transcriptions")
            response = await _send(lambda: client.post(url, headers=bearer, json=body), delays)
            return _text(response.json().get("text"))
        audio = {
            "type": "input_audio",
            "input_audio": {"data": f"data:{_mime(path)};base64,{encoded}"},
        }
        body = {"model": access.model, "messages": [{"role": "user", "content": [audio]}]}
        if access.language:
            body["asr_options"] = {"language": access.language}
        url = _endpoint(access.api_base, "chat/completions")
        response = await _send(lambda: client.post(url, headers=bearer, json=body), delays)
        choices = response.json().get("choices") or [{}]
        return _text((choices[0].get("message") or {}).get("content"))


async def _assemblyai(
    client: httpx.AsyncClient,
    data: bytes,
    access: TranscriptionAccess,
    delays: Sequence[float],
    poll_interval: float,
) -> str:
    """Upload, ask for a transcript, poll it until it is done."""
    auth = {"Authorization": access.api_key}
    base = access.api_base
    upload = await _send(
        lambda: client.post(
            f"{base}/upload",
            headers={**auth, "Content-Type": "application/octet-stream"},
            content=data,
        ),
        delays,
    )
    audio_url = upload.json().get("upload_url")
    if not isinstance(audio_url, str) or not audio_url:
        raise TypeError(Phrase(QT_TR_NOOP("AssemblyAI's upload answer had no upload_url")))
    request: dict[str, Any] = {"audio_url": audio_url}
    models = [m.strip() for m in access.model.split(",") if m.strip()]
    if models:
        request["speech_models"] = models
    if access.language:
        request["language_code"] = access.language
    created = await _send(
        lambda: client.post(f"{base}/transcript", headers=auth, json=request), delays
    )
    transcript_id = created.json().get("id")
    if not isinstance(transcript_id, str) or not transcript_id:
        raise TypeError(Phrase(QT_TR_NOOP("AssemblyAI's transcript answer had no id")))
    for _attempt in range(POLL_ATTEMPTS):
        polled = await _send(
            lambda: client.get(f"{base}/transcript/{transcript_id}", headers=auth), delays
        )
        payload = polled.json()
        status = str(payload.get("status") or "").lower()
        if status == "completed":
            return _text(payload.get("text"))
        if status in ("error", "failed"):
            raise RuntimeError(
                Phrase(
                    QT_TR_NOOP("AssemblyAI could not transcribe it: {error}"),
                    error=str(payload.get("error")),
                )
            )
        await asyncio.sleep(poll_interval)
    raise RuntimeError(Phrase(QT_TR_NOOP("AssemblyAI did not finish the transcript in time")))


async def _stepfun(
    client: httpx.AsyncClient,
    data: bytes,
    path: Path,
    access: TranscriptionAccess,
    bearer: dict[str, str],
) -> str:
    """StepFun's streamed recognition: the final text of ``transcript.text.done``."""
    suffix = path.suffix.lstrip(".").lower()
    transcription: dict[str, Any] = {"model": access.model, "enable_itn": True}
    if access.language:
        transcription["language"] = access.language
    body = {
        "audio": {
            "data": base64.b64encode(data).decode("ascii"),
            "input": {
                "transcription": transcription,
                "format": {"type": suffix if suffix in ("ogg", "mp3", "wav", "pcm") else "wav"},
            },
        }
    }
    url = _endpoint(access.api_base, "audio/asr/sse")
    headers = {**bearer, "Accept": "text/event-stream"}
    async with client.stream("POST", url, headers=headers, json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            try:
                event = json.loads(line[5:].strip() or "{}")
            except ValueError:
                continue
            if event.get("type") == "error":
                raise RuntimeError(
                    Phrase(
                        QT_TR_NOOP("StepFun could not transcribe it: {error}"),
                        error=str(event.get("message")),
                    )
                )
            if event.get("type") == "transcript.text.done":
                return _text(event.get("text"))
    raise RuntimeError(Phrase(QT_TR_NOOP("StepFun's stream ended without the text")))
