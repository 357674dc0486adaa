"""The app's own files (utils/ownfiles.py): no link followed, no FIFO waited on, on real files.

Each test plants what a command could leave in the workspace -- a symlink to a file outside,
a dangling symlink into a folder outside, a FIFO, a symlinked folder -- and checks that the
readers refuse it with a sentence naming the file, the writers and locks move it aside and use
a real file, and nothing outside the workspace is read or written.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from filelock import Timeout

from desktop.core.cron.receipts import Receipt, ReceiptLog
from desktop.core.utils import ownfiles
from desktop.core.utils.ownfiles import OwnLock, Refused
from desktop.core.utils.validate import Unusable, read_int_file, read_jsonl, read_text_document
from tests.core.robust.corpus import make_fifo

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / "documents").mkdir(parents=True)
    (folder / "secret.txt").write_text("the secret\n")
    return folder


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "memory").mkdir(parents=True)
    return folder


def _plant(where: Path, outside: Path, kind: str) -> None:
    where.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link":
        where.symlink_to(outside / "secret.txt")
    elif kind == "link_new":
        where.symlink_to(outside / "documents" / "new.txt")
    else:
        make_fifo(where)


def _outside_untouched(outside: Path) -> None:
    assert (outside / "secret.txt").read_text() == "the secret\n"
    assert list((outside / "documents").iterdir()) == []


KINDS = ("link", "link_new", "fifo")


@pytest.mark.parametrize("kind", KINDS)
def test_readers_refuse_with_a_sentence_naming_the_file(
    kind: str, ws: Path, outside: Path, caplog: pytest.LogCaptureFixture
) -> None:
    target = ws / "memory" / "MEMORY.md"
    _plant(target, outside, kind)
    assert read_text_document(target, root=ws) is None
    assert read_int_file(ws / "memory" / "MEMORY.md", root=ws) is None
    with pytest.raises(Refused) as refused:
        ownfiles.open_read(target, root=ws)
    assert str(refused.value).startswith(str(target))
    what = "symbolic link" if kind != "fifo" else "not a regular file"
    assert what in str(refused.value)
    assert any(str(target) in r.getMessage() and what in r.getMessage() for r in caplog.records)
    _outside_untouched(outside)


def test_a_linked_folder_on_the_way_is_refused_for_reading_and_writing(
    ws: Path, outside: Path
) -> None:
    (ws / "usage").symlink_to(outside / "documents", target_is_directory=True)
    (outside / "documents" / "ledger.jsonl").write_text('{"a": 1}\n')
    with pytest.raises(Refused) as refused:
        ownfiles.open_read(ws / "usage" / "ledger.jsonl", root=ws)
    assert refused.value.kind == "folder-link" and refused.value.path == ws / "usage"
    assert "replace the link with a real folder" in str(refused.value)
    with pytest.raises(Refused):
        ownfiles.append(ws / "usage" / "ledger.jsonl", b"x\n", root=ws)
    with pytest.raises(Refused):
        ownfiles.replace(ws / "usage" / "other.jsonl", b"x\n", root=ws)
    with pytest.raises(Refused):
        OwnLock(ws / "usage" / ".lock", root=ws, timeout=1).acquire()
    with pytest.raises(Unusable):
        read_jsonl(ws / "usage" / "ledger.jsonl", root=ws)
    assert sorted(p.name for p in (outside / "documents").iterdir()) == ["ledger.jsonl"]
    assert (outside / "documents" / "ledger.jsonl").read_text() == '{"a": 1}\n'


@pytest.mark.parametrize("kind", KINDS)
def test_writers_move_the_planted_entry_aside_and_write_a_real_file(
    kind: str, ws: Path, outside: Path
) -> None:
    log = ws / "memory" / "history.jsonl"
    cursor = ws / "memory" / ".cursor"
    _plant(log, outside, kind)
    _plant(cursor, outside, kind)
    ownfiles.append(log, b'{"line": 1}\n', root=ws)
    ownfiles.replace(cursor, b"7", root=ws)
    assert log.is_file() and not log.is_symlink() and log.read_bytes() == b'{"line": 1}\n'
    assert cursor.is_file() and not cursor.is_symlink() and cursor.read_text() == "7"
    aside = sorted(p.name for p in log.parent.iterdir() if ".corrupt-" in p.name)
    assert len(aside) == 2, "the planted entries are kept aside (never their targets)"
    _outside_untouched(outside)


@pytest.mark.parametrize("kind", KINDS)
def test_a_planted_lock_file_is_replaced_and_the_lock_still_excludes(
    kind: str, ws: Path, outside: Path
) -> None:
    path = ws / "memory" / "history.jsonl.lock"
    _plant(path, outside, kind)
    lock = OwnLock(path, root=ws, timeout=5)
    with lock:
        assert path.is_file() and not path.is_symlink()
        other = OwnLock(path, root=ws, timeout=0.2)
        started = time.monotonic()
        with pytest.raises(Timeout):
            other.acquire()  # a second holder (another thread's lock object) waits
        assert time.monotonic() - started < 5
    with OwnLock(path, root=ws, timeout=1):
        pass
    _outside_untouched(outside)


HOLDER = """
import sys, time
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(30)
"""


def test_an_own_lock_and_a_filelock_on_the_same_file_exclude_each_other(ws: Path) -> None:
    """nanobot and older versions of the app take these locks with filelock (flock on POSIX):
    the own lock waits for them."""
    path = ws / "memory" / "history.jsonl.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, cwd=REPO
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        with pytest.raises(Timeout):
            OwnLock(path, root=ws, timeout=0.3).acquire()
    finally:
        holder.kill()
        holder.wait(30)
        assert holder.stdout is not None
        holder.stdout.close()
    with OwnLock(path, root=ws, timeout=5):
        pass


def test_the_lock_is_reentrant_per_thread_and_shared_when_asked(ws: Path) -> None:
    path = ws / "x.lock"
    lock = OwnLock(path, root=ws, timeout=1)
    with lock, lock:
        assert lock.is_locked
    assert not lock.is_locked
    shared = OwnLock(path, root=ws, timeout=1, thread_local=False)
    shared.acquire()
    done = threading.Event()
    threading.Thread(target=lambda: (shared.release(), done.set())).start()
    assert done.wait(10) and not shared.is_locked


@pytest.mark.parametrize("kind", KINDS)
def test_receipts_never_follow_a_planted_link_or_fifo(
    kind: str, ws: Path, outside: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    log = ReceiptLog(ws / "cron")
    _plant(log.path("j1"), outside, kind)
    _plant(log.folder / ".lock", outside, "fifo" if kind == "fifo" else "link")
    receipt = Receipt(id="r1", job_id="j1", at_ms=1000, outcome="ran")
    log.append(receipt)
    assert [r.id for r in log.read("j1")] == ["r1"]
    assert not log.path("j1").is_symlink()
    _outside_untouched(outside)


def test_nothing_blocks_on_a_fifo_even_when_a_writer_keeps_it_open(ws: Path, outside: Path) -> None:
    """A FIFO with a writer attached would make a blocking read wait for data forever."""
    path = ws / "SOUL.md"
    make_fifo(path)
    writer = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    try:
        assert read_text_document(path, root=ws) is None
    finally:
        os.close(writer)
