"""MCP tools, resources and prompts as agent tools.

Every capability of a server becomes one :class:`~desktop.core.tools.base.Tool`:

* a tool ``t`` → ``mcp_<server>_<t>`` (calls ``t`` with the given arguments),
* a resource ``r`` → read-only ``mcp_<server>_resource_<r>`` (no parameters; reads its URI),
* a prompt ``p`` → read-only ``mcp_<server>_prompt_<p>`` (its arguments as string parameters;
  returns the rendered messages as text).

Names are limited to ``[A-Za-z0-9_-]`` and 64 characters. Results are flattened for the model:
text parts joined, images kept as image content parts, ``isError`` turned into an error result.
Whatever a server returns, errors included, is framed as untrusted
(:func:`desktop.core.tools.untrusted.frame`, source: the wrapper's name).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import mcp.types as mt
from mcp.client import Client

from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.untrusted import frame_result

T = TypeVar("T")

MAX_NAME_LENGTH = 64
_HASH_LENGTH = 8
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# Schema keywords whose value maps names to subschemas, holds one subschema, or a list of them.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
)
_SCHEMA_LIST = ("anyOf", "allOf", "oneOf", "prefixItems")


class MCPCallError(Exception):
    """A request to an MCP server failed; the message is ready for the model."""


class MCPCaller(Protocol):
    """What a wrapper needs from its server connection."""

    @property
    def server(self) -> str:
        """The server's configured name."""

    @property
    def timeout(self) -> float:
        """Seconds a single request may take (the server's ``toolTimeout``)."""

    async def request(self, action: str, op: Callable[[Client], Awaitable[T]]) -> T:
        """Run ``op`` against the live client.

        Raises:
            MCPCallError: Not connected, timed out, connection lost or a protocol error.
        """


@dataclass(frozen=True)
class Catalog:
    """What a server offers, as listed right after connecting."""

    tools: Sequence[mt.Tool] = ()
    resources: Sequence[mt.Resource] = ()
    prompts: Sequence[mt.Prompt] = ()


@dataclass
class Selection:
    """The wrappers a catalog yields under ``enabledTools``, and the entries nothing matched."""

    tools: list[Tool] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Names and schemas


def sanitize_name(raw: str) -> str:
    """``raw`` with unsafe characters replaced by ``_``, cut to 64 chars with a hash suffix."""
    name = _UNSAFE.sub("_", raw)
    if len(name) <= MAX_NAME_LENGTH:
        return name
    digest = hashlib.sha1(raw.encode("utf-8")).hexdigest()[:_HASH_LENGTH]
    return f"{name[: MAX_NAME_LENGTH - _HASH_LENGTH - 1]}_{digest}"


def server_prefix(server: str) -> str:
    """The name prefix of everything from ``server``: ``mcp_<server>_``."""
    return _UNSAFE.sub("_", f"mcp_{server}_")


def compact_schema(schema: Any) -> dict[str, Any]:
    """An object schema for the model, without the ``title`` noise generators add.

    ``title`` keys cost tokens on every request and say nothing the property name does not;
    property *names* called ``title`` are kept.
    """
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    result = _strip_titles(schema)
    result.setdefault("type", "object")
    if result["type"] == "object":
        result.setdefault("properties", {})
    return result


