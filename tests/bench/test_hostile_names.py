"""Names from outside escaped for the format they land in (issue 51; DESIGN.md
"What leaves the terminal"): model, workflow, convention and dataset names
from bench.json, its workflow settings, problem ids, step and agent names, a
verdict's detail, an error and a folder's name, each built to break one
format (a spreadsheet formula, a markdown row, heading, link or raw HTML, a
LaTeX special, a non-ASCII character, a terminal escape), fed through ``bench
table``, ``bench compare`` and ``bench report`` in every format they write.
Each output must stay well formed: CSV cells are never formulas, markdown
(parsed by markdown-it) keeps its tables' column counts and holds no HTML, no
injected heading, link or emphasis, LaTeX is ASCII whose rows keep their
column counts and which a real pdflatex builds, and JSON parses with NaN and
Infinity refused and gives the names back as they were."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

from qflow_tui.cli import main
from qflow_tui.core.escape import csvcells, jsontext, latex
from qflow_tui.core.escape import markdown as md
from qflow_tui.core.safe_text import one_line

#: What breaks each format, and a terminal: one text holds them all.
EVIL = (
    "|a\n# Injected heading\n<img src=x onerror=alert(1)> **b** _c_ [l](javascript:x) ![i](y) `t` ~~s~~ $x$ "
    "\\ { } & # ^ _ % ~ < > \" ' -- é∞中😀 \x1b[2J\u202e\r\n=1+1;@cmd\t-2"
)
#: Each name opens with a character a spreadsheet reads as a formula (OWASP's list).
MODEL = '=HYPERLINK("http://evil.example","click")' + EVIL
WORKFLOW = "+cmd|' /C calc'!A0" + EVIL
CONVENTION = "-2+3" + EVIL
DATASET = "@SUM(1)" + EVIL
PROBLEM = "mbpp/\t=cmd" + EVIL
STEP = "\r=step" + EVIL
AGENT = " =agent" + EVIL
SETTING = ("=key" + EVIL, "@value" + EVIL)
FOLDER = "f|`<img src=x onerror=alert(2)>`=cmd\n# folder"
#: A folder named like a formula, given relative to where qflow runs.
FORMULA_FOLDER = '=HYPERLINK("evil.example")|b'
#: Every outside text above, as it would be read on one line.
NAMES = [MODEL, WORKFLOW, CONVENTION, DATASET, PROBLEM, STEP, AGENT, *SETTING]


def _line(pid: str, passed: bool, status: str = "done") -> dict:
    return {
        "id": pid,
        "sample": 0,
        "status": status,
        "passed": passed,
        "first_passed": passed,
        "session": "sessions/" + EVIL,
        "error": "the provider said: " + EVIL,
        "steps": [{"step": STEP, "passed": passed, "accepted": passed}],
        "checks": [{"step": STEP, "accepted": passed, "passed": passed}],
        "debug": [{"step": STEP, "before": False, "after": passed}],
        "verdict": {"passed": passed, "status": "fail" if not passed else "pass", "detail": "detail " + EVIL},
        "tokens": {AGENT: {"input": 100, "output": 10, "calls": 1}},
        "tokens_total": 110,
    }


def _bench(folder: Path, verdicts: list[bool], dataset: str = "mbpp", unfinished: bool = False) -> Path:
    folder.mkdir(parents=True)
    ids = ["mbpp/11", PROBLEM, "mbpp/13"][: len(verdicts)]
    spec = {
        "dataset": dataset,
        "model": MODEL,
        "workflow": WORKFLOW,
        "convention": CONVENTION,
        "settings": {"workflow_settings": {SETTING[0]: SETTING[1]}},
        "samples": 1,
        "problems": ids + (["mbpp/99"] if unfinished else []),
        "price_in": 3.0,
        "price_out": 15.0,
    }
    (folder / "bench.json").write_text(json.dumps(spec), encoding="utf-8")
    lines = [_line(pid, ok) for pid, ok in zip(ids, verdicts, strict=True)]
    if unfinished:
        lines.append(_line("mbpp/99", False, status="error"))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def benches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    return {
        "a": _bench(root / FOLDER, [True, False, True], unfinished=True),
        "b": _bench(root / FORMULA_FOLDER, [False, True, True]),
        "odd": _bench(root / "odd", [True], dataset=DATASET),
        "odd2": _bench(root / "odd2", [False], dataset=DATASET),
        "paper": _paper_bench(root / "paper"),
    }


def _paper_bench(folder: Path) -> Path:
    """A bench the papers have a published row for (QualityFlow, a Sonnet, MBPP): the table's
    published and difference rows, their sources and citations, go through LaTeX too."""
    folder = _bench(folder, [True, False, True])
    spec = json.loads((folder / "bench.json").read_text(encoding="utf-8"))
    spec |= {"model": "anthropic/claude-sonnet-4-5", "workflow": "qualityflow", "convention": "completion"}
    spec["settings"] = {}
    (folder / "bench.json").write_text(json.dumps(spec), encoding="utf-8")
    return folder


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured.out


COMMANDS = {
    "table": lambda b: ["bench", "table", str(b["a"]), str(b["b"]), str(b["odd"])],
    "compare": lambda b: ["bench", "compare", str(b["a"]), str(b["b"])],
    "compare-odd": lambda b: ["bench", "compare", str(b["odd"]), str(b["odd2"])],
    # Run where the benches are, so the folders are named as given: FORMULA_FOLDER first.
    "compare-here": lambda b: ["bench", "compare", FORMULA_FOLDER, FOLDER],
    "table-paper": lambda b: ["bench", "table", str(b["paper"]), str(b["a"]), "--intervals", "pm"],
    "report": lambda b: ["bench", "report", str(b["a"])],
}
FORMATS = {
    "table": ("markdown", "latex", "csv", "json"),
    "compare": ("markdown", "latex", "csv", "json"),
    "compare-odd": ("markdown", "latex", "csv", "json"),
    "compare-here": ("markdown", "latex", "csv", "json"),
    "table-paper": ("markdown", "latex", "csv", "json"),
    "report": ("markdown", "json"),
}
CASES = [(command, fmt) for command, formats in FORMATS.items() for fmt in formats]


def _output(
    command: str,
    fmt: str,
    benches: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    if command == "compare-here":
        monkeypatch.chdir(benches["odd"].parent)
    argv = COMMANDS[command](benches)
    if command == "report":
        argv += ["--json"] if fmt == "json" else []
    else:
        argv += ["--format", fmt]
    return _run(argv, capsys)


def _terminal_safe(text: str) -> None:
    assert "\x1b" not in text and "\u202e" not in text and "\r" not in text


# ------------------------------------------------------------------ markdown
def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    dollarmath_plugin(parser, allow_digits=False, allow_space=False)
    return parser


def _check_markdown(text: str, folders: list[str]) -> None:
    tokens = _parser().parse(text)
    headings = []
    shown = []
    for i, token in enumerate(tokens):
        assert token.type not in ("html_block", "html_inline", "math_block"), token
        if token.type == "heading_open":
            headings.append(tokens[i + 1].content)
        if token.type == "table_open":
            _check_table(tokens[i:])
        if token.type == "inline":
            shown.append(_inline_text(token.children or [], folders))
    for heading in headings:  # only qflow's own: a name inside one is on its line, never its own
        assert not heading.startswith(("Injected", "folder")), heading
    plain = "\n".join(shown)
    # What was escaped shows as written (on one line).
    for name in (MODEL, WORKFLOW):
        assert one_line(name) in plain


def _check_table(tokens: list[Token]) -> None:
    widths = []
    cells = 0
    for token in tokens:
        if token.type in ("th_open", "td_open"):
            cells += 1
        elif token.type == "tr_close":
            widths.append(cells)
            cells = 0
        elif token.type == "table_close":
            break
    assert len(set(widths)) == 1, widths
    # The source rows too: a GFM renderer fills a short row, so count them as written.


def _inline_text(children: list[Token], folders: list[str]) -> str:
    out = []
    for i, child in enumerate(children):
        assert child.type not in ("html_inline", "link_open", "image", "em_open", "s_open", "math_inline"), child
        if child.type == "strong_open":  # ours: the best figure of a column in bold
            assert re.fullmatch(r"[\d.]+", children[i + 1].content), children[i + 1]
        if child.type == "code_inline":  # ours: a bench folder's path, or one of our own commands
            ours = child.content.startswith("qflow ") and child.content.isascii() and "<" not in child.content
            assert ours or child.content in [one_line(f) for f in folders], child.content
        out.append(child.content if child.type in ("text", "code_inline") else " " if "break" in child.type else "")
    return "".join(out)


def _check_markdown_rows(text: str) -> None:
    """Each table row as written has its header's number of cells (unescaped ``|``)."""
    block: list[int] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(len(re.findall(r"(?<!\\)\|", line)))
        elif block:
            assert len(set(block)) == 1, block
            block = []


