"""The papers' published figures, as data: each paper's main tables and its
ablation tables, the numbers per dataset and model as printed, with the
citation and what was unclear in the text (``qflow_tui/data/papers/<paper>.json``).

A figure is comparable with a bench when the paper's row names a workflow qflow
has (its settings as the paper ran it: an ablation is its settings, ``--no-tqc``),
a dataset qflow has, and a model family (``claude-sonnet``, ``gpt-4o-mini``, ...).
:func:`match` finds the published figure for a bench; :func:`reproduce` gives the
``qflow bench`` command that would reproduce a row. The datasets qflow reads from
a local copy (HumanEval-ET, MBPP-ET, CodeContests) take ``--dataset-file`` in it.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...locations import package_data_dir
from .. import plugins
from ..safe_text import one_line, scrub
from ..workflows import WORKFLOWS
from .names import BENCH_DATASETS
from .protocol import is_evalplus, setting
from .results import BenchSpecFile
from .sources import sources


def paper_names() -> list[str]:
    """The papers kept, in the order their figures are tried (each file's
    ``order``): a bench's own workflow's paper first (see :func:`match`), then this."""
    return [p.name for p in sorted(papers().values(), key=lambda p: p.order)]


class PaperError(Exception):
    """A paper or row name qflow does not know; the message says what it knows."""


@dataclass(frozen=True)
class Figure:
    """One printed number of a paper's table, and what it measured."""

    paper: str
    table: str
    row: str
    """The row's id, unique within the paper (``t1-mbpp-sonnet-standard``)."""
    column: str
    printed: str
    """The cell as printed (``79.9 (39.4%)``, ``94.5%``, ``-``)."""
    value: float | None
    """Its first number, in percent (None for ``-`` and ``N/A``)."""
    paper_dataset: str
    """The dataset as the paper names it."""
    dataset: str | None
    """qflow's name for it (``mbpp-plus``), available or not yet."""
    part: str | None
    """On EvalPlus's datasets, which figure: ``base`` or ``plus``."""
    workflow: str | None
    """The qflow workflow that ran it (None: a method qflow does not have)."""
    settings: dict[str, object]
    """The workflow's settings as the paper ran it (the rest at their defaults)."""
    setting: str | None
    """``standard`` or ``relaxed`` where the paper says, else None."""
    model: str
    """The model as the paper names it."""
    family: str | None

    @property
    def ref(self) -> str:
        return f"{self.paper}/{self.row}"

    @property
    def number(self) -> str:
        """The figure's number as printed, without a unit or a note (``79.9`` of ``79.9 (39.4%)``)."""
        m = re.match(r"\s*(-?\d+(?:\.\d+)?)", self.printed)
        return m.group(1) if m else self.printed

    def source(self) -> str:
        """``QualityFlow Table 1, Claude Sonnet-3.5-v2``: where the figure is printed."""
        return f"{paper(self.paper).label} {self.table}, {self.model}"


@dataclass(frozen=True)
class Row:
    paper: str
    table: str
    id: str
    words: str
    """The row's label: method, model and setting, as printed."""
    cells: list[tuple[str, str]]
    """(column, printed value) in the printed order."""
    figures: list[Figure]
    """The cells that are a dataset's final pass@1."""
    model: str
    model_inferred: bool = False
    note: str = ""
    """What a reader of the row must know that its cells do not say (why no bench compares with it)."""

    @property
    def ref(self) -> str:
        return f"{self.paper}/{self.id}"


@dataclass(frozen=True)
class Table:
    name: str
    caption: str
    columns: list[str]
    rows: list[Row]


@dataclass(frozen=True)
class Paper:
    name: str
    title: str
    authors: str
    arxiv: str
    short: str
    notes: list[str]
    tables: list[Table] = field(default_factory=list)
    order: int = 0
    """Where its figures come in the order they are tried."""
    workflow: str = ""
    """The qflow workflow the paper describes (its figures come first for that workflow's benches)."""

    @property
    def label(self) -> str:
        """The system's name as the paper writes it (the title's first word)."""
        return self.title.split(":")[0]

    @property
    def citation(self) -> str:
        return f"{self.authors}. {self.title}. arXiv:{self.arxiv}."

    def rows(self) -> list[Row]:
        return [r for t in self.tables for r in t.rows]


