"""``nanobot-desktop plugins list|enable|disable``: the optional features (nanobot 0.3.5's
command names).

Our optional features are the chat channels whose SDK is an extra of the package
(``pip install "nanobot-desktop[telegram]"``; the other extras are for building and testing
the app). ``list`` says of each whether its SDK is installed and whether the config enables
it; ``enable`` turns it on in the config (``channels.<name>.enabled``) and, when its SDK is
missing, prints the command that installs it — it never installs anything itself (nanobot
runs pip; an app installed as a package or a bundle must not change itself);
``disable`` turns it off. The app or gateway picks the change up when it starts again.

Exit codes: 0 done, 1 the config could not be written, 2 usage (unknown feature, unusable
config).
"""

from __future__ import annotations

import argparse
import importlib.util

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load


def add_plugins_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    """Add ``plugins`` with ``list``, ``enable <name>`` and ``disable <name>``."""
    plugins = commands.add_parser(
        "plugins", parents=[common], help="optional features (chat channels and their SDKs)"
    )
    actions = plugins.add_subparsers(dest="plugins_command", metavar="ACTION", required=True)
    actions.add_parser("list", parents=[common], help="each feature: installed? enabled?")
    for action, text in (("enable", "turn a feature on"), ("disable", "turn a feature off")):
        parser = actions.add_parser(action, parents=[common], help=text)
        parser.add_argument("name", help="the feature, e.g. telegram, matrix, slack")


def installed(requires: tuple[str, ...]) -> bool:
    """Whether every module a feature needs can be imported."""
    return all(importlib.util.find_spec(name) is not None for name in requires)


def run_plugins(args: argparse.Namespace) -> int:
    """List, enable or disable a feature (see the module docstring)."""
    from desktop.core.channels.registry import CHANNELS
    from desktop.core.config.errors import ConfigError
    from desktop.core.config.loader import save_config

    config = load(args)
    if config is None:
        return EXIT_USAGE
    if args.plugins_command == "list":
        width = max(len(name) for name in CHANNELS)
        print(f"{'Name':<{width}}  {'Type':<7}  {'Installed':<9}  Enabled")
        for name, info in sorted(CHANNELS.items()):
            section = getattr(config.channels, name, None)
            on = bool(getattr(section, "enabled", False))
            have = installed(info.requires)
            print(f"{name:<{width}}  {'channel':<7}  {'yes' if have else 'no':<9}  "
                  f"{'yes' if on else 'no'}")  # fmt: skip
        return EXIT_OK
    chosen = CHANNELS.get(args.name)
    if chosen is None:
        return fail(f"Unknown feature: {args.name}. Available: {', '.join(sorted(CHANNELS))}")
    section = getattr(config.channels, args.name, None)
    if section is None or not hasattr(section, "enabled"):
        return fail(f"the config has no channels.{args.name} section")
    enable = args.plugins_command == "enable"
    section.enabled = enable
    try:
        path = save_config(config)
    except (ConfigError, OSError) as exc:
        return fail(f"cannot write the config: {exc}", EXIT_FAILED)
    print(f"{'Enabled' if enable else 'Disabled'} channel '{args.name}' in {path}")
    if enable and not installed(chosen.requires):
        print(f"Its SDK is not installed; install it with: {chosen.install_hint}")
    print("Restart nanobot Desktop or the gateway for the change to take effect.")
    return EXIT_OK