# ------------------------------------------------------------------ LaTeX
def _check_latex(text: str) -> None:
    assert text.isascii(), sorted({ch for ch in text if not ch.isascii()})
    columns = 0
    for line in text.splitlines():
        spec = re.match(r"\\begin\{tabular\}\{([lrc]+)\}", line)
        if spec:
            columns = len(spec.group(1))
        elif line.endswith("\\\\") and columns:
            assert len(re.findall(r"(?<!\\)&", line)) == columns - 1, line
        # A % not escaped would comment out the rest of the line: only qflow's first comment line has one.
        if not line.startswith("% qflow"):
            assert not re.search(r"(?<!\\)%", line), line
    for name in (MODEL, WORKFLOW):
        assert latex.text(name) in text


# ------------------------------------------------------------------ CSV
def _check_csv(text: str) -> None:
    rows = list(csv.reader(io.StringIO(text)))
    assert len({len(r) for r in rows}) == 1
    for row in rows:
        for cell in row:
            assert not csvcells.is_formula(cell), cell
            assert not cell.lstrip().startswith(("=", "+", "@")) or cell.startswith("'"), cell
            if cell.startswith("-"):
                assert re.fullmatch(r"-[\d.]+", cell), cell


# ------------------------------------------------------------------ JSON
def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _check_json(text: str, command: str) -> None:
    data = _strict(text)
    strings = _strings(data)
    assert WORKFLOW in strings and MODEL in strings, command  # given back as they were


