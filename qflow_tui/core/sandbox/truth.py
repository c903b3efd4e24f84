"""A check's ground truth kept on disk: the expected value and the reference's
time of each input, as EvalPlus keeps its own after its first run.

An EvalPlus check computes, for every input, the canonical solution's answer
and the seconds it took (the input's time limit is four times that, at least
one second). EvalPlus computes them once per dataset and reads them from its
cache afterwards. A :class:`TruthFile` gives our check the same. The first
time a check runs, a pass of its own in the trusted process computes every
input's record and hands the app each window of them (``keep``); the app
writes them to a file of their own, made visible only once every input's
record is in it. Every run of the check after that (the first one included)
asks the app for them (``truth``) instead of running the reference again.

The records are made by the trusted process from the dataset's own code and
pass only between it and the app: a program never sees them, and the file
lives in the user's cache folder, which no sandbox level that keeps programs
from the user's files lets a program reach (the bench uses no file at the
levels that do not, see ``Evaluator``). Each record carries a CRC, so a
damaged file is read as far as it is sound and the rest is computed again.

File layout: ``QFGT1 <key>\\n``, then per input a 4-byte big-endian length,
a 4-byte CRC-32 and that many bytes of ``marshal`` data, an
``(expected, seconds)`` pair as the trusted process wrote it. The app never
reads the data itself: it checks the CRC and relays the bytes.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import struct
import tempfile
import time
import zlib
from pathlib import Path
from typing import IO, Literal

from .codec import BIG_VALUE_MAX, KEEP_CHUNK

MAGIC = b"QFGT1 "
_HEAD = struct.Struct(">II")

#: Most bytes of records one ``truth`` answer holds beyond its window's budget.
RECORD_MAX = BIG_VALUE_MAX
#: Longest line a trusted process that keeps ground truth may write: a
#: ``keep`` message carries at most ``KEEP_CHUNK`` bytes of base64 and one
#: record more (see ``harness._Oracle.keep``).
KEEP_LINE_MAX = KEEP_CHUNK + (4 * RECORD_MAX) // 3 + (1 << 20)


def _crc(data: bytes) -> int:
    return zlib.crc32(data)


class TruthFile:
    """One check's ground truth at ``path``: read when the file is there and
    names ``key``, else written as the trusted process computes it (``mode``). Never
    raises for a missing, damaged or unwritable file: the check then
    computes what it lacks, and nothing is kept."""

    def __init__(self, path: Path, key: str, inputs: int) -> None:
        self.path = path
        self.key = key
        self.inputs = inputs
        self.mode: Literal["read", "write"] = "read" if path.is_file() else "write"
        self._reader: IO[bytes] | None = None
        self._next = 0
        """Index of the next record to read, or to write."""
        self._tmp: IO[bytes] | None = None
        self._tmp_name = ""
        self._dropped = False
        self.read_records = 0
        self.kept = False
        """Whether :meth:`finish` made the file (every input's record written)."""
        self.bad: str | None = None
        """Why the file was not used as a whole (damaged, out of step), if so."""

    # ------------------------------------------------------------------ read
    def read(self, start: int, count: int, budget: int) -> list[bytes]:
        """Records from input ``start``, as the trusted process takes them
        (raw, after the answer's line): up to ``count``, ending after the one
        that takes their size past ``budget`` bytes. Empty when there are none
        to give (the file is not there, is damaged, or asked out of order)."""
        if self.mode != "read" or self.bad is not None or start != self._next or count <= 0:
            return []
        try:
            fh = self._open()
            out: list[bytes] = []
            held = 0
            while len(out) < count and held <= budget and self._next < self.inputs:
                head = fh.read(_HEAD.size)
                if not head:
                    break
                if len(head) != _HEAD.size:
                    raise ValueError("a record is cut short")
                size, crc = _HEAD.unpack(head)
                if size > RECORD_MAX:
                    raise ValueError("a record is larger than any the check writes")
                data = fh.read(size)
                if len(data) != size or _crc(data) != crc:
                    raise ValueError("a record does not match its CRC")
                out.append(data)
                held += size
                self._next += 1
            self.read_records += len(out)
            return out
        except (OSError, ValueError) as exc:
            self.bad = str(exc)
            self._close_reader()
            return []

    def _open(self) -> IO[bytes]:
        if self._reader is None:
            fh = open(self.path, "rb")  # noqa: SIM115 (held across calls, closed by finish)
            head = fh.readline(len(MAGIC) + len(self.key) + 2)
            if head != MAGIC + self.key.encode("ascii") + b"\n":
                fh.close()
                raise ValueError("the file names another check")
            self._reader = fh
        return self._reader

    def _close_reader(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    # ----------------------------------------------------------------- write
    def keep(self, start: int, recs: list[str] | None) -> None:
        """Records of inputs ``start``.. (base64), written in order; None (a
        value that could not be kept) or a gap drops the whole file."""
        if self.mode != "write" or self._dropped:
            return
        if recs is None or start != self._next or self._next + len(recs) > self.inputs:
            self._drop()
            return
        try:
            datas = [base64.b64decode(r, validate=True) for r in recs]
            if any(len(d) > RECORD_MAX for d in datas):
                self._drop()
                return
            fh = self._tmp
            if fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                _sweep_leftovers(self.path.parent)
                fd, name = tempfile.mkstemp(prefix=".tmp-", suffix=".gt", dir=self.path.parent)
                self._tmp_name = name
                fh = self._tmp = os.fdopen(fd, "wb")
                fh.write(MAGIC + self.key.encode("ascii") + b"\n")
            for data in datas:
                fh.write(_HEAD.pack(len(data), _crc(data)))
                fh.write(data)
            self._next += len(datas)
        except (OSError, ValueError, binascii.Error):
            self._drop()

    def _drop(self) -> None:
        self._dropped = True
        fh, self._tmp = self._tmp, None
        if fh is not None:
            fh.close()
            Path(self._tmp_name).unlink(missing_ok=True)

    # ------------------------------------------------------------------ end
    def finish(self) -> None:
        """Close the file; a written one becomes visible at ``path`` only when
        every input's record is in it (another run writing the same check at
        once makes the same file)."""
        self._close_reader()
        if self.bad is not None and self.mode == "read":
            # Damaged: gone, so that the next run of the check writes it again.
            self.path.unlink(missing_ok=True)
        fh = self._tmp
        if fh is None:
            return
        if self._next != self.inputs:
            self._drop()
            return
        self._tmp = None
        try:
            fh.close()
            os.replace(self._tmp_name, self.path)
            self.kept = True
        except OSError:
            fh.close()
            Path(self._tmp_name).unlink(missing_ok=True)


#: A file being written that is older than this was left by an app that ended mid-write.
LEFTOVER_AGE = 3600.0


def _sweep_leftovers(folder: Path) -> None:
    """Remove the unfinished files of apps that ended while writing one."""
    now = time.time()
    try:
        for entry in os.scandir(folder):
            if entry.name.startswith(".tmp-") and entry.name.endswith(".gt"):
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > LEFTOVER_AGE:
                        os.unlink(entry.path)
    except OSError:
        pass


def folder_size(folder: Path) -> tuple[int, int]:
    """(files, bytes) of the ground truth kept in ``folder``."""
    files = size = 0
    try:
        for entry in os.scandir(folder):
            if entry.name.endswith(".gt") and not entry.name.startswith(".") and entry.is_file():
                files += 1
                size += entry.stat().st_size
    except OSError:
        pass
    return files, size
