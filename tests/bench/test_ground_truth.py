"""EvalPlus's ground truth kept between runs, as EvalPlus keeps its own: the
first run of a check keeps each input's expected output and the reference's
time, a later run reads them instead of running the reference again, and they
decide the verdict and the time limits exactly as computed ones would. A
damaged file is computed again; a failing program keeps nothing; where a
program could reach the folder, nothing is kept or read; and a program that
tries to rewrite the files cannot."""

from __future__ import annotations

import asyncio
import marshal
import struct
import zlib
from pathlib import Path

import pytest

from qflow_tui.core.bench.datasets import BenchProblem, load_bench_problem
from qflow_tui.core.bench.evaluate import Evaluator, Verdict
from qflow_tui.core.problem import make_problem
from qflow_tui.core.sandbox import Sandbox, SandboxConfig
from qflow_tui.core.sandbox.truth import MAGIC, TruthFile, folder_size


def plus_problem(reference: str, base: list[list[object]], plus: list[list[object]]) -> BenchProblem:
    return BenchProblem(
        make_problem("a HumanEval+ problem", "", entry_point="f", task_id="humaneval-plus/9002", allow_no_tests=True),
        [],
        reference=reference,
        dataset="humaneval-plus",
        base_inputs=base,
        plus_inputs=plus,
    )


def judge(bp: BenchProblem, program: str, folder: Path | None, **kw: object) -> tuple[Verdict, Evaluator]:
    ev = Evaluator(convention="solution", truth_dir=folder, **kw)  # type: ignore[arg-type]
    return asyncio.run(ev.evaluate(bp, program)), ev