def _number(printed: str) -> float | None:
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", printed)
    return float(m.group(1)) if m else None


def _load(path: Path, *, outside: bool = False) -> Paper:
    """A paper's figures from its file (``data/papers/<name>.json``, or a file
    a dataset plugin declares: ``outside``, its text made terminal-safe)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if outside:
        raw = scrub(raw)
    name = str(raw["name"])
    datasets: dict[str, dict[str, str]] = raw["datasets"]
    tables = []
    for t in raw["tables"]:
        columns = t["columns"]
        rows = []
        for r in t["rows"]:
            cells = list(zip((c["name"] for c in columns), r["cells"], strict=True))
            figures = []
            for col, printed in zip(columns, r["cells"], strict=True):
                if not col.get("final"):
                    continue
                paper_dataset = col.get("dataset") or r.get("dataset") or ""
                where = datasets.get(paper_dataset, {})
                # A column may name its own workflow and settings (Table 1's Zero-shot column),
                # or add settings to the row's (Table 7's "without TQC": the row's checker, no TQC).
                workflow = col["workflow"] if "workflow" in col else r.get("workflow")
                settings = dict(col.get("settings") or {})
                if "workflow" not in col:
                    settings = {**(r.get("settings") or {}), **settings}
                figures.append(
                    Figure(
                        paper=name,
                        table=t["table"],
                        row=r["id"],
                        column=col["name"],
                        printed=printed,
                        value=_number(printed),
                        paper_dataset=paper_dataset,
                        dataset=where.get("dataset"),
                        part=where.get("part"),
                        workflow=workflow,
                        settings=settings,
                        setting=col["setting"] if "setting" in col else r.get("setting"),
                        # A column may be another model's (CodeTree's Table 3: CodeContests with GPT-4o).
                        model=col.get("model") or r.get("model_name") or r["model"],
                        family=col["family"] if "family" in col else r.get("family"),
                    )
                )
            model = r["model"] + (f" ({r['model_name']})" if r.get("model_name") else "")
            model += " (inferred: the table names no model)" if r.get("model_inferred") else ""
            method = r.get("method") if r.get("method") not in (None, "frameworks") else None
            words = " · ".join(str(x) for x in (method, model, r.get("dataset"), r.get("setting")) if x)
            rows.append(
                Row(
                    paper=name,
                    table=t["table"],
                    id=r["id"],
                    words=words,
                    cells=cells,
                    figures=figures,
                    model=r.get("model_name") or r["model"],
                    model_inferred=bool(r.get("model_inferred")),
                    note=str(r.get("note") or ""),
                )
            )
        tables.append(Table(t["table"], t["caption"], [c["name"] for c in columns], rows))
    return Paper(
        raw["name"],
        raw["title"],
        raw["authors"],
        raw["arxiv"],
        raw["short"],
        raw["notes"],
        tables,
        order=int(raw.get("order", 0)),
        workflow=str(raw.get("workflow", "")),
    )


#: Paper files of dataset plugins that were not read, one line each (why).
REFUSED_PAPERS: list[str] = []

#: The largest paper file a plugin may declare (bytes).
MAX_PAPER_BYTES = 4 << 20


@functools.cache
def papers() -> dict[str, Paper]:
    """Every paper whose figures qflow compares with, by name: qflow's own (a
    file each under ``data/papers``), then those the dataset plugins declare
    (:attr:`~qflow_tui.core.bench.sources.DatasetSource.papers`). A plugin's
    file that cannot be read, or takes the name of a paper already known, is
    left out with one line in :data:`REFUSED_PAPERS`."""
    loaded = {p.name: p for p in (_load(path) for path in sorted((package_data_dir() / "papers").glob("*.json")))}
    REFUSED_PAPERS.clear()
    for src in sources().values():
        for declared_path in src.papers:
            path = Path(declared_path)
            try:
                if path.stat().st_size > MAX_PAPER_BYTES:
                    raise ValueError(f"larger than {MAX_PAPER_BYTES >> 20} MB")
                found = _load(path, outside=True)
            except Exception as exc:  # a plugin's file: one line, never a traceback
                REFUSED_PAPERS.append(
                    one_line(f"dataset {src.name}: its paper file {path} was not read ({plugins.exception_words(exc)})")
                )
                continue
            if found.name in loaded:
                REFUSED_PAPERS.append(
                    one_line(f"dataset {src.name}: its paper {found.name!r} takes the name of a paper already known")
                )
                continue
            loaded[found.name] = found
    return {p.name: p for p in sorted(loaded.values(), key=lambda p: p.order)}


def paper(name: str) -> Paper:
    found = papers().get(name.strip().lower())
    if found is None:
        raise PaperError(f"no paper {name!r}: choose one of {', '.join(paper_names())}")
    return found


def find_row(ref: str) -> Row:
    """A row by ``paper/row-id`` (as ``qflow bench paper`` lists them)."""
    name, _, rid = ref.strip().partition("/")
    p = paper(name)
    for row in p.rows():
        if row.id == rid:
            return row
    raise PaperError(f"{p.label} has no row {rid!r}: `qflow bench paper {p.name}` lists its rows")


# ------------------------------------------------------------------ model families
#: A model's name as a provider spells it -> the family the papers' rows name.
#: Tried in order: the more specific first (gpt-4o-mini before gpt-4o before gpt-4).
_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"claude.*instant|instant.*claude", "claude-instant"),
    (r"claude.*sonnet|sonnet.*claude", "claude-sonnet"),
    (r"claude.*opus|opus.*claude", "claude-opus"),
    (r"claude.*haiku|haiku.*claude", "claude-haiku"),
    (r"gpt-4o-mini", "gpt-4o-mini"),
    (r"gpt-4o", "gpt-4o"),
    (r"gpt-4-turbo|gpt-4-\d{4}-preview", "gpt-4-turbo"),
    (r"gpt-4(?:-\d{4})?$", "gpt-4"),
    (r"gpt-3\.5-turbo", "gpt-3.5-turbo"),
    (r"llama-?3\.1.*\b8b\b", "llama-3.1-8b"),
    (r"codellama(?=.*python).*\b7b\b", "codellama-python-7b"),
    (r"codellama(?=.*python).*\b13b\b", "codellama-python-13b"),
    (r"codellama(?=.*python).*\b34b\b", "codellama-python-34b"),
    (r"deepseek-coder.*\b1\.3b\b", "deepseek-coder-1.3b"),
    (r"deepseek-coder.*\b6\.7b\b", "deepseek-coder-6.7b"),
    (r"deepseek-coder.*\b33b\b", "deepseek-coder-33b"),
)


def family_of(model: str) -> str | None:
    """The papers' family of a ``provider/model`` name (``anthropic/claude-sonnet-5-5``:
    ``claude-sonnet``), or None when no paper ran one of its family."""
    name = model.strip().lower().partition("/")[2] or model.strip().lower()
    name = re.sub(r"[\s:_]+", "-", name.rpartition("/")[2])
    for pattern, family in _FAMILIES:
        if re.search(pattern, name):
            return family
    return None


# ------------------------------------------------------------------ matching a bench
def bench_settings(spec: BenchSpecFile) -> dict[str, object]:
    """A bench's settings with any workflow's own kept apart merged in."""
    settings = dict(spec.get("settings") or {})
    own = settings.get("workflow_settings")
    return {**settings, **(own if isinstance(own, dict) else {})}  # a hand-edited one may be anything


def _same_settings(figure: Figure, spec: BenchSpecFile) -> bool:
    """Whether the bench ran the workflow as the paper did: each of the workflow's
    own settings at the paper's value (the workflow's default where the paper's
    row names none). A bench of a workflow not installed matches nothing."""
    wf = WORKFLOWS.get(str(figure.workflow))
    if wf is None:
        return False
    ran = bench_settings(spec)
    for s in wf.settings:
        want = figure.settings.get(s.key, s.default)
        if ran.get(s.key, s.unrecorded) != want:
            return False
    return True


def _figures_for(workflow: str) -> list[Figure]:
    order = sorted(papers().values(), key=lambda p: (p.workflow != workflow, p.order))  # its own paper first
    return [f for p in order for row in p.rows() for f in row.figures]


def match(spec: BenchSpecFile, part: str | None = None, family: str | None = None) -> Figure | None:
    """The published figure a bench reproduces: same workflow with the paper's
    settings, same dataset (and EvalPlus ``part``), same model family
    (``family`` stands in for the bench's own), same setting where the paper
    says; the first in the papers' order, the bench's own workflow's paper first."""
    workflow = str(spec.get("workflow", ""))
    dataset = str(spec.get("dataset", ""))
    fam = family or family_of(str(spec.get("model", "")))
    if fam is None:
        return None
    ours = setting(spec)
    for f in _figures_for(workflow):
        if (
            f.workflow == workflow
            and f.dataset == dataset
            and f.part == part
            and f.family == fam
            and f.value is not None
            and (f.setting is None or f.setting == ours)
            and _same_settings(f, spec)
        ):
            return f
    return None


def families() -> list[str]:
    """The model families the papers' rows ran, as ``--paper-model`` takes them."""
    return sorted({f.family for p in papers().values() for r in p.rows() for f in r.figures if f.family})


def published(spec: BenchSpecFile, family: str | None = None) -> list[Figure]:
    """The published figures one bench reproduces (:func:`match`, ``family``
    standing in for the bench's own): on EvalPlus's datasets base and plus
    apart, each where a paper printed it."""
    parts: tuple[str | None, ...] = ("base", "plus") if is_evalplus(str(spec.get("dataset", ""))) else (None,)
    return [f for f in (match(spec, part, family) for part in parts) if f is not None]


def row_figure(
    row: Row, dataset: str, part: str | None, workflow: str = "", spec: BenchSpecFile | None = None
) -> Figure | None:
    """The figure of a named row for one dataset (and EvalPlus part): where the
    row has several, the one the bench (``spec``) ran the settings of (Table 7
    gives QualityFlow with and without the TQC), else the one of its
    ``workflow`` (Table 1 gives zero-shot and QualityFlow's own), else the
    row's last (its final)."""
    found = [f for f in row.figures if f.dataset == dataset and f.part == part and f.value is not None]
    same = [f for f in found if f.workflow == workflow]
    ran = [f for f in same if spec is not None and _same_settings(f, spec)]
    chosen = ran or same or found
    return chosen[-1] if chosen else None


# ------------------------------------------------------------------ reproducing a row
def available(dataset: str | None) -> bool:
    """A dataset qflow can bench here: one it ships, or any installed (a plugin's included)."""
    return dataset in BENCH_DATASETS or sources().get(dataset or "") is not None


def needs_file(dataset: str | None) -> bool:
    """A dataset qflow reads from a local copy (``--dataset-file``): CodeContests, APPS, the ET sets."""
    src = sources().get(dataset or "")
    return src is not None and not src.shipped


#: A family's model qflow knows today (the price table's), offered in a
#: reproduction command in place of the paper's own, which may be retired.
TODAYS_MODEL = {
    "claude-sonnet": "anthropic/claude-sonnet-5-5",
    "claude-opus": "anthropic/claude-opus-5-5",
    "claude-haiku": "anthropic/claude-haiku-4-5",
    "gpt-4o": "openai/gpt-4o",
    "gpt-4o-mini": "openai/gpt-4o-mini",
}


def model_for(figure: Figure) -> str:
    """The ``--model`` of a reproduction: the family's model qflow knows, else ``MODEL``."""
    return TODAYS_MODEL.get(figure.family or "", "MODEL")


def _flag(key: str, value: object) -> list[str]:
    flag = "--" + key.replace("_", "-")
    if isinstance(value, bool):
        return [flag if value else f"--no-{key.replace('_', '-')}"]
    return [flag, str(value)]


def reproduce(row: Row) -> list[tuple[Figure, str]]:
    """For each dataset of a row a workflow of qflow ran: the figure and either
    the ``qflow bench`` command that reproduces it or why there is none yet.
    Figures one bench gives together (MBPP+ base and plus) share a command."""
    out: list[tuple[Figure, str]] = []
    for f in row.figures:
        if f.workflow is None or f.value is None:  # a method qflow lacks; "-" or "N/A" printed
            continue
        if not available(f.dataset):
            out.append((f, f"{f.paper_dataset} is not among qflow's datasets yet"))
            continue
        wf = WORKFLOWS.get(f.workflow)
        flags: list[str] = []
        if wf is not None:
            defaults = {s.key: s.default for s in wf.settings}
            for key, value in f.settings.items():
                if defaults.get(key, object()) != value:
                    flags += _flag(key, value)
        # One folder per configuration: rows of several papers that one bench reproduces share it.
        name = "-".join([f.workflow, str(f.dataset), f.family or f.model, *(x.lstrip("-") for x in flags)])
        slug = re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-")
        parts = [
            "qflow bench",
            f"--dataset {f.dataset}",
            *([f"--dataset-file {str(f.dataset).upper().replace('-', '_')}_FILE"] if needs_file(f.dataset) else []),
            f"--workflow {f.workflow}",
            f"--model {model_for(f)}",
            *flags,
            f"--out runs/{slug}",
        ]
        out.append((f, " ".join(parts)))
    return out


# ------------------------------------------------------------------ listing a paper
def paper_json(p: Paper) -> dict[str, object]:
    return {
        "paper": p.name,
        "title": p.title,
        "authors": p.authors,
        "arxiv": p.arxiv,
        "notes": p.notes,
        "tables": [
            {
                "table": t.name,
                "caption": t.caption,
                "columns": t.columns,
                "rows": [
                    {
                        "row": r.ref,
                        "label": r.words,
                        "cells": dict(r.cells),
                        "reproduce": [
                            {
                                "column": f.column,
                                "dataset": f.dataset,
                                "available": available(f.dataset),
                                "command": how if available(f.dataset) else None,
                                "why_not": None if available(f.dataset) else how,
                            }
                            for f, how in reproduce(r)
                        ],
                        **({"note": r.note} if r.note else {}),
                    }
                    for r in t.rows
                ],
            }
            for t in p.tables
        ],
    }


def render_paper(p: Paper) -> str:
    """A paper's rows as printed, and for each the command that reproduces it."""
    out = [f"{p.title}", f"{p.authors}. arXiv:{p.arxiv}.", ""]
    for t in p.tables:
        out += [f"{t.name}: {t.caption}", ""]
        for r in t.rows:
            out.append(f"  {r.ref}  {r.words}")
            out.append("    " + " · ".join(f"{col} {value}" for col, value in r.cells))
            ways = reproduce(r)
            if not any(f.workflow for f in r.figures):
                out.append("    no qflow workflow runs this method")
            if r.note:
                out.append(f"    note: {r.note}")
            seen: set[str] = set()
            for f, how in ways:
                if how in seen:
                    continue
                seen.add(how)
                columns = [g.column for g, h in ways if h == how]
                where = f"{', '.join(columns)}: "
                out.append(f"    {where}{how if available(f.dataset) else '(' + how + ')'}")
        out.append("")
    models = sorted({r.model for r in p.rows()})
    out.append(
        "MODEL: the paper's model through its provider (qflow models lists them). Where the family has a "
        "model qflow knows today it is filled in; the figures will differ from the paper's, which ran "
        + ", ".join(models[:6])
        + (" and others" if len(models) > 6 else "")
        + "."
    )
    out += ["", "Notes:", *[f"- {n}" for n in p.notes], ""]
    return "\n".join(out)
