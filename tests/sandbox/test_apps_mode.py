"""APPS mode of the stdin/stdout judge: programs run as APPS's
``testing_util`` runs them (its imports first, the program wrapped in a
function), with a fresh process per test and ``__name__ == "__main__"``
kept; errors name the program's own lines. Programs written for qflow-tui,
each standing for a class seen among APPS's accepted human solutions."""

from __future__ import annotations

import re
from dataclasses import replace

from qflow_tui.core.iojudge import APPS_MODULES, APPS_PRELUDE, apps_prelude, judge_calls_sync, judge_io_sync
from qflow_tui.core.sandbox import Sandbox

ADD = [("1 2\n", "3\n"), ("10 -4\n", "6\n")]

#: Pass under APPS's wrapping, and are a SyntaxError as a module.
WRAPPED_ONLY = {
    "top-level return": ("a, b = map(int, input().split())\nif a + b == 3:\n    print(3)\n    return\nprint(a + b)\n"),
    "nonlocal at the top": (
        "total = 0\ndef add(x):\n    nonlocal total\n    total += x\nfor v in input().split():\n"
        "    add(int(v))\nprint(total)\n"
    ),
}


def test_programs_only_apps_wrapping_compiles_pass_in_apps_mode(sb) -> None:
    for name, program in WRAPPED_ONLY.items():
        plain = judge_io_sync(sb, program, ADD, "apps", parallel=1)
        assert "SyntaxError" in (plain.load_error or ""), (name, plain.to_dict())
        apps = judge_io_sync(sb, program, ADD, "apps", parallel=1, apps=True)
        assert apps.passed == 2, (name, apps.to_dict())


def test_apps_mode_keeps_main_guard_imports_and_prelude_names(sb) -> None:
    # APPS runs the program as module tmp_sol, so this prints nothing there;
    # qflow keeps __main__ (the program is right), and says so in the docs.
    guarded = (
        "import sys\ndef main():\n    print(sum(map(int, input().split())))\nif __name__ == '__main__':\n    main()\n"
    )
    assert judge_io_sync(sb, guarded, ADD, "apps", parallel=1, apps=True).passed == 2
    # The prelude's names are there without an import, as in APPS.
    prelude_names = "print(sum(map(int, input().split())) + floor(0.5) + len(deque()))\n"
    assert judge_io_sync(sb, prelude_names, ADD, "apps", parallel=1, apps=True).passed == 2
    # A name assigned at the top is a local of ``code``: ``global`` then finds
    # nothing, as in APPS (a NameError there too).
    with_global = "n = 0\ndef bump():\n    global n\n    n += 1\nbump()\nprint(n)\n"
    r = judge_io_sync(sb, with_global, [("", "1\n")], "apps", parallel=1, apps=True)
    assert r.results[0].status == "error" and "NameError" in (r.results[0].error or ""), r.to_dict()
    for nothing in ("import sys\n", "import sys\n# a comment\n\n", "import sys"):
        only_imports = judge_io_sync(sb, nothing, ADD[:1], "apps", parallel=1, apps=True)
        assert only_imports.results[0].status == "error", nothing
        assert "finds no code to run" in (only_imports.results[0].error or ""), only_imports.to_dict()


def _lines(text: str | None) -> list[int]:
    """The line numbers an error gives in the program (the runner's own frames aside)."""
    return [int(n) for n in re.findall(r'(?:"program\.py", |program\.py, )line (\d+)', text or "")]


def test_apps_errors_name_the_programs_own_lines(sb) -> None:
    # Line 7 raises; APPS mode puts imports and a wrapper in front of it.
    program = "import sys\n\nx = 1\n\ny = 2\n\nraise ValueError('at seven')\n"
    r = judge_io_sync(sb, program, ADD[:1], "apps", parallel=1, apps=True)
    assert r.results[0].status == "error" and "at seven" in (r.results[0].error or "")
    assert _lines(r.results[0].error) == [7], r.results[0].error
    syntax = judge_io_sync(sb, "import sys\nx = 1\nprint(x\n", ADD[:1], "apps", parallel=1, apps=True)
    assert "SyntaxError" in (syntax.load_error or "") and _lines(syntax.load_error) == [3], syntax.load_error
    call = judge_calls_sync(sb, "def f(x):\n\n\n    raise KeyError('at four')\n", "f", [([1], 1)], prelude=APPS_PRELUDE)
    assert "at four" in (call.results[0].error or "") and _lines(call.results[0].error) == [4], call.to_dict()


