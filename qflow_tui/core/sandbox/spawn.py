"""Starting one sandbox child's processes: a fork of the zygote where one is
ready for the launch, else a fresh interpreter (under bwrap, a uid or neither)
given its result pipe, its life pipe and the compiled harness."""

from __future__ import annotations

import os
import subprocess

from . import zygote
from .harness.wire import Job
from .launch import Launch, SandboxUnavailable, as_uid, build_argv, child_env, compiled_harness
from .zygote import Forked, ZygoteError


def zygote_fork(launch: Launch, job: Job, cgroup_fds: list[int]) -> tuple[Forked, int] | None:
    """A fork of the zygote (see ``zygote``) and its result pipe, where one is
    ready for ``launch``; None where none is (a fresh child starts then). A
    probe tests the launch itself, so it always starts fresh."""
    maker = zygote.for_launch(launch) if launch.bwrap and job.get("mode") != "probe" else None
    if maker is None:
        return None
    try:
        return maker.spawn(launch.disk_mb << 20, cgroup_fds)
    except ZygoteError:
        return None


def fork_cgroup_fds(cgroup_fds: list[int], forked: bool) -> list[int]:
    """The fd numbers at which the child finds its cgroup's fds: a fork finds
    them from ``zygote.CGROUP_FD`` on (the zygote puts them there)."""
    return list(range(zygote.CGROUP_FD, zygote.CGROUP_FD + len(cgroup_fds))) if forked else cgroup_fds


def start_fresh(launch: Launch, cgroup_fds: list[int], workdir: str | None) -> tuple[subprocess.Popen[bytes], int, int]:
    """A fresh interpreter for ``launch`` in its own session, its std streams
    piped: the process, the read end of its result pipe, and the write end of
    its life pipe (its guardian ends it when the app goes; -1 under bwrap,
    whose pid namespace already ends everything with the app). Raises
    :class:`SandboxUnavailable` in one line if it cannot start; nothing is
    left open then."""
    chan_r, chan_w = os.pipe()
    life_r, life_w = os.pipe()
    guard = launch.bwrap is None
    harness = compiled_harness(launch.interpreter)
    argv, inside = build_argv(launch, chan_w, life_r if guard else -1, workdir, harness)
    passed: tuple[int, ...] = (chan_w, life_r) if guard else (chan_w,)
    if harness is not None:
        passed += (harness[0],)
    passed += tuple(cgroup_fds)
    cmd, kwargs = as_uid(argv, launch.uid)
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=passed,
            cwd=workdir or "/",
            env=child_env(inside),
            start_new_session=True,
            close_fds=True,
            **kwargs,
        )
    except OSError as exc:
        for fd in (chan_r, chan_w, life_r, life_w):
            os.close(fd)
        raise SandboxUnavailable(f"cannot start the sandbox child ({argv[0]}): {exc}") from exc
    os.close(chan_w)
    os.close(life_r)
    return proc, chan_r, life_w
