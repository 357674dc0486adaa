"""``generate_image`` (nanobot 0.3.5's name): images through LiteLLM's image API, kept in the
workspace and shown in the chat.

Configured as in 0.3.5 (``tools.imageGeneration``: ``enabled`` — off by default —,
``provider`` — a ``providers`` section, whose key comes from the keyring as for chat —,
``model``, ``defaultAspectRatio``, ``defaultImageSize``, ``maxImagesPerTurn``, ``saveDir``).
Each image is saved as 0.3.5 saves its artifacts, under the media folder (ours is
``<workspace>/media``): ``<saveDir>/<YYYY-MM-DD>/img_<12 hex>.<ext>`` with a ``.json`` sidecar
(``id``, ``path``, ``mime``, ``prompt``, ``model``, ``provider``, ``source_images``,
``created_at``). The tool then posts the images to the chat (an outbound message with the
files as media: the window shows them, a chat network sends them) and tells the model the
paths. ``reference_images`` (editing) is not supported yet: such a call is refused with a
clear error.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import re
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from desktop.core.bus.events import OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config, ImageGenerationToolConfig
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.filesystem import image_mime
from desktop.core.utils.atomic import atomic_write_bytes, atomic_write_text
from desktop.core.utils.redact import redact

EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/gif": ".gif"}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
TIMEOUT_S = 180.0
_SIZE = re.compile(r"^\d{2,5}x\d{2,5}$")
KeyFor = Callable[[str], str | None]


class ImageError(ValueError):
    """An image that could not be made or kept (the message is for the model)."""


def openai_size(aspect_ratio: str, image_size: str) -> str:
    """The ``WIDTHxHEIGHT`` an OpenAI-style images API takes for 0.3.5's ratio and size hints."""
    if _SIZE.match(image_size.strip()):
        return image_size.strip()
    ratio = aspect_ratio.replace(" ", "")
    if ratio in ("16:9", "3:2", "4:3", "21:9"):
        return "1536x1024"
    if ratio in ("9:16", "2:3", "3:4"):
        return "1024x1536"
    return "1024x1024"


def save_image(
    media: Path, config: ImageGenerationToolConfig, data: bytes, *, prompt: str, model: str
) -> dict[str, Any]:
    """Store one image and its sidecar (atomic writes); returns the sidecar's content."""
    mime = image_mime(data[:16])
    if mime is None or mime not in EXTENSIONS:
        raise ImageError("the provider returned data that is not a PNG, JPEG, WebP or GIF image")
    relative = PurePosixPath(config.save_dir.replace("\\", "/").strip("/") or "generated")
    if relative.is_absolute() or any(part in ("", ".", "..") for part in relative.parts):
        raise ImageError("tools.imageGeneration.saveDir must be a plain relative folder")
    now = datetime.now().astimezone()
    folder = media.joinpath(*relative.parts, now.strftime("%Y-%m-%d"))
    folder.mkdir(parents=True, exist_ok=True)
    artifact = f"img_{uuid.uuid4().hex[:12]}"
    path = folder / f"{artifact}{EXTENSIONS[mime]}"
    atomic_write_bytes(path, data)
    sidecar = {
        "id": artifact,
        "path": str(path),
        "mime": mime,
        "prompt": prompt,
        "model": model,
        "provider": config.provider,
        "source_images": [],
        "created_at": now.isoformat(),
    }
    atomic_write_text(
        folder / f"{artifact}.json", json.dumps(sidecar, ensure_ascii=False, indent=2)
    )
    return sidecar


async def _image_bytes(item: Any) -> bytes:
    """The bytes of one entry of an images response (``b64_json`` or a ``url``)."""
    encoded = item.get("b64_json") if isinstance(item, dict) else getattr(item, "b64_json", None)
    if encoded:
        try:
            return base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ImageError(
                f"the provider sent an image that is not valid base64 ({exc})"
            ) from exc
    url = item.get("url") if isinstance(item, dict) else getattr(item, "url", None)
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        raise ImageError("the provider's answer holds no image")
    import httpx

    async with (
        httpx.AsyncClient(timeout=TIMEOUT_S, follow_redirects=True) as client,
        client.stream("GET", url) as response,
    ):
        response.raise_for_status()
        data = bytearray()
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > MAX_IMAGE_BYTES:
                raise ImageError("the generated image is larger than 20 MB")
    return bytes(data)