@pytest.mark.parametrize(("command", "fmt"), CASES, ids=[f"{c}-{f}" for c, f in CASES])
def test_hostile_names_leave_every_output_well_formed(benches, capsys, monkeypatch, command, fmt):
    text = _output(command, fmt, benches, capsys, monkeypatch)
    _terminal_safe(text)
    folders = [str(p) for p in benches.values()] + [FOLDER, FORMULA_FOLDER]
    if fmt == "markdown":
        _check_markdown(text, folders)
        _check_markdown_rows(text)
    elif fmt == "latex":
        _check_latex(text)
    elif fmt == "csv":
        _check_csv(text)
        if command == "table":  # the model's name is kept, behind the quote that makes it text
            assert '"\'=HYPERLINK(""http://evil.example"",""click"")|a' in text
        if command == "compare-here":  # and so is the folder's
            assert '"\'=HYPERLINK(""evil.example"")|b"' in text
    else:
        _check_json(text, command)


def test_the_report_escapes_every_name_it_prints(benches):
    from qflow_tui.core.bench.report import load_bench, render_report

    text = render_report(load_bench(benches["a"]))
    for name in (MODEL, WORKFLOW, PROBLEM, STEP, AGENT, "detail " + EVIL, *SETTING):
        assert md.text(name) in text, name
    assert not any(line.startswith(("# Injected", "# folder")) for line in text.splitlines())


# ------------------------------------------------------------------ a real pdflatex
PDFLATEX = shutil.which("pdflatex")


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (Debian: texlive-latex-base)")
@pytest.mark.parametrize("command", ["table", "compare", "compare-odd", "compare-here", "table-paper"])
def test_a_plain_pdflatex_builds_the_latex(benches, capsys, monkeypatch, tmp_path, command):
    text = _output(command, "latex", benches, capsys, monkeypatch)
    kpsewhich = shutil.which("kpsewhich")
    found = kpsewhich and subprocess.run([kpsewhich, "booktabs.sty"], capture_output=True, text=True, timeout=60)
    # Without booktabs (texlive-latex-recommended), its three rules as plain lines: the rest is checked as is.
    rules = "\\usepackage{booktabs}"
    if not (found and found.stdout.strip()):
        rules = "\\let\\toprule\\hline\\let\\midrule\\hline\\let\\bottomrule\\hline"
    doc = f"\\documentclass{{article}}\n{rules}\n\\begin{{document}}\n{text}\\end{{document}}\n"
    (tmp_path / "t.tex").write_text(doc, encoding="ascii")
    done = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "t.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-3000:]
    assert "Missing character" not in log and "Unicode character" not in log
    assert (tmp_path / "t.pdf").stat().st_size > 0


