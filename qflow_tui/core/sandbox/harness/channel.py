# -- part header: for ruff and mypy; the launcher leaves it out --
"""The child's channel to the app, its requests, its errors, its alarms and
limits, the guardian and the way out.

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    _ITIMER_REAL,
    _dumps_json,
    _json_loads,
    _os_exit,
    _os_read,
    _os_write,
    _setitimer,
    os,
    signal,
    sys,
)
from .wire import _REPLY_KINDS
from .codec import (
    _type_name,
)
# -- end of part header --


# ------------------------------------------------------------------------ child
class _Timeout(BaseException):
    """Raised by the soft per-test alarm. BaseException so ``except Exception``
    in the program does not swallow it (the parent's hard kill covers the rest)."""


_LAZY_MODULES = (
    "math",
    "cmath",
    "sys",
    "re",
    "string",
    "collections",
    "itertools",
    "functools",
    "operator",
    "heapq",
    "bisect",
    "fractions",
    "decimal",
    "statistics",
)


class _LazyNames(dict):
    """Locals for evaluating test expressions: common stdlib modules resolve
    even when the setup did not import them (tests in the reference harnesses
    share the program's namespace and its imports)."""

    def __missing__(self, key):
        if key in _LAZY_MODULES:
            mod = __import__(key)  # the harness's own binding, not builtins'
            self[key] = mod
            return mod
        raise KeyError(key)


class _Channel:
    """Messages to the parent: one JSON object per line on a private pipe."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, obj, tail=""):
        """``obj`` as one line, then ``tail`` (a value's JSON text, raw)."""
        data = str.encode(_dumps_json(obj) + "\n" + tail, "ascii")
        view = memoryview(data)
        while view:
            n = _os_write(self.fd, view)
            view = view[n:]


#: Bytes asked of each read of the request pipe: its capacity, so no read
#: returns less for it. A read of 1 MB made Python allocate 1 MB each time,
#: about 0.2 ms of this process's CPU time a call (charged to the program).
_READ = 1 << 16


class _Requests:
    """Lines from the parent (the job, then one request per line)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.scanned = 0
        """Bytes of ``buf`` known to hold no newline: a value of tens of
        megabytes arrives in many reads, and each is searched once."""
        self.waiting = []
        """Requests read while the oracle waited for a call's reply: the
        parent may send its requests at once, so they are kept, in order,
        and never taken for a reply."""

    def next(self):
        if self.waiting:
            return self.waiting.pop(0)
        return self._line()

    def reply(self):
        """The next line that is a reply (``ret``/``exc``); requests met on
        the way wait their turn. None once the parent closed the pipe."""
        while True:
            msg = self._line()
            if type(msg) is dict and msg.get("k") in _REPLY_KINDS:
                return msg
            if msg is None:
                return None
            self.waiting.append(msg)

    def raw(self, n):
        """The next ``n`` bytes as they came (what follows a ``truth``
        answer's line); None once the parent closed the pipe first."""
        while len(self.buf) < n:
            data = _os_read(self.fd, _READ)
            if not data:
                return None
            self.buf += data
        out = bytes(self.buf[:n])
        del self.buf[:n]
        self.scanned = 0
        return out

    def _line(self):
        while True:
            nl = self.buf.find(b"\n", self.scanned)
            if nl >= 0:
                line = bytes(self.buf[:nl])
                del self.buf[: nl + 1]
                self.scanned = 0
                return _json_loads(line.decode("utf-8"))
            self.scanned = len(self.buf)
            data = _os_read(self.fd, _READ)
            if not data:
                return None
            self.buf += data


def _short_error(exc, tb_limit=3):
    """``Type: message`` and the last ``tb_limit`` frames outside the harness."""
    name = _type_name(exc).replace("builtins.", "").replace("__main__.", "")  # the harness runs as __main__
    try:
        msg = str(exc)
    except BaseException:
        msg = "?"
    if len(msg) > 500:
        msg = msg[:500] + "..."
    # The program's error in a call a check made: the message names the
    # function and what it raised; the harness's class adds nothing.
    head = msg if isinstance(exc, CandidateError) else name + (": " + msg if msg else "")
    try:
        import traceback

        # The frames of the code that ran (the program's, a test's, a
        # check's), not the harness's own: where a check called the program,
        # the check's line, however the call was answered.
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != _HARNESS_FILE]
        tb = "".join(traceback.format_list(frames[-tb_limit:])).rstrip()
    except BaseException:
        tb = ""
    if len(tb) > 1500:
        tb = "..." + tb[-1500:]
    return head + ("\n" + tb if tb else "")


_HARNESS_FILE = _short_error.__code__.co_filename


def _alarm_handler(signum, frame):
    raise _Timeout()


_ITIMER_PROF = getattr(signal, "ITIMER_PROF", 2)
#: The program's process (and the oracle) time their work by CPU
#: (``ITIMER_PROF``), with the wall clock only as the safety cap: a program's
#: own time, which the app measures and which decides, is never less than its
#: CPU time, and a busy machine must not stop honest work on the wall clock
#: (see ``clock`` in the app).
_BY_CPU = [False]


#: How many times a limit the wall-clock cap is (the job's ``wall_factor``).
_WALL_FACTOR = [20.0]


def _wall_cap(seconds):
    # clock.wall_cap, the app's: the wall time after which a call is ended anyway.
    return max(_WALL_FACTOR[0] * seconds, seconds + 2.0)


def _arm(seconds):
    if _setitimer is not None and seconds:
        if _BY_CPU[0]:
            _setitimer(_ITIMER_PROF, seconds)
            _setitimer(_ITIMER_REAL, _wall_cap(seconds))
        else:
            _setitimer(_ITIMER_REAL, seconds)


def _disarm():
    if _setitimer is not None:
        _setitimer(_ITIMER_REAL, 0)
        if _BY_CPU[0]:
            _setitimer(_ITIMER_PROF, 0)


def _pause_wall():
    """Stop the wall-clock alarm while this (trusted) process waits for a
    call's answer, and return what was left of it (its CPU alarm does not
    run while it waits)."""
    return _setitimer(_ITIMER_REAL, 0)[0] if _setitimer is not None else 0


def _resume_wall(left):
    if _setitimer is not None and left:
        _setitimer(_ITIMER_REAL, left)


def _set_limits(limits):
    try:
        import resource
    except ImportError:  # not POSIX: nothing to apply
        return
    names = {
        "as": "RLIMIT_AS",
        "cpu": "RLIMIT_CPU",
        "nproc": "RLIMIT_NPROC",
        "fsize": "RLIMIT_FSIZE",
        "core": "RLIMIT_CORE",
        "nofile": "RLIMIT_NOFILE",
    }
    for key, value in limits.items():
        res = getattr(resource, names.get(key, ""), None)
        if res is None or value is None:
            continue
        value = int(value)
        try:
            soft, hard = resource.getrlimit(res)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass


def _die_with_parent():
    """The kernel kills this process when the thread that started it (the
    app's sandbox worker) ends, even by SIGKILL."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except BaseException:
        pass


def _start_guardian(life_fd, whole_uid):
    """Fork a small process that waits for the app's end of ``life_fd`` to
    close (the app ended, however it ended) and then kills this process group,
    or every process of this uid when the uid is this run's own (then a
    process that left the group dies too): the processes a program forked die
    with the app. Forked before the program loads and before the seccomp
    filter, whose ban on signalling other processes protects it."""
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid:
        return pid
    try:
        os.closerange(0, life_fd)
        os.closerange(life_fd + 1, 1 << 16)
        while True:
            try:
                if not _os_read(life_fd, 1):
                    break
            except InterruptedError:
                continue
            except OSError:
                break
        os.kill(-1 if whole_uid else 0, signal.SIGKILL)
    finally:
        _os_exit(0)


#: Landlock (Linux 5.13+) system calls; the same numbers on every architecture.
_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
#: Filesystem rights of the ABI versions: 1 has 13 (execute .. make_sym), 2 adds
#: refer, 3 truncate, 5 ioctl_dev. The rights a rule on a file (not a directory)
#: may carry: execute, write_file, read_file, truncate, ioctl_dev.


class CandidateError(Exception):
    """The program raised during a call a trusted check made (the check may catch it)."""


def _flush_and_exit():
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    _os_exit(0)


def _run(entry):
    """``entry()``; a broken job or harness is said on stderr (the parent
    reports it) and the process ends with status 3."""
    try:
        entry()
    except BaseException:
        try:
            import traceback

            traceback.print_exc()
        finally:
            _os_exit(3)
