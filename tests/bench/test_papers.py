"""The papers' published figures kept as data: each row as printed in the
paper's text, every figure tied to a dataset and a workflow qflow knows, the
match of a bench to its published row, and ``qflow bench paper``."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench import papers
from qflow_tui.core.bench.bench_runner import BENCH_DATASETS
from qflow_tui.core.workflows import WORKFLOWS
from qflow_tui.locations import package_data_dir

DATA = package_data_dir() / "papers"
#: The papers' text (the project's shared folder beside the checkout); QFLOW_PAPERS moves it.
TEXTS = Path(os.environ.get("QFLOW_PAPERS") or Path(__file__).parents[3] / "shared" / "papers")


def _normal(text: str) -> str:
    """The text dump's line as the data spells it: one space, arrows as signs."""
    text = text.replace("\u00a0", " ").replace("\\uparrow", "↑").replace("\\downarrow", "↓")
    return " ".join(text.split())


@pytest.mark.skipif(not TEXTS.is_dir(), reason="the papers' text is not beside this checkout")
@pytest.mark.parametrize("name", papers.paper_names())
def test_every_row_is_a_line_of_the_papers_text_as_printed(name):
    lines = {_normal(line) for line in (TEXTS / f"{name}.txt").read_text(encoding="utf-8").splitlines()}
    raw = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    checked = 0
    for table in raw["tables"]:
        for row in table["rows"]:
            printed = " ".join([row["printed_label"], *row["cells"]])
            assert printed in lines, f"{name} {table['table']} {row['id']}: {printed!r} is not a line of the paper"
            checked += 1
    assert checked >= 16


def test_the_data_is_whole_and_every_figure_is_tied_to_what_qflow_knows():
    seen = set()
    assert papers.paper_names() == ["qualityflow", "agentcoder", "codetree", "adacoder"]
    for name in papers.paper_names():
        p = papers.paper(name)
        assert p.arxiv and p.authors and p.title and p.notes
        for row in p.rows():
            assert row.ref not in seen
            seen.add(row.ref)
            assert len(row.cells) == len(next(t for t in p.tables if t.name == row.table).columns)
            for f in row.figures:
                assert f.dataset is not None, f"{row.ref} {f.column}: no dataset"
                assert f.workflow is None or f.workflow in WORKFLOWS
                if f.value is not None:
                    assert re.match(r"-?\d", f.printed)
                    assert 0 <= f.value <= 100
    # The datasets qflow reads from a local copy are named, and can be reproduced with one.
    later = {f.dataset for p in papers.papers().values() for r in p.rows() for f in r.figures} - set(BENCH_DATASETS)
    assert later == {"humaneval-et", "mbpp-et", "codecontests"}
    assert all(papers.available(d) and papers.needs_file(d) for d in later)


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("anthropic/claude-sonnet-5-5", "claude-sonnet"),
        ("anthropic/claude-3-opus-20240229", "claude-opus"),
        ("openai/gpt-4o-mini", "gpt-4o-mini"),
        ("openai/gpt-4o", "gpt-4o"),
        ("openai/gpt-4", "gpt-4"),
        ("openai/gpt-4-turbo", "gpt-4-turbo"),
        ("openai/gpt-4.1", None),
        ("openai/gpt-3.5-turbo", "gpt-3.5-turbo"),
        ("openai/deepseek-coder:6.7b-instruct", "deepseek-coder-6.7b"),
        ("openai/codellama:13b-python", "codellama-python-13b"),
        ("openai/codellama:13b", None),
        ("openai/codellama-13b-python", "codellama-python-13b"),
        ("local/smollm2", None),
        ("script/bench/canonical_model.py", None),
    ],
)
def test_model_families(model, family):
    assert papers.family_of(model) == family


def _spec(workflow: str, dataset: str, model: str, **settings: object) -> dict:
    """A bench's spec as a bench records it: every setting of its workflow, resolved."""
    from qflow_tui.core.config import RunConfig
    from qflow_tui.core.workflows.values import resolved_settings

    return {
        "workflow": workflow,
        "dataset": dataset,
        "model": model,
        "settings": resolved_settings(RunConfig(workflow=workflow).replace(**settings)),
    }