def _strip_titles(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            value = {
                name: _strip_titles(sub) if isinstance(sub, dict) else sub
                for name, sub in value.items()
            }
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            value = _strip_titles(value)
        elif key in _SCHEMA_LIST and isinstance(value, list):
            value = [_strip_titles(sub) if isinstance(sub, dict) else sub for sub in value]
        out[key] = value
    return out


# ---------------------------------------------------------------------------------------------
# Results


def _image_part(mime: str, data: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


def _add_contents(
    item: mt.TextResourceContents | mt.BlobResourceContents,
    texts: list[str],
    images: list[dict[str, Any]],
) -> None:
    """Append a resource's contents: text as text, images as parts, other binaries as a note."""
    if isinstance(item, mt.TextResourceContents):
        texts.append(item.text)
        return
    mime = item.mime_type or "application/octet-stream"
    if mime.startswith("image/"):
        images.append(_image_part(mime, item.blob))
    else:
        size = len(item.blob) * 3 // 4
        texts.append(f"[binary content {item.uri} ({mime}, about {size} bytes) not shown]")


def flatten_blocks(blocks: Iterable[Any]) -> tuple[str, tuple[dict[str, Any], ...]]:
    """Join text parts; keep images as image content parts; describe what cannot be shown."""
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, mt.TextContent):
            texts.append(block.text)
        elif isinstance(block, mt.ImageContent):
            images.append(_image_part(block.mime_type, block.data))
        elif isinstance(block, mt.EmbeddedResource):
            _add_contents(block.resource, texts, images)
        elif isinstance(block, mt.ResourceLink):
            texts.append(f"[resource {block.name}: {block.uri}]")
        elif isinstance(block, mt.AudioContent):
            texts.append(f"[audio ({block.mime_type}) not shown]")
        else:
            texts.append(f"[{getattr(block, 'type', type(block).__name__)} content not shown]")
    return "\n".join(texts), tuple(images)


def tool_result(result: mt.CallToolResult) -> ToolResult:
    """A :class:`ToolResult` from an MCP tool call result."""
    text, images = flatten_blocks(result.content)
    if not text and not images and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    if result.is_error:
        return ToolResult(text or "Error: the MCP tool failed without details.", images, True)
    return ToolResult(text or "(no output)", images)


# ---------------------------------------------------------------------------------------------
# Wrappers


class _MCPWrapper(Tool):
    """Common base: the definition is per instance (it comes from the server).

    Subclasses implement :meth:`_run`; :meth:`execute` frames what it returns as untrusted.
    """

    def __init__(
        self,
        caller: MCPCaller,
        *,
        name: str,
        description: str,
        parameters: dict[str, Any],
        read_only: bool,
    ) -> None:
        # Instance values shadow the class-level defaults of the Tool contract: an MCP tool's
        # definition comes from its server, so it cannot be a class attribute (mypy: misc).
        self.name = name  # type: ignore[misc]
        self.description = description  # type: ignore[misc]
        self.parameters = parameters  # type: ignore[misc]
        self.read_only = read_only  # type: ignore[misc]
        self._caller = caller

    async def execute(self, ctx: ToolContext, /, **kwargs: Any) -> ToolResult:
        """Run the request (positional-only ``ctx`` so any argument name is allowed)."""
        return frame_result(await self._run(kwargs), self.name)

    async def _run(self, arguments: dict[str, Any]) -> ToolResult:
        """The request itself (``arguments`` from the model); errors come back as results."""
        raise NotImplementedError


class MCPToolWrapper(_MCPWrapper):
    """Calls one MCP tool by its original name."""

    def __init__(self, caller: MCPCaller, tool: mt.Tool, *, name: str) -> None:
        annotations = tool.annotations
        fallback = f"Tool {tool.name} of MCP server {caller.server}."
        description = (tool.description or tool.title or fallback).strip()
        super().__init__(
            caller,
            name=name,
            description=description,
            parameters=compact_schema(tool.input_schema),
            read_only=bool(annotations and annotations.read_only_hint),
        )
        self.original_name = tool.name

    async def _run(self, arguments: dict[str, Any]) -> ToolResult:
        """Call the tool with the model's arguments."""
        caller = self._caller
        try:
            result = await caller.request(
                f"tool {self.original_name}",
                lambda client: client.call_tool(
                    self.original_name, arguments, read_timeout_seconds=caller.timeout
                ),
            )
        except MCPCallError as exc:
            return ToolResult.error(str(exc))
        return tool_result(result)


class MCPResourceWrapper(_MCPWrapper):
    """Reads one resource; takes no arguments."""

    def __init__(self, caller: MCPCaller, resource: mt.Resource, *, name: str) -> None:
        about = (resource.description or resource.title or "").strip()
        what = f"Read resource {resource.name} ({resource.uri}) of MCP server {caller.server}."
        super().__init__(
            caller,
            name=name,
            description=f"{what} {about}".strip(),
            parameters={"type": "object", "properties": {}},
            read_only=True,
        )
        self.uri = str(resource.uri)

    async def _run(self, arguments: dict[str, Any]) -> ToolResult:
        """Read the resource and flatten its contents (it takes no arguments)."""
        try:
            result = await self._caller.request(
                f"resource {self.uri}", lambda client: client.read_resource(self.uri)
            )
        except MCPCallError as exc:
            return ToolResult.error(str(exc))
        texts: list[str] = []
        images: list[dict[str, Any]] = []
        for item in result.contents:
            _add_contents(item, texts, images)
        return ToolResult("\n".join(texts) or "(empty resource)", tuple(images))


class MCPPromptWrapper(_MCPWrapper):
    """Renders one prompt; its arguments become string parameters."""

    def __init__(self, caller: MCPCaller, prompt: mt.Prompt, *, name: str) -> None:
        arguments = prompt.arguments or []
        properties: dict[str, Any] = {}
        for argument in arguments:
            properties[argument.name] = {"type": "string"}
            if argument.description:
                properties[argument.name]["description"] = argument.description
        parameters: dict[str, Any] = {"type": "object", "properties": properties}
        required = [argument.name for argument in arguments if argument.required]
        if required:
            parameters["required"] = required
        about = (prompt.description or prompt.title or "").strip()
        super().__init__(
            caller,
            name=name,
            description=f"Get prompt {prompt.name} of MCP server {caller.server}. {about}".strip(),
            parameters=parameters,
            read_only=True,
        )
        self.original_name = prompt.name

    async def _run(self, arguments: dict[str, Any]) -> ToolResult:
        """Render the prompt's messages as ``[role]`` sections."""
        strings = {
            key: value if isinstance(value, str) else json.dumps(value)
            for key, value in arguments.items()
        }
        try:
            result = await self._caller.request(
                f"prompt {self.original_name}",
                lambda client: client.get_prompt(self.original_name, strings or None),
            )
        except MCPCallError as exc:
            return ToolResult.error(str(exc))
        sections: list[str] = []
        images: list[dict[str, Any]] = []
        for message in result.messages:
            text, parts = flatten_blocks([message.content])
            sections.append(f"[{message.role}]\n{text}")
            images.extend(parts)
        return ToolResult("\n\n".join(sections) or "(empty prompt)", tuple(images))


# ---------------------------------------------------------------------------------------------
# Selection


def build_wrappers(caller: MCPCaller, catalog: Catalog, enabled: Sequence[str]) -> Selection:
    """Wrap everything in ``catalog`` that ``enabled`` allows, sorted by name.

    ``["*"]`` allows all. Otherwise an entry matches a wrapper's full name
    (``mcp_<server>_add``), its name without the prefix (``add``, ``resource_readme``,
    ``prompt_review``) or, for tools, the original tool name.
    """
    prefix = server_prefix(caller.server)
    candidates = sorted(_candidates(catalog, prefix), key=lambda item: item[0])
    wanted = set(enabled)
    allow_all = "*" in wanted
    matched: set[str] = set()
    taken: set[str] = set()
    selection = Selection()
    for raw, original, item in candidates:
        keys = {raw, sanitize_name(raw), raw.removeprefix(prefix), original}
        if not allow_all and not keys & wanted:
            continue
        matched |= keys & wanted
        selection.tools.append(_wrap(caller, item, _unique(raw, taken)))
    selection.tools.sort(key=lambda tool: tool.name)
    selection.unmatched = [] if allow_all else sorted(wanted - matched)
    return selection


_Item = mt.Tool | mt.Resource | mt.Prompt


def _candidates(catalog: Catalog, prefix: str) -> Iterable[tuple[str, str, _Item]]:
    """``(raw wrapped name, name a filter may use, item)`` for everything in the catalog."""
    for tool in catalog.tools:
        yield f"{prefix}{tool.name}", tool.name, tool
    for resource in catalog.resources:
        yield f"{prefix}resource_{resource.name}", f"resource_{resource.name}", resource
    for prompt in catalog.prompts:
        yield f"{prefix}prompt_{prompt.name}", f"prompt_{prompt.name}", prompt


def _wrap(caller: MCPCaller, item: _Item, name: str) -> Tool:
    if isinstance(item, mt.Tool):
        return MCPToolWrapper(caller, item, name=name)
    if isinstance(item, mt.Resource):
        return MCPResourceWrapper(caller, item, name=name)
    return MCPPromptWrapper(caller, item, name=name)


def _unique(raw: str, taken: set[str]) -> str:
    """A sanitized name for ``raw`` that no earlier wrapper of this server uses.

    Clashes (``a.b`` and ``a_b``, or two resources with one name) get a hash suffix; the
    candidates arrive sorted, so the same listing always yields the same names.
    """
    name = sanitize_name(raw)
    salt = 0
    while name in taken:
        salt += 1
        digest = hashlib.sha1(f"{raw}#{salt}".encode()).hexdigest()[:_HASH_LENGTH]
        name = f"{sanitize_name(raw)[: MAX_NAME_LENGTH - _HASH_LENGTH - 1]}_{digest}"
    taken.add(name)
    return name