def kept(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.gt"))


def records(path: Path) -> tuple[bytes, list[tuple[object, float]]]:
    """A file's header line and its (expected, seconds) records."""
    data = path.read_bytes()
    head, _, body = data.partition(b"\n")
    out = []
    at = 0
    while at < len(body):
        size, crc = struct.unpack(">II", body[at : at + 8])
        rec = body[at + 8 : at + 8 + size]
        assert zlib.crc32(rec) == crc
        out.append(marshal.loads(rec))
        at += 8 + size
    return head + b"\n", out


def rewrite(path: Path, recs: list[tuple[object, float]]) -> None:
    head, _ = records(path)
    body = b"".join(struct.pack(">II", len(d), zlib.crc32(d)) + d for d in (marshal.dumps(r) for r in recs))
    path.write_bytes(head + body)


SQUARE = "def f(x):\n    return x * x\n"


def test_the_first_run_keeps_the_ground_truth_and_the_next_reads_it(tmp_path):
    bp = load_bench_problem("humaneval-plus/0")
    first, ev = judge(bp, bp.reference, tmp_path)
    # Kept first, by a pass of its own, then read by the check.
    assert first.passed and (ev.truth_kept, ev.truth_read) == (2, 2), first.detail
    files = kept(tmp_path)
    assert len(files) == 2
    # One record per input, in order, the expected output as the reference gives it.
    got = sorted(len(records(p)[1]) for p in files)
    assert got == sorted([len(bp.base_inputs or []), len(bp.plus_inputs or [])])
    assert not list(tmp_path.glob(".tmp-*"))
    again, ev2 = judge(bp, bp.reference, tmp_path)
    assert again.passed and (ev2.truth_kept, ev2.truth_read) == (0, 2), again.detail
    assert folder_size(tmp_path) == (2, sum(p.stat().st_size for p in files))


def test_the_kept_expected_outputs_decide_the_verdict(tmp_path):
    bp = plus_problem(SQUARE, [[2], [3]], [[4]])
    assert judge(bp, SQUARE, tmp_path)[0].passed
    base = next(p for p in kept(tmp_path) if len(records(p)[1]) == 2)
    _, recs = records(base)
    assert [r[0] for r in recs] == [4, 9]
    rewrite(base, [(5, recs[0][1]), recs[1]])
    verdict, ev = judge(bp, SQUARE, tmp_path)
    # Read, not computed again: the file says 5, so the right program fails.
    assert (verdict.passed, verdict.status, ev.truth_read) == (False, "fail", 1), verdict.detail
    assert "input 0" in verdict.detail and "expected 5" in verdict.detail


SLOW = "import time\n\ndef f(x):\n    time.sleep(1.4)\n    return x * x\n"


def test_the_kept_times_set_each_inputs_limit(tmp_path):
    # EvalPlus: an input's limit is max(1 s, 4 x the reference's time). The
    # reference here is instant, so a program that takes 1.4 s times out...
    bp = plus_problem(SQUARE, [[2]], [[3]])
    late, _ = judge(bp, SLOW, tmp_path)
    assert (late.passed, late.status) == (False, "timeout"), late.detail
    # ... until the kept time says the reference took 0.5 s (a 2 s limit).
    assert judge(bp, SQUARE, tmp_path)[0].passed
    for path in kept(tmp_path):
        _, recs = records(path)
        rewrite(path, [(r[0], 0.5) for r in recs])
    verdict, ev = judge(bp, SLOW, tmp_path)
    assert verdict.passed and ev.truth_read == 2, verdict.detail


def test_a_damaged_file_is_computed_again_and_written_anew(tmp_path):
    bp = plus_problem(SQUARE, [[2], [3]], [[4], [5]])
    assert judge(bp, SQUARE, tmp_path)[0].passed
    for path in kept(tmp_path):
        data = bytearray(path.read_bytes())
        data[-1] ^= 0xFF  # the last record no longer matches its CRC
        path.write_bytes(bytes(data))
    verdict, ev = judge(bp, SQUARE, tmp_path)
    assert verdict.passed and ev.truth_read == 0, verdict.detail
    assert kept(tmp_path) == []  # gone, so that the next run writes it again
    assert judge(bp, SQUARE, tmp_path)[0].passed
    assert len(kept(tmp_path)) == 2 and judge(bp, SQUARE, tmp_path)[1].truth_read == 2


def test_the_truth_is_kept_before_any_program_runs(tmp_path):
    # As EvalPlus: the ground truth is computed whole in a pass of its own,
    # so a program failing on the first input still leaves it kept whole,
    # and no program of the check runs while the reference's times are taken.
    bp = plus_problem(SQUARE, [[i] for i in range(40)], [[5]])
    verdict, ev = judge(bp, "def f(x):\n    return 4\n", tmp_path)
    assert (verdict.passed, verdict.base, ev.truth_kept, ev.truth_read) == (False, False, 1, 1), verdict.detail
    assert "input 0" in verdict.detail
    [path] = kept(tmp_path)
    assert [r[0] for r in records(path)[1]] == [i * i for i in range(40)]
    assert not list(tmp_path.glob(".tmp-*"))


def test_a_reference_that_raises_keeps_nothing_and_judges_as_before(tmp_path):
    # The pass fails: nothing is kept, and the check computes as without a cache.
    raising = "def f(x):\n    if x == 3:\n        raise ValueError('no')\n    return x * x\n"
    bp = plus_problem(raising, [[2], [3]], [[4]])
    with_cache, ev = judge(bp, SQUARE, tmp_path)
    without, _ = judge(bp, SQUARE, None)
    assert (ev.truth_kept, ev.truth_read) == (0, 0)
    assert list(tmp_path.iterdir()) == []
    assert (with_cache.passed, with_cache.status, with_cache.detail) == (without.passed, without.status, without.detail)


def test_a_file_of_another_check_is_not_read(tmp_path):
    bp = plus_problem(SQUARE, [[2]], [[3]])
    assert judge(bp, SQUARE, tmp_path)[0].passed
    # The same inputs with another reference: another key, another file.
    other = plus_problem("def f(x):\n    return x + x\n", [[2]], [[3]])
    verdict, ev = judge(other, "def f(x):\n    return x + x\n", tmp_path)
    assert verdict.passed and (ev.truth_read, ev.truth_kept) == (2, 2)
    # A file renamed to another check's key says whose it is, and is not used.
    a, b = kept(tmp_path)[:2]
    b.write_bytes(a.read_bytes())
    tf = TruthFile(b, b.stem, 1)
    assert tf.read(0, 1, 1 << 20) == [] and tf.bad == "the file names another check"


def test_nothing_is_kept_where_a_program_could_reach_the_folder(tmp_path):
    # At rlimits only a program runs as the user and could write the files,
    # and so its own verdict on a later run: the check computes every time.
    sandbox = Sandbox(SandboxConfig(isolation="rlimits", timeout=22.0, memory_mb=4096))
    bp = plus_problem(SQUARE, [[2]], [[3]])
    verdict, ev = judge(bp, SQUARE, tmp_path, sandbox=sandbox)
    assert verdict.passed and (ev.truth_kept, ev.truth_read) == (0, 0), verdict.detail
    assert list(tmp_path.iterdir()) == []


def test_a_program_cannot_rewrite_the_kept_truth(tmp_path):
    bp = plus_problem(SQUARE, [[2], [3]], [[4]])
    assert judge(bp, SQUARE, tmp_path)[0].passed
    before = {p: p.read_bytes() for p in kept(tmp_path)}
    # It tries to make every expected output 0, then answers 0 to everything.
    forge = (
        "import marshal, struct, zlib\n"
        f"_FILES = {[str(p) for p in before]!r}\n"
        "_HEADS = {}\n"
        f"_HEADS.update({{p: h for p, h in {[(str(p), records(p)[0]) for p in before]!r}}})\n"
        "def _forge():\n"
        "    for p in _FILES:\n"
        "        try:\n"
        "            d = marshal.dumps((0, 0.0))\n"
        "            body = (struct.pack('>II', len(d), zlib.crc32(d)) + d) * 2\n"
        "            with open(p, 'wb') as fh:\n"
        "                fh.write(_HEADS[p] + body)\n"
        "        except OSError:\n"
        "            pass\n"
        "_forge()\n"
        "def f(x):\n"
        "    _forge()\n"
        "    return 0\n"
    )
    verdict, _ = judge(bp, forge, tmp_path)
    assert (verdict.passed, verdict.status) == (False, "fail"), verdict.detail
    assert {p: p.read_bytes() for p in kept(tmp_path)} == before
    assert all(data.startswith(MAGIC) for data in before.values())


def test_truth_file_reads_in_order_and_writes_only_whole(tmp_path):
    path = tmp_path / "k.gt"
    tf = TruthFile(path, "k", 3)
    assert tf.mode == "write"
    recs = [marshal.dumps((i, 0.1)) for i in range(3)]
    import base64

    tf.keep(0, [base64.b64encode(r).decode() for r in recs[:2]])
    tf.finish()
    assert not path.exists() and list(tmp_path.iterdir()) == []  # two of three: nothing
    tf = TruthFile(path, "k", 3)
    tf.keep(0, [base64.b64encode(r).decode() for r in recs[:1]])
    tf.keep(2, [base64.b64encode(r).decode() for r in recs[2:]])  # a gap drops the file
    tf.finish()
    assert not path.exists()
    tf = TruthFile(path, "k", 3)
    tf.keep(0, [base64.b64encode(r).decode() for r in recs])
    tf.finish()
    assert tf.kept and path.read_bytes().startswith(MAGIC + b"k\n")
    rd = TruthFile(path, "k", 3)
    assert rd.mode == "read"
    assert rd.read(1, 2, 1 << 20) == []  # out of order: nothing
    rd = TruthFile(path, "k", 3)
    assert rd.read(0, 2, 1 << 20) == recs[:2]
    assert rd.read(2, 5, 1 << 20) == recs[2:]
    assert rd.read(3, 5, 1 << 20) == []
    rd.finish()
    # The window ends after the record that takes it past the budget, as the check's does.
    rd = TruthFile(path, "k", 3)
    assert rd.read(0, 3, 1) == recs[:1]


#: References whose answers JSON could not carry as they are.
VALUES = {
    "nan": "float('nan')",
    "nested tuple": "(1, [2.5, 'x'])",
    "set": "{3, 4}",
    "dict": "{'a': (None, True), 1: b'z'}",
    "negative zero": "-0.0",
    "big int": "10 ** 5000",
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_kept_values_come_back_as_the_reference_gave_them(tmp_path, name):
    # marshal keeps tuples, sets, bytes, NaN, -0.0 and big ints exactly: the
    # check compares with the very value the reference returned.
    reference = f"def f(x):\n    return {VALUES[name]}\n"
    bp = plus_problem(reference, [[1]], [[2]])
    first, ev1 = judge(bp, reference, tmp_path)
    second, ev2 = judge(bp, reference, tmp_path)
    # A failing base part is kept too; the plus part is then not run.
    assert (ev1.truth_kept, ev1.truth_read, ev2.truth_read) == ((2, 2, 2) if first.passed else (1, 1, 1))
    assert (first.passed, first.status, first.detail) == (second.passed, second.status, second.detail)
    assert first.passed == (name != "nan")  # NaN equals nothing, not even itself


CANONICAL = Path(__file__).parents[2] / "bench" / "canonical_model.py"


@pytest.mark.parametrize("setting", ["on", "off"])
def test_qflow_bench_keeps_it_in_the_cache_folder_unless_told_not_to(tmp_path, monkeypatch, capsys, setting):
    from qflow_tui.cli import main
    from qflow_tui.locations import ground_truth_dir

    if setting == "off":
        monkeypatch.setenv("QFLOW_TRUTH_CACHE", "0")
    argv = ["bench", "--dataset", "humaneval-plus", "--ids", "2", "--model", f"script/{CANONICAL}"]
    argv += ["--workflow", "zeroshot", "--out", str(tmp_path / "b1")]
    assert main(argv) == 0
    assert "final pass@1 base 100.00% (1/1), 95% CI [20.7, 100.0], plus 100.00% (1/1)" in capsys.readouterr().out
    folder = ground_truth_dir()
    assert "qflow-home" in str(folder)  # the test's cache folder (conftest), never the user's
    assert folder_size(folder)[0] == (2 if setting == "on" else 0)


def test_an_unfinished_file_left_by_an_ended_app_is_swept(tmp_path):
    import base64
    import os
    import time

    old = tmp_path / ".tmp-left.gt"
    fresh = tmp_path / ".tmp-writing.gt"
    old.write_bytes(b"QFGT1 x\n")
    fresh.write_bytes(b"QFGT1 y\n")
    hour_ago = time.time() - 2 * 3600
    os.utime(old, (hour_ago, hour_ago))
    tf = TruthFile(tmp_path / "k.gt", "k", 1)
    tf.keep(0, [base64.b64encode(marshal.dumps((1, 0.1))).decode()])
    tf.finish()
    # The stale one is gone; another app's file being written now is not.
    assert not old.exists() and fresh.exists() and tf.kept
