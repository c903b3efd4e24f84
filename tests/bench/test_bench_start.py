"""A bench asks for the sandbox's zygote before it reads its dataset, so the
zygote (a process of its own) boots on the other core meanwhile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from qflow_tui.core.bench import bench_runner
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.config import RunConfig
from qflow_tui.core.sandbox import detect_isolation


def _order(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real_load = bench_runner.load_dataset
    monkeypatch.setattr(bench_runner, "start_early", lambda config: seen.append("sandbox"))

    def load(*args: object, **kwargs: object) -> object:
        seen.append("dataset")
        return real_load(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bench_runner, "load_dataset", load)
    return seen


def test_the_sandbox_starts_before_the_dataset_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _order(monkeypatch)
    spec = BenchSpec("humaneval", RunConfig(model="reference", workflow="zeroshot"), ids=["humaneval/0"])
    BenchRunner(spec, tmp_path / "bench").prepare()
    assert seen == ["sandbox", "dataset"]


def test_an_estimate_starts_no_sandbox(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _order(monkeypatch)
    spec = BenchSpec("humaneval", RunConfig(model="reference", workflow="zeroshot"), ids=["humaneval/0"])
    BenchRunner(spec, tmp_path / "bench").prepare(write=False)
    assert seen == ["dataset"]


EARLY = """
import sys, time
from qflow_tui.core.sandbox import zygote
from qflow_tui.core.sandbox.config import SandboxConfig
from qflow_tui.core.sandbox.pool import start_early
start_early(SandboxConfig()).join(60)
until = time.monotonic() + 60  # a condition, with a limit for a machine that never gets there
while time.monotonic() < until:
    if any(z.ready for z in zygote.zygotes()):
        print("ready")
        sys.exit(0)
    time.sleep(0.01)
print("no zygote:", zygote.report())
"""


def test_start_early_boots_the_zygote_with_no_program_asked_for() -> None:
    if detect_isolation().bwrap is None:
        pytest.skip("no bubblewrap at this level: children start fresh, with no zygote")
    # In a process of its own: this one's zygotes are other tests' business.
    done = subprocess.run([sys.executable, "-c", EARLY], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "ready", done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "early"),
    [
        (["bench", "--dataset", "humaneval", "--model", "reference"], True),
        (["bench", "--tui", "--limit", "3"], True),
        (["bench", "report", "out"], False),
        (["bench", "compare", "a", "b"], False),
        (["bench", "--help"], False),
        (["bench", "--estimate", "5"], False),
        (["bench", "--estimate=5"], False),
        (["bench", "--cluster", "127.0.0.1:6379"], False),
        (["solve", "--problem", "mbpp/11"], False),
        ([], False),
    ],
)
def test_a_bench_that_judges_here_starts_its_sandbox_before_its_modules_load(argv: list[str], early: bool) -> None:
    from qflow_tui import cli

    assert cli._judges_here(argv) is early


def test_the_command_line_starts_the_sandbox_only_for_a_bench_that_judges(monkeypatch: pytest.MonkeyPatch) -> None:
    from qflow_tui import cli
    from qflow_tui.core.sandbox import pool

    started: list[object] = []
    monkeypatch.setattr(pool, "start_early", lambda config: started.append(config))
    with pytest.raises(SystemExit):
        cli.main(["bench", "--help"])
    assert started == []
    assert cli.main(["bench", "--dataset", "nosuchset", "--model", "reference"]) != 0
    assert len(started) == 1


def test_every_bench_subcommand_is_known_to_judge_nothing_here() -> None:
    # The command line tells a bench that judges from one that reads a folder
    # before its parser exists: a subcommand added later must be listed too.
    import argparse

    from qflow_tui import cli

    bench = cli.build_parser()._subparsers._group_actions[0].choices["bench"]  # type: ignore[union-attr]
    subs = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subs.choices) <= cli._NOT_JUDGED_HERE
