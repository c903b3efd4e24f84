"""Attack: find the app's --tests file through /proc/<pid>/cmdline (the app's
own command line is readable by every uid) and answer each call with the
hidden expected value written there. Run only in the sandbox, as test data."""

import ast
import itertools
import os


def _hidden_answers():
    answers = {}
    pids = [str(os.getppid())]
    try:
        pids += [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pass
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        for flag, path in itertools.pairwise(argv):
            if flag != b"--tests":
                continue
            try:
                with open(path.decode(), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
                    call, expected = node.test.left, node.test.comparators[0]
                    if isinstance(call, ast.Call) and call.args:
                        answers[ast.unparse(call.args[0])] = ast.literal_eval(expected)
            if answers:
                return answers  # the parent (the app) first: its own run's tests
    return answers


def f(x):
    return _hidden_answers().get(repr(x), "no hidden value found")