# ------------------------------------------------------------------ the modules themselves
@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=1+1", '"\'=1+1"'),
        ("+1+cmd", '"\'+1+cmd"'),
        ("-cmd", '"\'-cmd"'),
        ("@SUM(A1)", '"\'@SUM(A1)"'),
        ("\t=1", '"\'\t=1"'),
        ("\r=1", '"\'=1"'),
        ("  =1", '"\'  =1"'),
        ("a;=1", '"a;=1"'),
        ('say "hi"', '"say ""hi"""'),
        ("-19.20", "-19.20"),
        ("+1.5e-05", "+1.5e-05"),
        ("plain", "plain"),
        ("x\x1b[2Jy", "xy"),
    ],
)
def test_a_csv_cell_is_never_a_formula(cell, written):
    assert csvcells.cell(cell) == written
    (row,) = csv.reader(io.StringIO(csvcells.rows([[cell]])))
    assert not csvcells.is_formula(row[0])


def test_markdown_text_is_one_escaped_line():
    assert md.text("a|b\n# c <img onerror=x> & *d* [e](f) `g` ~h~ $i$") == (
        "a\\|b # c &lt;img onerror=x&gt; &amp; \\*d\\* \\[e\\](f) \\`g\\` \\~h\\~ \\$i\\$"
    )
    assert md.text("program_generator") == "program_generator"  # inside a word, _ never emphasises
    assert md.text("_x_") == "\\_x\\_"
    assert [md.text(t) for t in ("# h", "- i", "1. j", "===", "94.20", "-2")] == [
        "\\# h",
        "\\- i",
        "1\\. j",
        "\\===",
        "94.20",
        "-2",
    ]
    assert md.code("a``b") == "```a``b```" and md.code("`x") == "`` `x ``"


def test_latex_text_is_ascii_a_pdflatex_takes():
    assert latex.text('a_b & 50% #1 {x} $y ~ ^ \\ < > | " `') == (
        "a\\_b \\& 50\\% \\#1 \\{x\\} \\$y \\textasciitilde{} \\textasciicircum{} \\textbackslash{} "
        "\\textless{} \\textgreater{} \\textbar{} \\texttt{\\char34} \\texttt{\\char18}"
    )
    assert latex.text("∞ ± Δ café naïve Łódź ＝ ﬁ 中 😀") == (
        "$\\infty$ $\\pm$ $\\Delta$ caf\\'{e} na\\\"{\\i}ve \\L{}\\'{o}d\\'{z} = fi "
        "\\texttt{[U+4E2D]} \\texttt{[U+1F600]}"
    )
    assert latex.text("a--b\nc") == "a-{}-b c"


def test_json_text_is_strict_and_terminal_safe():
    text = jsontext.dumps({"x": float("inf"), "y": [float("nan"), 1.5], "n": "a\x1b\x9b\u202e\ud800"})
    assert _strict(text) == {"x": None, "y": [None, 1.5], "n": "a\x1b\x9b\u202e\ufffd"}
    _terminal_safe(text)
    assert "\x9b" not in text


def test_an_estimate_from_a_hostile_bench_never_drives_the_terminal(benches, capsys, tmp_path):
    canonical = Path(__file__).parents[2] / "bench" / "canonical_model.py"
    argv = ["bench", "--dataset", "mbpp", "--ids", "11", "--model", f"script/{canonical}", "--out", str(tmp_path)]
    out = _run([*argv, "--estimate-from", str(benches["a"])], capsys)
    _terminal_safe(out)
    assert one_line(MODEL).replace("\t", " ")[:40] in out.replace("\t", " ")
