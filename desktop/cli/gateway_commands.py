"""``gateway --background|status|logs|stop|restart|install-service|uninstall-service``.

The options and sub-commands are nanobot 0.3.5's, and so is the process record
(:mod:`desktop.cli.gateway_process`): ``nanobot gateway status`` sees a gateway of ours and
ours sees nanobot's; either program's ``stop`` ends either gateway. These are plain blocking
commands (no event loop runs while they do).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from desktop.cli import gateway_process as proc
from desktop.cli import gateway_unit
from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

START_TIMEOUT = 120.0  # LiteLLM's import alone takes seconds on a busy machine


def add_gateway_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    """Register ``gateway`` and its sub-commands."""
    gateway = commands.add_parser(
        "gateway",
        parents=[common],
        help="run the agent, channels, scheduler and MCP servers headless (Ctrl-C stops), "
        "or in the background / as a systemd user service",
    )
    mode = gateway.add_mutually_exclusive_group()
    mode.add_argument("--foreground", action="store_true", help="run here (the default)")
    mode.add_argument(
        "--background", action="store_true", help="start detached; output goes to its log"
    )
    actions = gateway.add_subparsers(dest="gateway_command", metavar="ACTION")
    actions.add_parser("status", parents=[common], help="is a gateway running? pid, since, log")
    logs = actions.add_parser("logs", parents=[common], help="the background gateway's log")
    logs.add_argument("--tail", type=int, default=200, help="lines to show first (default 200)")
    logs.add_argument(
        "-f", "--follow", action="store_true", default=True, help="keep printing (the default)"
    )
    logs.add_argument("--no-follow", dest="follow", action="store_false", help="print and exit")
    stop = actions.add_parser("stop", parents=[common], help="stop the running gateway")
    restart = actions.add_parser(
        "restart", parents=[common], help="stop the background gateway and start it again"
    )
    for parser in (stop, restart):
        parser.add_argument(
            "--timeout", type=float, default=20, help="seconds to wait for it to end (default 20)"
        )
    install = actions.add_parser(
        "install-service", parents=[common], help="install a systemd user unit for the gateway"
    )
    uninstall = actions.add_parser(
        "uninstall-service", parents=[common], help="remove the gateway's systemd user unit"
    )
    for parser in (install, uninstall):
        parser.add_argument("--name", default=gateway_unit.DEFAULT_NAME, help="unit name")
        parser.add_argument(
            "--manager", choices=("auto", "systemd"), default="auto", help="only systemd here"
        )
        parser.add_argument("--dry-run", action="store_true", help="print, change nothing")
    install.add_argument("--no-enable", dest="enable", action="store_false", help="do not enable")
    install.add_argument("--no-start", dest="start", action="store_false", help="do not start")


def paths_for(args: argparse.Namespace) -> proc.GatewayPaths:
    """The record and log for ``--config``/``--workspace``."""
    config = getattr(args, "config", None)
    workspace = getattr(args, "workspace", None)
    return proc.GatewayPaths.resolve(
        Path(config) if config else None, Path(workspace) if workspace else None
    )


def _print_status(status: proc.GatewayStatus, paths: proc.GatewayPaths) -> None:
    print(f"Running: {'yes' if status.running else 'no'}")
    if status.note:
        print(f"Note: {status.note}")
    if status.running:
        print(f"PID: {status.pid}")
        print(f"Program: {status.program}")
        print(f"Started At: {status.started_at or 'unknown'}")
        print(f"Launch Mode: {status.launch_mode}")
        if status.ready is not None:
            print(f"Ready: {'yes' if status.ready else 'starting'}")
    print(f"State: {paths.state}")
    print(f"Logs: {paths.log}")
    sys.stdout.flush()


def _start(args: argparse.Namespace, paths: proc.GatewayPaths) -> int:
    config = load(args)
    if config is None:
        return EXIT_USAGE
    try:
        process = proc.start_background(paths, config.gateway.port)
    except proc.AlreadyRunning as exc:
        print("The gateway is already running; not started again.")
        _print_status(exc.status, paths)
        return EXIT_FAILED
    print(f"Starting the gateway in the background (pid {process.pid})…", flush=True)
    started = proc.wait_started(paths, process, START_TIMEOUT)
    if started is not None:
        print("Gateway started in the background.")
        _print_status(started, paths)
        return EXIT_OK
    code = process.poll()
    if code is None:
        print(f"The gateway is still starting after {START_TIMEOUT:g} s; see `gateway logs`.")
        _print_status(proc.current_status(paths), paths)
        return EXIT_OK
    print(f"The gateway ended while starting (exit code {code}). The end of {paths.log}:")
    for line in proc.tail(paths.log, 15):
        print(f"  {line}")
    return EXIT_FAILED


def _stop(args: argparse.Namespace, paths: proc.GatewayPaths) -> int:
    before, ended = proc.stop(paths, args.timeout)
    if not before.running:
        print("The gateway is not running.")
        _print_status(before, paths)
        return EXIT_OK
    if not ended:
        print(
            f"The gateway (pid {before.pid}) did not end within {args.timeout:g} s after "
            f"SIGTERM; it may still be finishing a turn. `kill -9 {before.pid}` ends it at once."
        )
        return EXIT_FAILED
    print(f"Gateway stopped (pid {before.pid}).")
    return EXIT_OK


def _restart(args: argparse.Namespace, paths: proc.GatewayPaths) -> int:
    current = proc.current_status(paths)
    if not current.running:
        print("The gateway is not running; there is nothing to restart.")
        print("Start it with `nanobot-desktop gateway --background`.")
        return EXIT_FAILED
    if current.launch_mode == "foreground":
        print(
            f"The gateway (pid {current.pid}) runs in the foreground (a terminal or a service); "
            "restart it there, e.g. `systemctl --user restart nanobot-gateway`."
        )
        return EXIT_FAILED
    code = _stop(args, paths)
    return code if code != EXIT_OK else _start(args, paths)


def _logs(args: argparse.Namespace, paths: proc.GatewayPaths) -> int:
    lines = proc.tail(paths.log, args.tail)
    for line in lines:
        print(line)
    if not args.follow:
        if not lines:
            print(f"No gateway log yet ({paths.log}).")
        return EXIT_OK
    sys.stdout.flush()
    paths.log.parent.mkdir(parents=True, exist_ok=True)
    paths.log.touch(exist_ok=True)
    try:
        with paths.log.open(encoding="utf-8", errors="replace") as handle:
            handle.seek(0, 2)
            while True:
                line = handle.readline()
                if line:
                    sys.stdout.write(line)
                    sys.stdout.flush()
                else:
                    time.sleep(0.5)
    except KeyboardInterrupt:
        return 130


def _service(args: argparse.Namespace, paths: proc.GatewayPaths) -> int:
    if not sys.platform.startswith("linux"):
        return fail("install-service supports systemd (Linux) only", EXIT_FAILED)
    if args.gateway_command == "install-service":
        if not args.dry_run and load(args) is None:
            return EXIT_USAGE
        result = gateway_unit.install(
            paths, args.name, enable=args.enable, start=args.start, dry_run=args.dry_run
        )
    else:
        result = gateway_unit.uninstall(args.name, dry_run=args.dry_run)
    for line in result.lines:
        print(line)
    if result.commands:
        print("Commands:" if not args.dry_run else "Would run:")
        for command in result.commands:
            print("  " + " ".join(command))
    return EXIT_OK if result.ok else EXIT_FAILED


def run_gateway_command(args: argparse.Namespace) -> int | None:
    """Run a management sub-command or ``--background``; ``None`` means run here."""
    paths = paths_for(args)
    action = getattr(args, "gateway_command", None)
    if action is None:
        return _start(args, paths) if args.background else None
    if action == "status":
        _print_status(proc.current_status(paths), paths)
        return EXIT_OK
    handlers = {"logs": _logs, "stop": _stop, "restart": _restart}
    if action in handlers:
        return handlers[action](args, paths)
    return _service(args, paths)