class GenerateImageTool(Tool):
    """Generate images, keep them in the workspace and show them in the chat."""

    name: ClassVar[str] = "generate_image"
    description: ClassVar[str] = (
        "Generate images from a detailed prompt; they are saved in the workspace and shown "
        "in this chat."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "minLength": 1},
            "reference_images": {"type": "array", "items": {"type": "string"}},
            "aspect_ratio": {"type": "string", "description": "e.g. 1:1, 16:9"},
            "image_size": {"type": "string", "description": "e.g. 1K or 1024x1024"},
            "count": {"type": "integer", "minimum": 1, "maximum": 8},
        },
        "required": ["prompt"],
    }
    group: ClassVar[str] = "images"

    def __init__(self, config: Config, bus: MessageBus, key_for: KeyFor) -> None:
        self.config = config
        self.bus = bus
        self.key_for = key_for

    def _request(self, prompt: str, size: str, count: int) -> dict[str, Any]:
        """LiteLLM's arguments: the model routed as for chat, with the section's key and base."""
        from desktop.core.config.provider_registry import find_by_name
        from desktop.core.providers.matching import litellm_model_name

        settings = self.config.tools.image_generation
        spec = find_by_name(settings.provider)
        if spec is None:
            raise ImageError(f"unknown image provider '{settings.provider}'")
        section = self.config.provider_config(settings.provider)
        kwargs: dict[str, Any] = {
            "model": litellm_model_name(spec, settings.model),
            "prompt": prompt,
            "n": count,
            "size": size,
            "timeout": TIMEOUT_S,
            "response_format": "b64_json",
        }
        key = self.key_for(settings.provider)
        if key:
            kwargs["api_key"] = key
        elif spec.needs_key:
            raise ImageError(f"no API key for {settings.provider}; add it in Settings")
        base = (section.api_base if section else None) or spec.default_api_base
        if base:
            kwargs["api_base"] = base
        return kwargs

    async def execute(
        self,
        ctx: ToolContext,
        *,
        prompt: str,
        reference_images: list[str] | None = None,
        aspect_ratio: str = "",
        image_size: str = "",
        count: int = 1,
        **_: Any,
    ) -> ToolResult:
        """Make ``count`` images, save them, post them to the chat; their paths for the model."""
        settings = self.config.tools.image_generation
        if reference_images:
            return ToolResult.error(
                "Error: editing images (reference_images) is not supported here; describe the "
                "whole image in the prompt instead"
            )
        if count > settings.max_images_per_turn:
            return ToolResult.error(
                f"Error: at most {settings.max_images_per_turn} images per call "
                "(tools.imageGeneration.maxImagesPerTurn)"
            )
        size = openai_size(
            aspect_ratio or settings.default_aspect_ratio, image_size or settings.default_image_size
        )
        from desktop.core.providers.litellm_provider import aimport_litellm

        try:
            kwargs = await asyncio.to_thread(self._request, prompt, size, count)
            litellm = await aimport_litellm()
            response = await litellm.aimage_generation(**kwargs)
            items = list(getattr(response, "data", None) or [])[:count]
            if not items:
                raise ImageError("the provider returned no image")
            media = self.config.workspace_path / "media"
            saved = []
            for item in items:
                data = await _image_bytes(item)
                saved.append(
                    await asyncio.to_thread(
                        save_image, media, settings, data, prompt=prompt, model=settings.model
                    )
                )
        except ImageError as exc:
            return ToolResult.error(f"Error: {exc}")
        except Exception as exc:  # noqa: BLE001 - the provider's failure is data for the model
            return ToolResult.error(f"Error: image generation failed: {redact(str(exc))[:500]}")
        paths = [str(a["path"]) for a in saved]
        await self.bus.publish_outbound(
            OutboundMessage(
                ctx.channel,
                ctx.chat_id,
                f"Generated image{'s' if len(paths) > 1 else ''}: {prompt[:200]}",
                media=paths,
                metadata={"generated_images": True, "turn_id": ctx.turn_id},
            )
        )
        return ToolResult(
            json.dumps(
                {
                    "artifacts": saved,
                    "next_step": "The images are already shown in this chat; refer to them by "
                    "path if needed.",
                },
                ensure_ascii=False,
            )
        )
