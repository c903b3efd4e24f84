"""Tinyset: a dataset plugin that ships its problems (``shipped=True``): ``qflow
solve --problem tinyset/leap`` and ``qflow bench --dataset tinyset`` need no
``--dataset-file``."""

from __future__ import annotations

from pathlib import Path

from qflow_tui.core.bench.sources import DatasetSource, jsonl_problem, read_records

HERE = Path(__file__).resolve().parent


def read(path: Path | None):
    records = read_records(path if path is not None else HERE / "problems.jsonl")
    return [jsonl_problem(rec, n, "tinyset") for n, rec in enumerate(records)]


def contest_name(pid: str) -> str:
    """A problem's name in a CodeContests-style tester's file: ``tinyset/leap`` -> ``leap``."""
    return pid.split("/", 1)[1]


DATASET = DatasetSource(
    "tinyset",
    "Tinyset: four stdin/stdout problems and a function, each with its reference",
    read,
    shipped=True,
    shown="the sample runs of each statement",
    judged="Tinyset's hidden runs, outputs compared token by token",
    conventions={"completion": "each program judged alone, as Tinyset has no prompt code"},
    column="Tinyset",
    papers=(HERE / "tinypaper.json",),
    # Outputs compared token by token, as CodeContests's checker does. (An example of
    # the declaration: no CodeContests tester has judged this set, function problem included.)
    exports={"codecontests": contest_name},
)