def test_apps_prelude_loads_numpy_only_for_a_program_that_names_it() -> None:
    assert apps_prelude("x = np.zeros(3)\n") == (APPS_PRELUDE, APPS_MODULES)
    assert apps_prelude("# numpy would do\nprint(1)\n") == (APPS_PRELUDE, APPS_MODULES)
    prelude, modules = apps_prelude("print(input())\n")
    assert "numpy" not in modules and prelude != APPS_PRELUDE
    # Only the numpy import differs: every other name is bound as APPS binds it.
    assert prelude.startswith(APPS_PRELUDE.split("try:")[0])
    assert prelude.endswith(APPS_PRELUDE.split("pass\n", 1)[1])


def test_numpy_is_there_for_a_program_that_uses_it_however_it_reaches_it(sb) -> None:
    # A program that never names numpy runs without it loaded (its tests are
    # forked from a zygote without it: cheaper), yet finds the prelude's np.
    # APPS's own limit a test (4 s), not the helpers' 0.5 s: at a level without
    # a zygote numpy is imported in the test's process, which on a busy machine
    # took longer than 0.5 s (CI, seccomp+landlock+uid); this test is about
    # where np comes from, not about time.
    sb = Sandbox(replace(sb.config, timeout=4.0))
    without = "import sys\nprint('nu' + 'mpy' in sys.modules)\n"
    r = judge_io_sync(sb, without, [("", "False\n")], "exact", parallel=1, apps=True)
    assert r.passed == 1, r.to_dict()
    named = "import sys\nprint(int(np.array([1, 2]).sum()), type(np).__name__, 'nu' + 'mpy' in sys.modules)\n"
    r = judge_io_sync(sb, named, [("", "3 module True\n")], "exact", parallel=1, apps=True)
    assert r.passed == 1, r.to_dict()
    # Reached without its name: loaded at its first use, then the module itself.
    hidden = "g = globals()\nprint(int(g['n' + 'p'].array([1, 2]).sum()), type(g['n' + 'p']).__name__)\n"
    r = judge_io_sync(sb, hidden, [("", "3 module\n")], "exact", parallel=1, apps=True)
    assert r.passed == 1, r.to_dict()
    # APPS's call-based problems too.
    call = judge_calls_sync(
        sb,
        "import sys\ndef f(x):\n    return [x in sys.modules, int(globals()['n' + 'p'].sum([2, 3]))]\n",
        "f",
        [(["nu" + "mpy"], [[False, 5]])],
        prelude=APPS_PRELUDE,
    )
    assert call.passed == 1, call.to_dict()


def test_apps_mode_runs_each_test_in_a_process_of_its_own(sb) -> None:
    # Test 1 changes a preloaded module, the prelude's names and its own
    # state, then crashes; test 2 sees none of it and passes.
    program = (
        "import heapq\nimport sys\nn = int(input())\n"
        "if n == 1:\n    heapq.marker = 1\n    math.pi = 3\n    sys.exit(2)\n"
        "print(hasattr(heapq, 'marker'), math.pi > 3, floor(2.5))\n"
    )
    r = judge_io_sync(sb, program, [("1\n", "x\n"), ("2\n", "False True 2\n")], "exact", parallel=1, apps=True)
    assert [o.status for o in r.results] == ["error", "pass"], r.to_dict()
    assert "status 2" in (r.results[0].error or "")


def test_apps_errors_name_the_programs_own_lines_in_functions_and_late_imports(sb) -> None:
    # Functions defined in the program (nested in APPS's wrapper), a class's
    # method, a statement over several lines and an import after the first
    # line of code: each error names the line of the program it is on.
    program = (
        "import sys\nfrom math import floor\n\n"  # 1-3
        "class A:\n    def go(self, x):\n        return 1 // x\n"  # 4-6
        "def f(n):\n    def g():\n        return A().go(\n            n)\n    return g()\n"  # 7-11
        "k = int(input())\n"  # 12
        "if k == 1:\n    import qflow_no_such_module\n"  # 13-14
        "print(f(k - 2))\n"  # 15
    )
    r = judge_io_sync(sb, program, [("1\n", "x\n"), ("2\n", "x\n")], "exact", parallel=1, apps=True)
    late, nested = r.results
    assert late.status == "error" and "qflow_no_such_module" in (late.error or ""), r.to_dict()
    assert _lines(late.error) == [14], late.error
    assert nested.status == "error" and "ZeroDivisionError" in (nested.error or ""), r.to_dict()
    assert _lines(nested.error) == [11, 9, 6], nested.error
