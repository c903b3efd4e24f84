"""Attack: outlive the run. A child leaves the process group (where it can)
and keeps forking, each parent exiting at once, so its pid changes all the
time and a sweep by pid always aims at a process that is already gone; after
1000 hops it execs a shell that hops the same way (``sh -c ... & exit``), so it
also loses the harness's command line (the shell's hops carry ``marker`` in
theirs). f(marker) starts it and spins. Run only in the sandbox, as test
data."""

import os


def _hop(marker):
    try:
        os.setsid()
    except OSError:
        pass
    n = 0
    while True:
        n += 1
        try:
            pid = os.fork()
        except OSError:
            continue
        if pid:
            os._exit(0)
        if n == 1000:
            script = 'sh -c "$0" "$0" & exit # ' + marker
            try:
                os.execv("/bin/sh", ["sh", "-c", script, script])
            except OSError:
                pass


def f(marker):
    if os.fork() == 0:
        _hop(marker)
    while True:
        pass
