"""The suite's guards catch what they promise, in a separate pytest run (pytester).

Each case runs a small test file in a subprocess with the guards loaded, and checks the
outcome: a leak or a blocking call fails the test that caused it, and a clean test passes.
Product code is stood in for by code compiled under a file name inside ``desktop/`` (the
blocking guard tells product frames by their file).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

HEADER = """
import asyncio, threading, time
from pathlib import Path
import pytest
import desktop
import tests.guards.leaks as leaks

leaks.THREAD_GRACE = 0.3

PRODUCT = str(Path(desktop.__file__).parent / "_guard_selftest.py")


def product(source):
    '''Functions defined as if they lived in desktop/.'''
    namespace = {"asyncio": asyncio, "time": time, "Path": Path}
    exec(compile(source, PRODUCT, "exec"), namespace)
    return namespace
"""


def run(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    """Run ``body`` as a test file with the guards; return the result."""
    pytester.makepyfile(test_case=HEADER + body)
    env_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    pytester._monkeypatch.setenv("PYTHONPATH", env_path)
    pytester._monkeypatch.setenv("QT_QPA_PLATFORM", os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    return pytester.runpytest_subprocess(
        "-p",
        "tests.guards.leaks",
        "-p",
        "tests.guards.blocking",
        "-o",
        "asyncio_mode=auto",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        "-p",
        "no:cacheprovider",
        *args,
    )


def test_a_task_left_pending_fails_the_test(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
async def test_leaks():
    asyncio.create_task(asyncio.sleep(30), name="forgotten")

async def test_cleans_up():
    task = asyncio.create_task(asyncio.sleep(30))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
""",
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*left 1 asyncio task(s) or timer(s) pending*", "*forgotten*"])


def test_a_product_timer_left_armed_fails_the_test(pytester: pytest.Pytester) -> None:
    """A timer armed by product code (the scheduler's wake-up) and still due after teardown
    means a scheduler left running: its tick would start tasks inside a later test. Timers of
    libraries and of the test itself, and cancelled ones, are not the guard's business."""
    result = run(
        pytester,
        """
from desktop.core.utils.redact import redact

async def test_leaves_a_product_timer():
    asyncio.get_running_loop().call_later(60, redact, "wake up")

async def test_disarms_it():
    asyncio.get_running_loop().call_later(60, redact, "wake up").cancel()

async def test_a_timer_of_its_own_is_not_product_code():
    asyncio.get_running_loop().call_later(60, print, "not ours")
""",
    )
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*left 1 asyncio task(s) or timer(s) pending*", "*timer redact*"])


def test_a_thread_left_running_fails_the_test(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
stop = threading.Event()

def test_leaks():
    threading.Thread(target=stop.wait, name="left-running").start()

def test_a_daemon_thread_or_a_finished_one_is_fine():
    threading.Thread(target=stop.wait, name="daemon", daemon=True).start()
    done = threading.Thread(target=lambda: None, name="quick")
    done.start()

def test_stops_it():
    stop.set()
""",
    )
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*non-daemon thread(s) still running*'left-running'*"])


def test_a_widget_left_behind_fails_the_test(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
from PySide6.QtWidgets import QLabel

def test_leaks(qtbot):
    label = QLabel("left")
    label.setObjectName("left-behind")
    label.show()
    leaks.kept = label

def test_registered_with_qtbot_is_closed(qtbot):
    label = QLabel("fine")
    qtbot.addWidget(label)
    label.show()
""",
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*1 top-level widget(s) not deleted:", "*QLabel 'left-behind' (visible)"]
    )


def test_a_task_left_on_the_shared_qasync_loop_fails_once(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
import qasync

@pytest.fixture(scope="session")
def qloop(qapp):
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    return loop

def test_leaks(qtbot, qloop):
    asyncio.ensure_future(asyncio.sleep(30), loop=qloop)

def test_next_one_starts_clean(qtbot, qloop):
    qtbot.waitUntil(lambda: not [t for t in asyncio.all_tasks(qloop) if not t.done()])
""",
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*left 1 asyncio task(s) or timer(s) pending*"])


def test_a_module_fixture_may_outlive_the_test(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
stop = threading.Event()

@pytest.fixture(scope="module")
def server():
    thread = threading.Thread(target=stop.wait, name="module-server")
    thread.start()
    yield
    stop.set()
    thread.join()

def test_one(server):
    pass

def test_two(server):
    pass
""",
    )
    result.assert_outcomes(passed=2)


def test_product_code_blocking_the_loop_fails(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        '''
code = product("""
async def naps():
    time.sleep(0.01)

async def naps_in_a_thread():
    await asyncio.to_thread(time.sleep, 0.01)

def reads(path):
    return Path(path).read_text()

async def reads_on_the_loop(path):
    return Path(path).read_text()
""")

async def test_sleep_in_a_product_coroutine():
    await code["naps"]()

async def test_the_same_in_a_thread_is_fine():
    await code["naps_in_a_thread"]()

async def test_a_test_calling_sync_product_code_is_fine(tmp_path):
    (tmp_path / "f").write_text("x")
    assert code["reads"](tmp_path / "f") == "x"

async def test_a_read_goes_through_and_fails_at_teardown(tmp_path):
    (tmp_path / "f").write_text("x")
    assert await code["reads_on_the_loop"](tmp_path / "f") == "x"

def test_without_a_loop_is_fine():
    time.sleep(0.01)
''',
    )
    result.assert_outcomes(passed=5, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_sleep_in_a_product_coroutine*",
            "*time.sleep, in this loop callback:",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_a_read_goes_through_and_fails_at_teardown*",
            "*io.*, in this loop callback:",
        ]
    )
