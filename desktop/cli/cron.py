"""``nanobot-desktop cron list|add|remove|enable|disable|run``: scheduled jobs from the terminal.

The commands work on ``<workspace>/cron/jobs.json`` directly (safe while the app or a gateway
runs: the file is locked and re-read, see :mod:`desktop.core.cron.store`). Only ``run`` needs
a model. Exit codes: 0 done, 1 refused (a protected system job, a failed run, a run skipped
over budget), 2 usage (unknown job, bad schedule, unusable config).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

if TYPE_CHECKING:
    from desktop.core.config.schema import Config
    from desktop.core.cron.service import CronService


def add_cron_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Add ``cron`` with its actions to the top-level sub-parsers."""
    cron = commands.add_parser(
        "cron",
        parents=[common],
        help="scheduled jobs: reminders, recurring tasks, Dream, heartbeat",
        description="Jobs run as agent turns in the conversation they belong to while the app or "
        "'nanobot-desktop gateway' runs. 'dream' and 'heartbeat' are protected system jobs: "
        "disable them in the config instead of removing them.",
    )
    actions = cron.add_subparsers(dest="cron_command", metavar="ACTION", required=True)
    actions.add_parser("list", parents=[common], help="all jobs, system jobs included")
    add = actions.add_parser(
        "add", parents=[common], help="add a job (one of --every, --cron, --at)"
    )
    add.add_argument("--message", required=True, help="what the agent should do or say")
    add.add_argument("--name", help="a short name (default: the message)")
    add.add_argument("--every", type=float, metavar="SECONDS", help="run every SECONDS")
    add.add_argument("--cron", metavar="EXPR", help="5-field cron expression, e.g. '0 9 * * 1-5'")
    add.add_argument(
        "--tz", metavar="ZONE", help="IANA timezone for --cron/--at (default: the configured one)"
    )
    add.add_argument(
        "--at", metavar="ISO-TIME", help="run once at this time, e.g. 2026-05-01T09:30"
    )
    add.add_argument(
        "--session",
        default="desktop:reminders",
        metavar="KEY",
        help="conversation the job runs in (default desktop:reminders)",
    )
    for name, text in (
        ("remove", "remove a job"),
        ("enable", "enable a job"),
        ("disable", "disable a job"),
        ("run", "run a job now (needs a model)"),
    ):
        action = actions.add_parser(name, parents=[common], help=text)
        action.add_argument("job_id")


def _service(config: Config) -> CronService:
    from desktop.core.cron.service import CronService
    from desktop.core.cron.system_jobs import SYSTEM_JOBS, sync_system_jobs

    async def not_here(job: object) -> None:
        raise RuntimeError("jobs run in the app or the gateway")

    service = CronService(
        config.workspace_path / "cron" / "jobs.json",
        on_job=not_here,
        default_tz=config.agents.defaults.effective_timezone,
        protected=SYSTEM_JOBS,
    )
    sync_system_jobs(service, config)
    return service


def run_cron(args: argparse.Namespace) -> int:
    """Run a ``cron`` action."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    from desktop.core.cron.store import StoreBusyError

    try:
        service = _service(config)  # a damaged jobs file is reported on stderr as it loads
        action = args.cron_command
        if action == "list":
            return _list(service)
        if action == "add":
            return _add(service, args, config)
        if action == "remove":
            return _remove(service, args.job_id)
        if action in ("enable", "disable"):
            job = service.enable_job(args.job_id, action == "enable")
            if job is None:
                return fail(f"no job with id {args.job_id!r} (see 'cron list')")
            print(f"{'Enabled' if job.enabled else 'Disabled'} {job.id} ({job.name}).")
            return EXIT_OK
        import asyncio

        return asyncio.run(_run(config, args.job_id))
    except StoreBusyError as exc:
        return fail(str(exc), EXIT_FAILED)


def _list(service: CronService) -> int:
    from desktop.core.cron.spec import describe_job

    tz = service.default_tz
    jobs = service.list_jobs()
    if not jobs:
        print("No scheduled jobs.")
    for job in jobs:
        last = service.receipts.last_run(job.id)
        print(describe_job(job, protected=service.is_protected(job.id), tz=tz, last=last))
    return EXIT_OK


def _add(service: CronService, args: argparse.Namespace, config: Config) -> int:
    from desktop.core.cron.spec import build_schedule, describe_job
    from desktop.core.cron.types import CronPayload

    if ":" not in args.session:
        return fail(
            f"--session must look like CHANNEL:CHAT (e.g. desktop:reminders), got {args.session!r}"
        )
    channel, _, chat = args.session.partition(":")
    try:
        schedule, once = build_schedule(
            every_seconds=args.every,
            cron_expr=args.cron,
            tz=args.tz,
            at=args.at,
            default_tz=service.default_tz,
        )
        payload = CronPayload(
            message=args.message,
            session_key=args.session,
            origin_channel=channel,
            origin_chat_id=chat,
        )
        job = service.add_job(
            (args.name or args.message)[:40], schedule, payload, delete_after_run=once
        )
    except ValueError as exc:
        return fail(f"cannot add the job: {exc}")
    print("Added:\n" + describe_job(job, protected=False, tz=service.default_tz))
    return EXIT_OK


def _remove(service: CronService, job_id: str) -> int:
    from desktop.core.cron.service import ProtectedJobError

    try:
        removed = service.remove_job(job_id)
    except ProtectedJobError as exc:
        return fail(str(exc), EXIT_FAILED)
    if not removed:
        return fail(f"no job with id {job_id!r} (see 'cron list')")
    print(f"Removed {job_id}.")
    return EXIT_OK


async def _run(config: Config, job_id: str) -> int:
    import asyncio

    from desktop.cli.usage import say_budget_events
    from desktop.core.assembly import StartOptions, start_runtime
    from desktop.core.bus.queue import MessageBus
    from desktop.core.providers.factory import MissingKeyError
    from desktop.core.providers.matching import ProviderNotFound

    bus = MessageBus()
    bus.subscribe(say_budget_events)
    try:
        # This command runs the one job itself: no scheduler, no chat networks.
        runtime = await start_runtime(config, StartOptions.one_command(bus=bus))
    except (MissingKeyError, ProviderNotFound) as exc:
        return fail(str(exc))
    # The terminal shows what the run says (its receipt counts it as delivered there).
    runtime.channels.set_fallback(lambda message: print(f"[{message.channel}] {message.content}"))
    try:
        # get_job reloads jobs.json (file I/O under the cron lock): off the loop.
        if await asyncio.to_thread(runtime.cron.get_job, job_id) is None:
            return fail(f"no job with id {job_id!r} (see 'cron list')")
        result = await runtime.cron.run_now(job_id)
        job = await asyncio.to_thread(runtime.cron.get_job, job_id)
    finally:
        await runtime.stop()
    state = job.state if job is not None else None
    status = state.last_status if state is not None else None
    if status in ("error", "skipped"):
        # A reminder's own text is shown even so (its receipt counts it as shown here).
        if result:
            print(result)
        what = "failed" if status == "error" else "was skipped"
        return fail(f"the job {what}: {state.last_error if state else ''}", EXIT_FAILED)
    print(result or "(done)")
    return EXIT_OK
