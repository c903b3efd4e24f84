"""No more runs enter the sandbox's threads than its slots can hold at once
(a program's child and an oracle's each): the others wait in the executor's
queue, not on a thread of their own woken at every slot freed. Checked in a
fresh interpreter: the executor is made once per process, by the first
sandbox that runs something."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import asyncio, threading, time
    from qflow_tui.core.sandbox import Sandbox, SandboxConfig, SandboxReport
    from qflow_tui.core.sandbox import sandbox as module
    from qflow_tui.core.sandbox.pool import max_runs

    box = Sandbox(SandboxConfig())
    lock = threading.Lock()
    inside = 0
    most = 0
    release = threading.Event()

    def held(*args, cancel=None, **kwargs):
        global inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        release.wait(60)
        with lock:
            inside -= 1
        return SandboxReport(isolation="fake")

    box.run_check_sync = held
    runs = 3 * max_runs(box.details)

    def watch():
        # Every run was handed to the executor, and every thread it made has
        # taken one: the rest wait in its queue, and nothing more can enter.
        until = time.monotonic() + 60
        while time.monotonic() < until:
            executor = module._executor
            with lock:
                if executor is not None and inside == len(executor._threads) and inside + executor._work_queue.qsize() == runs:
                    break
            time.sleep(0.001)
        release.set()

    async def main():
        threading.Thread(target=watch, daemon=True).start()
        await asyncio.gather(*(box.run_check("p", "c", "f") for _ in range(runs)))

    asyncio.run(main())
    print(most, max_runs(box.details), runs)
    """
)


def test_no_more_runs_enter_the_sandboxs_threads_than_can_hold_their_children(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=180, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    most, at_once, runs = map(int, done.stdout.split())
    assert runs > at_once
    assert most == at_once
