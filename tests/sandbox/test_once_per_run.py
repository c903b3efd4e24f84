"""What a bench used to work out again for every run, now worked out once:
each cut keeps what the thing means (a bench runs 164 of them, and the app's
one interpreter lock bounds it; docs/performance.md)."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
import time

from sbhelpers import make

from qflow_tui.core.bench.evaluate import Verdict
from qflow_tui.core.sandbox import clock, isolation, watchdog
from qflow_tui.core.sandbox.protocol import encode_line, parse_line


def _isolation() -> isolation.Isolation:
    return isolation.Isolation(
        layers=frozenset({"bwrap"}),
        label="bwrap",
        interpreter="/usr/bin/python3",
        bwrap="/usr/bin/bwrap",
        seccomp_path=None,
        uid_base=None,
        slots=4,
        network_blocked=True,
        packages=("/opt/site",),
    )


def test_an_isolation_hashes_as_it_compares_and_a_copy_works_out_its_own_hash():
    iso = _isolation()
    found_differs = dataclasses.replace(iso, found={"bwrap": "found"})
    assert iso == found_differs and hash(iso) == hash(found_differs)  # `found` is not compared
    other = dataclasses.replace(iso, slots=5)
    assert iso != other and hash(iso) != hash(other)
    hash(iso)  # the hash is kept now: a copy must not carry it
    assert "_hash" not in iso.__getstate__()  # a string's hash differs in another process
    copy = pickle.loads(pickle.dumps(iso))
    assert copy == iso and hash(copy) == hash(iso)


def test_an_isolation_resolves_its_interpreter_once(monkeypatch):
    seen: list[str] = []
    real = os.path.realpath

    def counting(path: str) -> str:
        seen.append(path)
        return real(path)

    isolation._binds.cache_clear()
    monkeypatch.setattr(isolation.os.path, "realpath", counting)
    iso = _isolation()
    first = iso.launch(0)
    assert iso.launch(1).bind_ro == first.bind_ro == ("/opt/site",)  # the prefix /usr is bound anyway
    assert seen == ["/usr/bin/python3"]
    isolation._binds.cache_clear()


def test_a_verdict_as_a_dict_is_what_asdict_makes():
    verdict = Verdict(False, "timeout", "took too long", 1.5, True, False, 0.9, 1.0)
    assert verdict.to_dict() == dataclasses.asdict(verdict)
    assert list(verdict.to_dict()) == [f.name for f in dataclasses.fields(Verdict)]


def test_a_line_is_one_json_object_in_utf8_or_nothing():
    line = encode_line({"k": "ret", "c": 3, "v": ["é", 1.5]})
    assert line.endswith(b"\n") and b" " not in line
    assert parse_line(line) == {"k": "ret", "c": 3, "v": ["é", 1.5]}
    assert parse_line(b"[1, 2]\n") is None  # not an object
    assert parse_line(b"{bad\n") is None
    assert parse_line(b'{"k": "\xff"}\n') is None  # not UTF-8
    assert parse_line(b"[" * 100_000 + b"]" * 100_000) is None  # nesting too deep


def test_a_programs_clock_is_read_once_as_its_first_interval_begins(monkeypatch):
    reads: list[int] = []
    sample = clock.ProgramClock.sample

    def counting(self: clock.ProgramClock) -> clock.Sample | None:
        reads.append(self.pid)
        return sample(self)

    attach = watchdog.Child.attach_clock
    per_attach: list[int] = []

    def attaching(self: watchdog.Child, guardian: int | None = None) -> None:
        before = len(reads)
        attach(self, guardian)
        if self.clock is not None:
            per_attach.append(len(reads) - before)
            assert self._mark is not None and self._mark.sample is not None
            assert self._mark.at == self._mark.sample.at  # its wall clock starts where its CPU count does

    monkeypatch.setattr(clock.ProgramClock, "sample", counting)
    monkeypatch.setattr(watchdog.Child, "attach_clock", attaching)
    r = make("auto").run_tests_sync("def f(x):\n    return x\n", ["assert f(1) == 1"], entry_point="f")
    assert r.all_passed, r.to_dict()
    assert per_attach and set(per_attach) == {1}


def _open_proc_files() -> list[str]:
    """What this process's descriptors open under ``/proc``."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/proc/"):
            found.append(target)
    return found


def _programs_schedstat_fds() -> list[str]:
    """This process's descriptors open on another process's ``schedstat``
    (a program's clock; the relays' own threads read theirs, which stay)."""
    ours = {int(t) for t in os.listdir("/proc/self/task")} | {os.getpid()}
    found = []
    for target in _open_proc_files():
        parts = target.split("/")
        if target.endswith("/schedstat") and len(parts) == 4 and parts[2].isdigit() and int(parts[2]) not in ours:
            found.append(target)
    return found


def test_a_programs_clock_lets_go_of_its_files_when_its_run_ends():
    """A clock keeps each of the program's tasks' ``schedstat`` open while the
    program runs; the run's end closes them. Left open, a bench leaked one
    descriptor a judged program, and at the usual limit of 1,024 open files
    a long bench ended in 'Too many open files'."""
    box = make("auto")
    for i in range(12):
        r = box.run_tests_sync(f"def f(x):\n    return x + {i}\n", [f"assert f(1) == {1 + i}"], entry_point="f")
        assert r.all_passed, r.to_dict()
    # A run's children are closed as it returns; wait for that, not a pause.
    deadline = time.monotonic() + 30
    while _programs_schedstat_fds() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _programs_schedstat_fds() == []


def test_a_clock_whose_program_is_gone_closes_its_files():
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        c = clock.ProgramClock(proc.pid)
        assert c.usable and c.first is not None
        mine = f"/proc/{proc.pid}/schedstat"
        assert mine in _programs_schedstat_fds()
    finally:
        proc.communicate(b"")
    assert c.sample() is None
    assert mine not in _programs_schedstat_fds()


def _proc_fds_of(pid: int) -> list[str]:
    return [target for target in _open_proc_files() if target.startswith(f"/proc/{pid}/")]


def test_a_clock_keeps_its_proc_files_open_only_while_their_process_lives():
    """A look reads each process's ``stat`` and ``children`` through a file
    kept open (opening each at every look was two thirds of a look's cost);
    a child that ends and is reaped is counted in its parent's time, and its
    files are closed at the next look."""
    code = (
        "import os, sys, time\n"
        "r, w = os.pipe()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os.read(r, 1); t = time.process_time()\n"
        "    while time.process_time() - t < 0.2: pass\n"
        "    os._exit(0)\n"
        "print(pid, flush=True)\n"
        "sys.stdin.readline(); os.write(w, b'g'); os.waitpid(pid, 0); print('reaped', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        kid = int(proc.stdout.readline())
        c = clock.ProgramClock(proc.pid)
        first = c.sample()
        assert first is not None and first.tasks == 2
        assert f"/proc/{kid}/stat" in _proc_fds_of(kid)
        proc.stdin.write("go\n")  # the child works 0.2 s of CPU time and ends; its parent reaps it
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "reaped"
        after = c.sample()
        assert after is not None and after.tasks == 1
        assert after.cpu - first.cpu >= 0.15  # the reaped child's time, in its parent's
        assert _proc_fds_of(kid) == []
        assert f"/proc/{proc.pid}/stat" in _proc_fds_of(proc.pid)
    finally:
        proc.communicate("end\n")
    assert c.sample() is None
    assert _proc_fds_of(proc.pid) == []
