"""Listing what a child started, before it is killed: without a scan of all
of /proc where the answer is known without one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from qflow_tui.core.sandbox import procfs


def test_a_process_that_is_gone_has_no_descendants_and_costs_no_scan(monkeypatch):
    # pid_max is one past the largest pid the kernel hands out: never a process.
    gone = int(Path("/proc/sys/kernel/pid_max").read_text())
    monkeypatch.setattr(procfs, "_proc_stats", lambda: pytest.fail("scanned every process of the machine"))
    assert procfs.descendants(gone) == set()


def test_a_live_process_lists_the_child_it_started():
    grandchild = "import sys; print('up', flush=True); sys.stdin.read()"
    parent = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {grandchild!r}])"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert parent.stdout is not None and parent.stdout.readline() == b"up\n"  # the grandchild runs
        assert len(procfs.descendants(parent.pid)) == 1
    finally:
        assert parent.stdin is not None
        parent.stdin.close()  # both end at the end of their input
        parent.wait()
