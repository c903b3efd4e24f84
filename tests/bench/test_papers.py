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


def _caption_line(lines: list[str], table: str) -> int:
    """Where the paper prints the table's caption (``Table 7:``, ``TABLE XI:``)."""
    found = [i for i, line in enumerate(lines) if line.lower().startswith(table.lower() + ":")]
    assert found, f"no caption {table!r} in the paper's text"
    return found[0]


#: How far from its caption a table's rows may be printed (captions come above or below).
NEAR = 45


@pytest.mark.skipif(not TEXTS.is_dir(), reason="the papers' text is not beside this checkout")
@pytest.mark.parametrize("name", papers.paper_names())
def test_every_row_is_a_line_of_the_papers_text_as_printed(name):
    """Each row is a line of the table as printed, the rows in the printed order
    near the table's caption (under its heading, CodeTree's BFS or DFS); a row
    the text gives in prose (Figure 2's, a plot) quotes the sentences that hold
    each of its figures."""
    lines = [_normal(line) for line in (TEXTS / f"{name}.txt").read_text(encoding="utf-8").splitlines()]
    text = " ".join(lines)
    raw = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    checked = 0
    for table in raw["tables"]:
        where = f"{name} {table['table']}"
        caption = _caption_line(lines, table["table"])
        after = caption - NEAR
        headings = table.get("headings", [])
        for row in table["rows"]:
            if "quote" in row:
                assert all(_normal(q) in text for q in row["quote"]), f"{where} {row['id']}: a quote is not in the text"
                for cell in row["cells"]:
                    assert cell == "-" or any(cell in q for q in row["quote"]), f"{where} {row['id']}: {cell} unquoted"
                checked += 1
                continue
            printed = " ".join([row["printed_label"], *row["cells"]])
            at = next((i for i in range(after, len(lines)) if lines[i] == printed), None)
            assert at is not None, f"{where} {row['id']}: {printed!r} is not a line of the paper after the row above"
            assert abs(at - caption) <= NEAR, f"{where} {row['id']}: printed {at - caption} lines from the caption"
            if headings:
                above = [h for i in range(caption - NEAR, at) for h in headings if lines[i] == h]
                assert above and above[-1] == row["heading"], f"{where} {row['id']}: not under {row['heading']}"
            after = at + 1
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
    # An ablation is not the paper's QualityFlow: it finds the ablation's figure, where the paper printed one.
    no_tqc = papers.match(_spec("qualityflow", "mbpp", sonnet, tqc=False))
    assert no_tqc is not None and (no_tqc.table, no_tqc.column, no_tqc.printed) == ("Table 7", "without TQC", "93.40")
    assert papers.match(_spec("qualityflow", "mbpp", sonnet, epochs=1)) is None
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
    assert [t["table"] for t in data["tables"]] == ["Table V", "Table I", "Table VI", "Table XI"]
    assert main(["bench", "paper", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no paper 'nope'" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", papers.paper_names())
def test_every_reproduce_command_is_one_qflow_takes_and_runs_the_papers_settings(name):
    """Each row's command is parsed by qflow's own parser and turned into the
    bench it would run: same dataset and workflow, every setting the paper's row
    names at the paper's value."""
    import shlex

    from qflow_tui.cli import build_parser
    from qflow_tui.commands.bench import build_spec
    from qflow_tui.core.workflows.values import resolved_settings

    parser = build_parser()
    checked = 0
    for row in papers.paper(name).rows():
        for figure, how in papers.reproduce(row):
            if not papers.available(figure.dataset):
                continue
            words = shlex.split(how)
            assert words[:2] == ["qflow", "bench"], how
            try:
                args = parser.parse_args(words[1:])
            except SystemExit:
                pytest.fail(f"{row.ref} {figure.column}: qflow refuses `{how}`", pytrace=False)
            spec, _out = build_spec(args)
            assert (spec.dataset, spec.config.workflow) == (figure.dataset, figure.workflow), how
            ran = resolved_settings(spec.config)
            assert {k: ran[k] for k in figure.settings} == figure.settings, f"{row.ref}: `{how}`"
            # The bench it runs is one this figure is printed beside (the first such figure, where papers agree).
            bench = {"workflow": figure.workflow, "dataset": figure.dataset, "model": "x", "settings": ran}
            assert papers._same_settings(figure, bench), how
            if figure.family is not None:
                found = papers.match(bench, figure.part, figure.family)
                assert found is not None and (found.workflow, found.dataset) == (figure.workflow, figure.dataset), how
            checked += 1
    assert checked >= 5


def test_qflow_bench_paper_json_holds_the_ablation_tables(capsys):
    wanted = {
        "qualityflow": ["Table 1", "Table 2", "Table 5", "Table 7", "Table 10", "Figure 2"],
        "agentcoder": ["Table 1", "Table 2", "Table 3", "Table 6"],
        "codetree": ["Table 2", "Table 3", "Table 4"],
        "adacoder": ["Table V", "Table I", "Table VI", "Table XI"],
    }
    rows = {}
    for name, tables in wanted.items():
        assert main(["bench", "paper", name, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert [t["table"] for t in data["tables"]] == tables
        rows |= {r["row"]: r for t in data["tables"] for r in t["rows"]}
    ways = {ref: {w["column"]: w for w in r["reproduce"]} for ref, r in rows.items()}
    assert "--checker yesno" in ways["qualityflow/t5-mbpp-yesno"]["Workflow pass@1"]["command"]
    assert rows["qualityflow/t7-humaneval-opus-relaxed"]["cells"]["without TQC"] == "90.24"
    no_tqc = ways["qualityflow/t7-humaneval-opus-relaxed"]["without TQC"]["command"]
    assert "--checker python --no-tqc" in no_tqc and "--model anthropic/claude-opus-5-5" in no_tqc
    assert "--no-revert" in ways["qualityflow/t10-mbpp-standard-no-revert"]["QualityFlow pass@1"]["command"]
    assert "--clarify 0" in ways["qualityflow/t10-humaneval-relaxed-no-clarifier"]["QualityFlow pass@1"]["command"]
    assert "--checker none" in ways["qualityflow/f2-mbpp-sonnet-without-cqc"]["Final"]["command"]
    # The text gives Figure 2's HumanEval curve after epoch 1 only: the row says why nothing compares with it.
    assert ways["qualityflow/f2-humaneval-sonnet-without-cqc"] == {}
    assert "first self-debug epoch only" in rows["qualityflow/f2-humaneval-sonnet-without-cqc"]["note"]
    assert "--iterations 2" in ways["agentcoder/t3-iterations-2"]["MBPP"]["command"]
    assert (
        ways["agentcoder/t3-iterations-5"]["MBPP"]["command"]
        == ways["agentcoder/t1-gpt-3.5-turbo-agentcoder"]["MBPP"]["command"]
    )
    bfs = ways["codetree/t3-bfs-d2-w4"]
    assert "--search bfs --depth 2 --width 4" in bfs["HumanEval"]["command"]
    assert "--model openai/gpt-4o " in bfs["CodeContests"]["command"]  # Table 3 ran CodeContests with GPT-4o
    assert "--model openai/gpt-4o-mini " in bfs["HumanEval+"]["command"]
    assert "--no-node-abort" in ways["codetree/t4-without-node-abort"]["HumanEval"]["command"]
    both = ways["adacoder/t11-gpt-4o"]["w/o Prompt & Debug"]["command"]
    assert "--dataset humaneval " in both and "--no-prompt-engineer --no-debug-specialist" in both


def test_a_hand_edited_workflow_settings_that_is_not_a_dict_is_left_out():
    # bench.json's settings are checked a dict, their values not: matching a
    # bench to a paper reads what is there, never a TypeError.
    settings = {"workflow_settings": "oops", "tqc": True}
    assert papers.bench_settings({"workflow": "qualityflow", "settings": settings}) == settings
    own = {"workflow_settings": {"tqc": False}}
    assert papers.bench_settings({"settings": own}) == {**own, "tqc": False}
