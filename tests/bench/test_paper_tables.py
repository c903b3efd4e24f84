"""Tables for a paper: ``bench table`` and ``bench compare`` as markdown, LaTeX
(booktabs, the best value in bold, intervals in brackets or as ±, a caption
naming the setting and the convention), CSV and JSON; the published figure
beside ours with the difference."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench.report import BenchData
from qflow_tui.core.bench.tables import build_table, latex_escape, render_compare, render_table


def _record(pid: str, passed: bool) -> dict:
    return {
        "id": pid,
        "sample": 0,
        "status": "done",
        "passed": passed,
        "steps": [],
        "tokens": {"program_generator": {"input": 1000, "output": 100, "calls": 1}},
        "tokens_total": 1100,
    }


def _bench(folder: Path, verdicts: list[bool], **spec: object) -> BenchData:
    ids = [f"mbpp/{11 + i}" for i in range(len(verdicts))]
    full = {
        "dataset": "mbpp",
        "workflow": "qualityflow",
        "model": "anthropic/claude-sonnet-5-5",
        "convention": "completion",
        **spec,
    }
    full.setdefault("settings", {})
    return BenchData(folder, full, [_record(p, v) for p, v in zip(ids, verdicts, strict=True)], ids)


def _write(folder: Path, data: BenchData) -> Path:
    folder.mkdir(parents=True)
    (folder / "bench.json").write_text(json.dumps({**data.spec, "problems": data.problem_ids}))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in data.records))
    return folder


def test_the_published_figure_is_printed_beside_ours_with_the_difference(tmp_path):
    ours = _bench(tmp_path / "qf", [True, True, True, False])
    data = build_table([ours])
    kinds = [r.kind for r in data.rows]
    assert kinds == ["ours", "published", "difference"]
    published, difference = data.rows[1], data.rows[2]
    assert published.cells["MBPP"].printed == "94.20"
    assert published.model == "Claude Sonnet-3.5-v2"
    assert difference.cells["MBPP"] == pytest.approx(75.0 - 94.2)
    text = render_table([ours])
    assert "| ↳ published | Claude Sonnet-3.5-v2 | standard |  | **94.20** |" in text
    assert "| ↳ Δ (ours − published) |  |  |  | -19.20 |" in text
    assert "QualityFlow Table 1, Claude Sonnet-3.5-v2 (qualityflow/t1-mbpp-sonnet-standard)" in text
    assert "arXiv:2501.17167" in text
    # No paper asked for: none printed; a row named: that row, whatever the model.
    assert [r.kind for r in build_table([ours], with_papers=False).rows] == ["ours"]
    other = _bench(tmp_path / "x", [True, False], model="openai/gpt-4.1")
    assert [r.kind for r in build_table([other]).rows] == ["ours"]
    named = build_table([other], paper_rows=["qualityflow/t2-mbpp"])
    assert named.rows[1].cells["MBPP"].printed == "94.2"
    by_family = build_table([other], paper_family="claude-opus")
    assert by_family.rows[1].cells["MBPP"].printed == "87.00"


def test_latex_has_booktabs_rules_bold_best_intervals_and_a_caption(tmp_path):
    a = _bench(tmp_path / "a", [True] * 9 + [False], model="script/my_model.py", workflow="zeroshot")
    b = _bench(tmp_path / "b", [True] * 6 + [False] * 4, model="script/other_model.py", workflow="zeroshot")
    tex = render_table([a, b], "latex")
    for rule in ("\\toprule", "\\midrule", "\\bottomrule", "\\begin{tabular}{llr}", "\\end{table}"):
        assert rule in tex
    assert "zeroshot & script/my\\_model.py & \\textbf{90.00} {\\scriptsize [59.6, 98.2]} \\\\" in tex
    assert "zeroshot & script/other\\_model.py & 60.00 {\\scriptsize [31.3, 83.2]} \\\\" in tex
    assert "Problems &  & 10 \\\\" in tex
    caption = next(line for line in tex.splitlines() if line.startswith("\\caption{"))
    assert "Setting: standard" in caption and "Convention: completion" in caption
    assert "95\\% Wilson score interval is given in brackets" in caption
    pm = render_table([a, b], "latex", "pm")
    # ± half the interval's width: (98.2 - 59.6) / 2 = 19.3.
    assert "\\textbf{90.00} {\\scriptsize $\\pm$ 19.3}" in pm
    assert "as $\\pm$ half its width" in pm
    assert latex_escape("a_b & 50% #1 {x} $y ~ ^") == (
        "a\\_b \\& 50\\% \\#1 \\{x\\} \\$y \\textasciitilde{} \\textasciicircum{}"
    )


def test_csv_and_json_tables(tmp_path):
    a = _bench(tmp_path / "a", [True] * 3 + [False])
    rows = list(csv.reader(io.StringIO(render_table([a], "csv"))))
    head, ours, published, difference = rows
    at = head.index("MBPP")
    assert head[at : at + 4] == ["MBPP", "MBPP low", "MBPP high", "MBPP problems"]
    assert ours[0] == "ours" and ours[at : at + 4] == ["75.00", "30.06", "95.44", "4"]
    assert published[0] == "published" and published[at] == "94.20"
    assert difference[at] == "-19.20"
    data = json.loads(render_table([a], "json"))
    cell = data["rows"][0]["cells"]["MBPP"]
    assert (cell["passed"], cell["n"], cell["interval"]["method"]) == (3, 4, "Wilson score interval")
    assert data["rows"][1]["cells"]["MBPP"]["row"] == "qualityflow/t1-mbpp-sonnet-standard"


def test_compare_in_every_format_gives_the_paired_statistics(tmp_path):
    # 12 problems: A alone solves 1, B alone 6, both 3, neither 2 (McNemar p = 0.125).
    a = _bench(tmp_path / "a", [True] * 1 + [False] * 6 + [True] * 3 + [False] * 2, workflow="zeroshot")
    b = _bench(tmp_path / "b", [False] * 1 + [True] * 6 + [True] * 3 + [False] * 2)
    md = render_compare([a, b])
    assert "## Paired comparisons" in md
    assert "| 2 vs 1 | 12 | 33.33 | 75.00 | +41.67 |" in md and "| 1 | 6 | 0.125 |  |" in md
    assert "one comparison, so no correction for multiple comparisons" in md
    data = json.loads(render_compare([a, b], "json"))
    (pair,) = data["pairs"]
    assert (pair["a_only"], pair["b_only"], pair["p_value"]) == (1, 6, 0.125)
    assert pair["difference"] == pytest.approx(5 / 12)
    assert data["benches"][0]["pass@1"]["interval"]["method"] == "Wilson score interval"
    assert data["benches"][1]["cost"]["per_solved_interval"]["method"].startswith("percentile bootstrap")
    tex = render_compare([a, b], "latex")
    assert "2 vs 1 & 12 & $+41.67$" in tex and "\\bottomrule" in tex and "McNemar" in tex
    rows = list(csv.reader(io.StringIO(render_compare([a, b], "csv"))))
    assert rows[1][rows[0].index("mcnemar_p")] == "0.125"
    # Three benches: Holm's correction, said.
    c = _bench(tmp_path / "c", [True] * 12)
    three = json.loads(render_compare([a, b, c], "json"))
    assert len(three["pairs"]) == 3 and "Holm" in three["correction"]
    assert len(json.loads(render_compare([a, b, c], "json", pairs="first"))["pairs"]) == 2


def test_the_cli_formats_and_bad_input(tmp_path, capsys):
    a = _write(tmp_path / "a", _bench(tmp_path / "a", [True, False, True]))
    b = _write(tmp_path / "b", _bench(tmp_path / "b", [True, True, True], workflow="zeroshot"))
    assert main(["bench", "table", str(a), str(b), "--format", "latex"]) == 0
    assert "\\toprule" in capsys.readouterr().out
    assert main(["bench", "compare", str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"][0]["b_only"] == 1
    assert main(["bench", "compare", str(a), str(b), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("a,b,a_folder")
    assert main(["bench", "report", str(a), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pass@1"]["passed"] == 2 and report["methods"]["p_value"].startswith("exact McNemar")
    assert main(["bench", "table", str(a), "--paper", "qualityflow/t9-none"]) == 2
    err = capsys.readouterr().err
    assert "has no row 't9-none'" in err and err.count("\n") == 1
    assert main(["bench", "table", str(a), "--paper", "qualityflow/t2-mbpp", "--format", "csv"]) == 0
    assert "94.2" in capsys.readouterr().out


def test_the_report_header_says_when_no_temperature_was_sent(tmp_path):
    from qflow_tui.core.bench.report import render_report

    data = _bench(tmp_path / "b", [True, False], workflow="zeroshot")
    (tmp_path / "b" / "sessions").mkdir(parents=True)
    for i, rec in enumerate(data.records):
        rec["session"] = f"sessions/s{i}.jsonl"
    header = {
        "format": "qflow-session",
        "sampling": {"temperature": "not sent (the API takes none): the provider's default"},
    }
    (tmp_path / "b" / "sessions" / "s0.jsonl").write_text(json.dumps(header) + "\n")
    report = render_report(data)
    assert "Temperature: not sent (the API takes none): the provider's default. Every agent sampled" in report
    header["sampling"] = {"temperature": "sent as each agent asks (the paper's 0; 0.1 for the test designer)"}
    (tmp_path / "b" / "sessions" / "s0.jsonl").write_text(json.dumps(header) + "\n")
    assert "Temperature:" not in render_report(data)


def test_an_ablation_is_a_row_of_its_own_beside_the_published_ablation(tmp_path, capsys):
    """QualityFlow with and without the Test Quality Checker, side by side: two
    rows, each under the figure its paper printed for that configuration
    (Table 1's 94.20; Table 7's 93.40 without the TQC)."""
    standard = _bench(tmp_path / "qf", [True, True, True, False])
    no_tqc = _bench(tmp_path / "no-tqc", [True, True, False, False], settings={"tqc": False})
    data = build_table([standard, no_tqc])
    assert [r.kind for r in data.rows] == ["ours", "published", "difference"] * 2
    ours, ablation = data.rows[0], data.rows[3]
    assert (ours.name, ablation.name) == ("qualityflow", "qualityflow (tqc=false)")
    assert data.rows[1].cells["MBPP"].printed == "94.20"
    published = data.rows[4].cells["MBPP"]
    assert (published.printed, published.table, published.column) == ("93.40", "Table 7", "without TQC")
    assert data.rows[5].cells["MBPP"] == pytest.approx(50.0 - 93.4)
    text = render_table([standard, no_tqc])
    assert "| qualityflow (tqc=false) | anthropic/claude-sonnet-5-5 | standard | completion |" in text
    assert "QualityFlow Table 7, Claude Sonnet-3.5-v2 (qualityflow/t7-mbpp-sonnet-standard)" in text
    # A named row with several figures gives the one of the bench's own settings.
    named = build_table([no_tqc], paper_rows=["qualityflow/t7-mbpp-sonnet-standard"])
    assert named.rows[1].cells["MBPP"].printed == "93.40"
    named = build_table([standard], paper_rows=["qualityflow/t7-mbpp-sonnet-standard"])
    assert named.rows[1].cells["MBPP"].printed == "94.20"
    # An ablation no paper printed: its own row, and no published figure beside it.
    alone = _bench(tmp_path / "e1", [True, False], settings={"epochs": 1})
    assert [(r.kind, r.name) for r in build_table([alone]).rows] == [("ours", "qualityflow (epochs=1)")]
    rows = list(csv.reader(io.StringIO(render_table([standard, no_tqc], "csv"))))
    assert [r[1] for r in rows[1:]] == ["qualityflow", "", "", "qualityflow (tqc=false)", "", ""]
    assert json.loads(render_table([no_tqc], "json"))["rows"][0]["settings"] == "tqc=false"


def test_the_report_of_one_bench_prints_its_published_figure(tmp_path, capsys):
    """A bench of one ablation (QualityFlow without the TQC) shows the figure its
    paper printed for it in ``bench report`` and its JSON; a configuration no
    paper printed says so in one line."""
    from qflow_tui.core.bench.report import render_report

    no_tqc = _write(
        tmp_path / "no-tqc", _bench(tmp_path / "no-tqc", [True, True, False, False], settings={"tqc": False})
    )
    assert main(["bench", "report", str(no_tqc)]) == 0
    text = capsys.readouterr().out
    assert "## Published figure" in text
    assert (
        "- pass@1: ours 50.00, published 93.40; Δ (ours − published) -43.40 points. QualityFlow Table 7, "
        "Claude Sonnet-3.5-v2, column without TQC (qualityflow/t7-mbpp-sonnet-standard)." in text
    )
    assert "The paper ran Claude Sonnet-3.5-v2, not this bench's model" in text and "arXiv:2501.17167" in text
    assert main(["bench", "report", str(no_tqc), "--json"]) == 0
    (figure,) = json.loads(capsys.readouterr().out)["published"]
    assert (figure["row"], figure["column"], figure["value"]) == (
        "qualityflow/t7-mbpp-sonnet-standard",
        "without TQC",
        93.4,
    )
    # CodeTree's Table 4 on HumanEval+: the plus figure; EvalPlus's base has none printed.
    from qflow_tui.core.config import RunConfig
    from qflow_tui.core.workflows.values import resolved_settings

    ran = resolved_settings(RunConfig(workflow="codetree").replace(node_abort=False))  # every setting, as recorded
    tree = _bench(
        tmp_path / "ct",
        [True, False],
        workflow="codetree",
        dataset="humaneval-plus",
        model="openai/gpt-4o-mini",
        settings=ran,
    )
    report = render_report(tree)
    assert "- pass@1 (plus): ours 50.00, published 81.1%" in report and "(codetree/t4-without-node-abort)" in report
    assert "pass@1 (base)" not in report
    alone = _bench(tmp_path / "e1", [True, False], settings={"epochs": 1})
    assert "No paper printed a figure for this workflow with these settings" in render_report(alone)


def test_the_report_compares_with_another_familys_rows_when_asked(tmp_path, capsys):
    """A model no paper ran (a script, gpt-4.1): the report says so and names
    ``--paper-model``; with it, the family's figure is shown and said to be that
    family's. A family no paper ran is refused in one line."""
    ours = _write(tmp_path / "b", _bench(tmp_path / "b", [True, True, True, False], model="openai/gpt-4.1"))
    assert main(["bench", "report", str(ours)]) == 0
    assert "No published figure: no paper ran a model of this bench's model's family" in capsys.readouterr().out
    assert main(["bench", "report", str(ours), "--paper-model", "claude-opus"]) == 0
    text = capsys.readouterr().out
    assert "- pass@1: ours 75.00, published 87.00; Δ (ours − published) -12.00 points." in text
    assert "the model family asked for (claude-opus)" in text
    assert main(["bench", "report", str(ours), "--paper-model", "claude-opus", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["published"][0]["row"] == "qualityflow/t1-mbpp-opus-standard"
    assert main(["bench", "report", str(ours), "--paper-model", "gpt-9"]) == 2
    err = capsys.readouterr().err
    assert "no paper ran a model of the family 'gpt-9': choose one of" in err and err.count("\n") == 1
    assert main(["bench", "table", str(ours), "--paper-model", "gpt-9"]) == 2
    err = capsys.readouterr().err
    assert "no paper ran a model of the family 'gpt-9': choose one of" in err and err.count("\n") == 1
