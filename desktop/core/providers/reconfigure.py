"""What a settings change needs from a running runtime: nothing, a provider switch, a channel
restart, or a rebuild.

The runtime reads some settings on every turn from the live config (they apply by themselves),
builds its provider from others (a new provider is switched in without stopping anything:
:meth:`desktop.core.runtime.Runtime.use_model`), and wires the rest into its parts at build
time (workspace, tools, MCP servers, schedules…): only those need the runtime to be rebuilt,
which stops running turns. A chat channel's own section (``channels.<name>``) needs only that
channel restarted (:func:`changed_channels`, then :func:`absorb_channel`); the flags shared
by all channels (``sendProgress``, ``sendToolHints``) are read live.

:func:`snapshot` records the settings a runtime was built (or last switched) with;
:func:`plan` compares it with the config now.
"""

from __future__ import annotations

from typing import Any, Literal

from desktop.core.config.schema import Config

Impact = Literal["none", "switch", "channel", "rebuild"]

# Read from the live config on each turn or each use: applied without doing anything.
LIVE: frozenset[tuple[str, ...]] = frozenset(
    {
        ("agents", "defaults", "maxToolIterations"),
        ("agents", "defaults", "contextWindowTokens"),
        ("agents", "defaults", "fallbackModels"),
        ("agents", "defaults", "dream", "maxBatchSize"),
        ("agents", "defaults", "dream", "maxIterations"),
        ("agents", "defaults", "dream", "tokenBudget"),
        ("agents", "defaults", "dream", "modelOverride"),
        ("tools", "restrictToWorkspace"),
        ("channels", "sendProgress"),
        ("channels", "sendToolHints"),
    }
)
# Baked into the provider: a new provider is built and switched in.
PROVIDER: frozenset[tuple[str, ...]] = frozenset(
    {
        ("agents", "defaults", "model"),
        ("agents", "defaults", "provider"),
        ("agents", "defaults", "maxTokens"),
        ("agents", "defaults", "temperature"),
        ("agents", "defaults", "reasoningEffort"),
        ("agents", "defaults", "modelPreset"),
        ("agents", "defaults", "requestTimeoutS"),
        ("agents", "defaults", "streamIdleTimeoutS"),
    }
)
PROVIDER_PREFIXES: tuple[tuple[str, ...], ...] = (("providers",), ("modelPresets",))


def _flatten(data: Any, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    if isinstance(data, dict) and data:
        flat: dict[tuple[str, ...], Any] = {}
        for key, value in data.items():
            flat.update(_flatten(value, (*prefix, str(key))))
        return flat
    return {prefix: data}


def snapshot(config: Config) -> dict[tuple[str, ...], Any]:
    """The settings of ``config`` as ``{camelCase path: value}`` (for :func:`plan`)."""
    return _flatten(config.model_dump(mode="json", by_alias=True))


def _kind(path: tuple[str, ...]) -> Impact:
    for size in range(len(path), 0, -1):
        head = path[:size]
        if head in LIVE:
            return "none"
        if head in PROVIDER:
            return "switch"
    if any(path[: len(p)] == p for p in PROVIDER_PREFIXES):
        return "switch"
    if len(path) >= 3 and path[0] == "channels":
        return "channel"
    return "rebuild"


def changed_paths(before: dict[tuple[str, ...], Any], config: Config) -> list[tuple[str, ...]]:
    """Settings that differ between ``before`` (a :func:`snapshot`) and ``config``."""
    after = snapshot(config)
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def needs(before: dict[tuple[str, ...], Any], config: Config) -> set[Impact]:
    """Everything a change from ``before`` to ``config`` needs (empty: nothing changed)."""
    return {_kind(p) for p in changed_paths(before, config)}


def plan(before: dict[tuple[str, ...], Any], config: Config) -> Impact:
    """The most a change from ``before`` to ``config`` needs: ``rebuild`` > ``channel`` >
    ``switch`` > ``none``."""
    kinds = needs(before, config)
    for kind in ("rebuild", "channel", "switch"):
        if kind in kinds:
            return kind
    return "none"


def changed_channels(before: dict[tuple[str, ...], Any], config: Config) -> set[str]:
    """Chat channels whose own settings differ between ``before`` and ``config``."""
    return {p[1] for p in changed_paths(before, config) if _kind(p) == "channel"}


def absorb_channel(before: dict[tuple[str, ...], Any], config: Config, name: str) -> None:
    """Take channel ``name``'s settings of ``config`` into ``before`` (it was restarted with
    them)."""
    after = snapshot(config)
    prefix = ("channels", name)
    for path in before.keys() | after.keys():
        if path[:2] != prefix:
            continue
        if path in after:
            before[path] = after[path]
        else:
            before.pop(path, None)


def absorb(before: dict[tuple[str, ...], Any], config: Config) -> None:
    """Take the live and provider settings of ``config`` into ``before`` (after a switch);
    settings that need a rebuild or a channel restart keep their old value, so :func:`plan`
    still reports them."""
    after = snapshot(config)
    for path in before.keys() | after.keys():
        if _kind(path) in ("rebuild", "channel"):
            continue
        if path in after:
            before[path] = after[path]
        else:
            before.pop(path, None)
