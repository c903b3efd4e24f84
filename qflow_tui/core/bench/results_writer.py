"""A bench's results lines, written by one thread of their own in groups,
each line only once its session is on the disk (see :class:`ResultsWriter`)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..jsonlines import dumps_line
from ..session.writer import sync_file
from .results import ResultLine, checked_line


def _append_line(path: Path, obj: ResultLine) -> str:
    """One whole line per write, flushed to the operating system: a kill leaves
    at most a cut-short last line, which the next append starts after (readers
    skip it). A bench appends through :class:`ResultsWriter`, which also syncs.
    Returns the line as written (without its newline)."""
    line = dumps_line(obj, separators=(",", ":"))
    data = line + "\n"
    with open(path, "a+b") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                data = "\n" + data
        fh.write(data.encode("utf-8"))
        fh.flush()
    return line


#: Seconds a results line waits for others to be written and synced with it.
GATHER = 0.05


@dataclass
class _Pending:
    """A results line waiting for the writer's thread, and the run awaiting it."""

    path: Path
    obj: ResultLine
    session: Path | None
    """Its session, synced before the line is written (None: nothing to sync)."""
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]
    came: float = field(default_factory=time.monotonic)


class ResultsWriter:
    """Writes a bench's results lines in one thread of its own, in the order
    they come: the event loop that runs the other problems never waits for the
    disk, and one thread writing keeps each line whole and after the one before.

    Lines are written in groups: once a line comes, the thread waits
    :data:`GATHER` seconds for others, syncs the group's sessions to the disk,
    appends the lines and syncs the file once. A line is never written before
    its session is on the disk (a power cut never leaves a line pointing at a
    session it lost), and a run is reported done only once its line is too.
    Each sync is a commit of the file system's journal: a session's and a
    line's for every run (328 for HumanEval) took about 5% of a bench's
    time, where a group's are mostly one each (after the first sync of a
    group the other sessions are usually written already)."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._cond = threading.Condition()
        self._queue: list[_Pending] = []
        self._closing = False
        self._running = 0
        """Runs of this bench not yet ended (see :meth:`expect`): a group
        stops waiting for more lines once every one of them has given its."""
        self.checked: set[str] = set()
        """The lines written that passed the read-back's checks, checked in the
        writer thread while the loop waits for the sandbox (``read_lines``)."""

    def expect(self, runs: int) -> None:
        """``runs`` runs are about to start, each to give at most one line."""
        with self._cond:
            self._running += runs

    def ended(self) -> None:
        """A run has ended (its line written, or none to write)."""
        with self._cond:
            self._running = max(0, self._running - 1)
            self._cond.notify_all()

    async def append(self, path: Path, obj: ResultLine, session: Path | None) -> None:
        """Append ``obj`` once ``session`` is on the disk, and return once the
        line is too: a power cut never leaves a line pointing at a session it lost."""
        loop = asyncio.get_running_loop()
        pending = _Pending(path, obj, session, loop, loop.create_future())
        with self._cond:
            self._queue.append(pending)
            if self._thread is None:
                self._closing = False
                self._thread = threading.Thread(target=self._serve, name="qflow-results", daemon=True)
                self._thread.start()
            self._cond.notify_all()
        await pending.done

    def _serve(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._queue) or self._closing)
                if not self._queue:
                    return
                until = self._queue[0].came + GATHER
                # No wait where no other line can come (the bench's last runs).
                self._cond.wait_for(
                    lambda: self._closing or len(self._queue) >= self._running,
                    timeout=max(0.0, until - time.monotonic()),
                )
                group, self._queue = self._queue, []
            try:
                self._write(group)
            except BaseException as exc:  # never leave a run waiting: each is told
                for pending in group:
                    self._tell(pending, exc)

    def _write(self, group: list[_Pending]) -> None:
        for session in dict.fromkeys(p.session for p in group if p.session is not None):
            sync_file(session)
        written: list[tuple[_Pending, str | BaseException]] = []
        for pending in group:
            try:
                written.append((pending, _append_line(pending.path, pending.obj)))
            except Exception as exc:  # said to the run that wrote it, as before
                written.append((pending, exc))
        for path in dict.fromkeys(p.path for p, line in written if isinstance(line, str)):
            sync_file(path)
        for _pending, line in written:
            if isinstance(line, str) and checked_line(line):
                self.checked.add(line)
        for pending, line in written:
            self._tell(pending, line)

    @staticmethod
    def _tell(pending: _Pending, line: str | BaseException) -> None:
        try:
            pending.loop.call_soon_threadsafe(_settle, pending.done, line)
        except RuntimeError:  # its loop has closed (the bench was interrupted): nobody waits
            pass

    def close(self) -> None:
        """Write what is waiting at once, and end the thread."""
        with self._cond:
            thread, self._thread = self._thread, None
            self._closing = True
            self._running = 0
            self._cond.notify_all()
        if thread is not None:
            thread.join()


def _settle(done: asyncio.Future[None], line: str | BaseException) -> None:
    if done.done():  # cancelled (the bench was interrupted), or told already
        return
    if isinstance(line, BaseException):
        done.set_exception(line)
    else:
        done.set_result(None)
