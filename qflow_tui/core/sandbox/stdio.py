"""Run a whole program on a test's stdin, in the sandbox's program process.

The program process loads :data:`RUNNER` (stdlib only; it runs on the
untrusted side, with the program) and the program's source, compiled but not
run. Each test is then one call, ``__qf_stdio__(input)``: the program runs as
``__main__`` in a fresh namespace, with file descriptors 0 and 1 on files of
the work dir holding the test's input and taking its output (so ``input()``,
``sys.stdin.read()``, ``open(0)``, ``print``, ``sys.stdout.buffer.write`` and
``os.write(1, ...)`` all work as under a judge), and the call returns what it
printed, as text, with whether it read its input. The expected output never
reaches that process: the app compares (``core/iojudge.py``).

Every isolation level, limit and the warm pool apply as to any program: this
is an ordinary program process answering ordinary calls. What a judge's own
run would differ in: the interpreter is already started (its start-up is not
charged). The judge sends each test to a fresh process (``iojudge``), so
nothing carries over from one test to the next.
"""

from __future__ import annotations

#: Source run in the program process before the program (compiled there).
RUNNER = r"""
def __qf_stdio_setup__():
    import builtins as _b
    import os as _os
    import sys as _sys
    import threading as _th

    counter = [0]

    def run(data, code, prelude=None):
        counter[0] += 1
        tag = "%d.%d" % (_os.getpid(), counter[0])
        in_name, out_name = ".qf_in." + tag, ".qf_out." + tag
        raw = data.encode("utf-8")
        in_fd = _os.open(in_name, _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC, 0o600)
        out_fd = _os.open(out_name, _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC, 0o600)
        _os.unlink(in_name)
        _os.unlink(out_name)
        view = memoryview(raw)
        while view:
            view = view[_os.write(in_fd, view):]
        _os.lseek(in_fd, 0, 0)
        saved_fds = (_os.dup(0), _os.dup(1))
        saved_streams = (_sys.stdin, _sys.stdout, _sys.argv)
        _sys.stdout.flush()
        _os.dup2(in_fd, 0)
        _os.dup2(out_fd, 1)
        before = set(_th.enumerate())
        status = None
        try:
            _sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
            _sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
            _sys.argv = ["program.py"]
            g = {"__name__": "__main__", "__builtins__": _b, "__file__": "program.py"}
            try:
                if prelude is not None:
                    exec(prelude, g)
                exec(code, g)
                if prelude is not None:
                    # APPS's harness calls the function it wrapped the program in.
                    main = g.get("code")
                    if not callable(main):
                        raise RuntimeError("APPS's harness finds no code to run: the program has only imports")
                    main()
                for t in list(_th.enumerate()):
                    if t not in before and not t.daemon:
                        t.join()
            except SystemExit as exc:
                status = exc.code
            except EOFError as exc:
                raise EOFError(
                    "the program read past the end of its input (%s)" % (exc,)
                ).with_traceback(exc.__traceback__) from None
            finally:
                try:
                    _sys.stdout.flush()
                except BaseException:
                    pass
        finally:
            _sys.stdin, _sys.stdout, _sys.argv = saved_streams
            _os.dup2(saved_fds[0], 0)
            _os.dup2(saved_fds[1], 1)
            _os.close(saved_fds[0])
            _os.close(saved_fds[1])
        read = _os.lseek(in_fd, 0, 1)
        _os.close(in_fd)
        size = _os.lseek(out_fd, 0, 2)
        _os.lseek(out_fd, 0, 0)
        chunks = []
        while True:
            chunk = _os.read(out_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        _os.close(out_fd)
        out = b"".join(chunks)[:size].decode("utf-8", "replace")
        if status is not None and status != 0:
            if type(status) is int:
                raise RuntimeError("the program exited with status %d" % status)
            raise RuntimeError("the program exited with an error: %s" % (str(status)[:200],))
        return [out, read > 0 or not raw]

    return run


__qf_stdio_run__ = __qf_stdio_setup__()
del __qf_stdio_setup__


def __qf_stdio__(data):
    return __qf_stdio_run__(data, __qf_stdio_code__, __qf_stdio_prelude__)
"""

#: Loaded after :data:`RUNNER` for APPS's standard-input problems: the program
#: wrapped as APPS's ``testing_util.run_test`` wraps it (a replay written for
#: qflow, not its code), compiled so that errors name the program's own lines.
APPS_RUNNER = r"""
def __qf_apps_compile__(text):
    # testing_util: every line that does not start with "from " or "import "
    # is indented by a tab into a function ``code``, which starts (after two
    # assignments) before the first such line; imports after it are indented
    # too. So a top-level ``return`` or ``nonlocal`` compiles, and a name the
    # program assigns at its top level is a local of ``code``.
    out = []
    first = None
    for n, line in enumerate(text.split("\n")):
        if line.startswith("from ") or line.startswith("import "):
            out.append(("\t" if first is not None else "") + line + "\n")
            continue
        if first is None:
            first = n
            out.append("stdin = sys.stdin\nstdout = sys.stdout\ndef code():\n")
        out.append("\t" + line + "\n")
    wrapped = "".join(out)

    def own(line):
        # The three lines put in before the program's line ``first`` (0-based).
        if line is None or first is None or line <= first:
            return line
        return max(first + 1, line - 3)

    try:
        module = compile(wrapped, "program.py", "exec")
    except SyntaxError as exc:
        if first is not None and str(exc.msg).endswith("after function definition on line %d" % (first + 3)):
            # The wrapper's body is empty: nothing but imports, blanks and comments.
            raise SyntaxError(
                "APPS's harness finds no code to run: the program has only imports and comments"
            ) from None
        lines = text.split("\n")
        at = own(exc.lineno)
        shown = lines[at - 1] if at is not None and 0 < at <= len(lines) else exc.text
        raise SyntaxError(exc.msg, ("program.py", at, exc.offset, shown)) from None
    # Every line of ``code`` (and of what it defines) is the program's own
    # three lines on: a code object's lines count from its first line, so
    # moving that line back three moves them all (the imports above
    # ``code`` keep theirs). No parse tree is built, the compile is all.
    kind = type(module)

    def back(co):
        consts = tuple(back(c) if type(c) is kind else c for c in co.co_consts)
        return co.replace(co_firstlineno=co.co_firstlineno - 3, co_consts=consts)

    return module.replace(co_consts=tuple(back(c) if type(c) is kind else c for c in module.co_consts))
"""


def program_source(program: str, apps_prelude: str | None = None) -> str:
    """What the program process loads for a stdin/stdout program: the runner,
    and the program compiled (a syntax error is then the load error).

    ``apps_prelude``: judge as APPS's harness runs a program: these imports
    run first in the program's namespace, then the program wrapped in
    ``def code():`` as APPS wraps it, then ``code()``. The program still runs
    as ``__main__`` (APPS's runs as ``tmp_sol``, so an ``if __name__ ==
    "__main__":`` block never runs there) and in a fresh process per test."""
    if apps_prelude is None:
        return (
            RUNNER
            + "\n__qf_stdio_prelude__ = None"
            + f"\n__qf_stdio_code__ = compile({program!r}, 'program.py', 'exec')\n"
        )
    return (
        RUNNER
        + APPS_RUNNER
        + f"\n__qf_stdio_prelude__ = compile({apps_prelude!r}, '<apps prelude>', 'exec')"
        + f"\n__qf_stdio_code__ = __qf_apps_compile__({program!r})\n"
    )


def call_source(stdin: str) -> str:
    """The call that runs the program on ``stdin``."""
    return f"__qf_stdio__({stdin!r})"