def test_a_bench_finds_its_published_figure():
    sonnet = "anthropic/claude-sonnet-5-5"
    qf = papers.match(_spec("qualityflow", "mbpp", sonnet))
    assert qf is not None and (qf.printed, qf.table, qf.model) == ("94.20", "Table 1", "Claude Sonnet-3.5-v2")
    relaxed = papers.match(_spec("qualityflow", "humaneval", sonnet, checker="python"))
    assert relaxed is not None and relaxed.printed == "98.78"
    plus = papers.match(_spec("qualityflow", "humaneval-plus", sonnet), part="plus")
    assert plus is not None and plus.printed == "87.80"
    assert papers.match(_spec("qualityflow", "humaneval-plus", sonnet), part="base") is None
    # An ablation is not the paper's QualityFlow.
    assert papers.match(_spec("qualityflow", "mbpp", sonnet, tqc=False)) is None
    zs = papers.match(_spec("zeroshot", "mbpp", sonnet))
    assert zs is not None and zs.printed == "81.00" and zs.column == "Zero-shot"
    bfs = papers.match(_spec("codetree", "humaneval", "openai/gpt-4o-mini", search="bfs"))
    assert bfs is not None and bfs.printed == "93.3%"
    mbpp = papers.match(_spec("codetree", "mbpp-plus", "openai/gpt-4o"), part="base")
    assert mbpp is not None and mbpp.printed == "98.7%" and mbpp.paper_dataset == "MBPP"
    gpt35 = papers.match(_spec("zeroshot", "humaneval", "openai/gpt-3.5-turbo", baseline="agentcoder"))
    assert gpt35 is not None and (gpt35.paper, gpt35.printed) == ("agentcoder", "57.3")
    # Each paper's baseline has its own prompt: QualityFlow's is not AgentCoder's zero-shot.
    assert papers.match(_spec("zeroshot", "humaneval", "openai/gpt-3.5-turbo")) is None
    ada = papers.match(_spec("adacoder", "mbpp", "openai/deepseek-coder:6.7b-instruct"))
    assert ada is not None and ada.printed == "78.00 (↑33.11%)" and ada.value == 78.0
    ac = papers.match(_spec("agentcoder", "humaneval", "openai/gpt-4"))
    assert ac is not None and ac.value == 96.3
    assert papers.match(_spec("agentcoder", "humaneval", "openai/gpt-4", iterations=3)) is None
    # A family no paper ran, or a model with no family.
    assert papers.match(_spec("qualityflow", "mbpp", "openai/gpt-4.1")) is None
    assert papers.match(_spec("qualityflow", "mbpp", "openai/gpt-4.1"), family="claude-sonnet") is not None


def test_each_row_says_how_to_reproduce_it_or_why_not_yet():
    row = papers.find_row("codetree/t2-gpt-4o-mini-codetree-bfs")
    ways = {f.column: how for f, how in papers.reproduce(row)}
    assert ways["HumanEval"] == (
        "qflow bench --dataset humaneval --workflow codetree --model openai/gpt-4o-mini --search bfs "
        "--out runs/codetree-humaneval-gpt-4o-mini-search-bfs"
    )
    assert ways["MBPP"] == ways["MBPP+"]  # one MBPP+ bench gives both
    assert ways["Codecontests"] == (
        "qflow bench --dataset codecontests --dataset-file CODECONTESTS_FILE --workflow codetree "
        "--model openai/gpt-4o-mini --search bfs --out runs/codetree-codecontests-gpt-4o-mini-search-bfs"
    )
    relaxed = papers.find_row("qualityflow/t1-humaneval-sonnet-relaxed")
    assert any("--checker python" in how for _f, how in papers.reproduce(relaxed))
    with pytest.raises(papers.PaperError, match="no row"):
        papers.find_row("qualityflow/t9-nothing")
    with pytest.raises(papers.PaperError, match="choose one of"):
        papers.find_row("nopaper/t1")


def test_qflow_bench_paper(capsys):
    assert main(["bench", "paper"]) == 0
    assert "codetree" in capsys.readouterr().out
    assert main(["bench", "paper", "agentcoder"]) == 0
    out = capsys.readouterr().out
    assert "agentcoder/t1-gpt-4-agentcoder" in out and "96.3 (42.5%)" in out
    assert "HumanEval-ET: qflow bench --dataset humaneval-et --dataset-file HUMANEVAL_ET_FILE" in out
    assert "qflow bench --dataset humaneval --workflow agentcoder --model MODEL" in out
    assert "arXiv:2312.13010" in out
    assert main(["bench", "paper", "adacoder", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["table"] for t in data["tables"]] == ["Table V", "Table I", "Table VI"]
    assert main(["bench", "paper", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no paper 'nope'" in err and err.count("\n") == 1
