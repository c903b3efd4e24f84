"""How the MapCoder example reads its agents' answers (examples/mapcoder/
qflow_mapcoder/parse.py): the recalled problems and the plan's confidence, from
answers as models write them. The module is loaded from its file, so this
process never imports the plugin's package."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.helpers import ROOT


@pytest.fixture(scope="module")
def parse() -> ModuleType:
    path = ROOT / "examples" / "mapcoder" / "qflow_mapcoder" / "parse.py"
    spec = importlib.util.spec_from_file_location("mapcoder_parse_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


ANSWER = """Sure! Here are the problems.

<problem>
<description>Two sum: find two numbers adding to a target.</description>
<code>
def two_sum(a, t):
    seen = {}
    for i, x in enumerate(a):
        if t - x in seen:  # a < b comparison would not confuse the reader
            return seen[t - x], i
        seen[x] = i
</code>
<plan>1. Walk the list.
2. Look the complement up.</plan>
</problem>
<problem>
<description>Longest run of equal values.
<code>print(1)</code>
<plan>1. Count runs.</plan>
<problem>
<description></description>
<plan>a problem without a description is skipped</plan>
</problem>
<problem><description>Third.</description></problem>
<algorithm>Hashing: remember what was seen.</algorithm>
"""


def test_recalled_problems_with_unclosed_tags_and_code_holding_angle_brackets(parse):
    read = parse.read_recollection(ANSWER, 5)
    assert [p.number for p in read.problems] == [1, 2, 3]
    first, second, third = read.problems
    assert first.description == "Two sum: find two numbers adding to a target."
    assert "a < b comparison" in first.code and first.plan.startswith("1. Walk the list.")
    # An unclosed description ends at the next tag.
    assert second.description == "Longest run of equal values." and second.code == "print(1)"
    assert (third.description, third.code, third.plan) == ("Third.", "", "")
    assert read.algorithm == "Hashing: remember what was seen."


def test_no_more_than_k_and_nothing_invented(parse):
    assert [p.description for p in parse.read_recollection(ANSWER, 1).problems] == [
        "Two sum: find two numbers adding to a target."
    ]
    empty = parse.read_recollection("I cannot recall any problem like this one.", 3)
    assert empty.problems == () and empty.algorithm == ""


@pytest.mark.parametrize(
    ("answer", "confidence"),
    [
        ("<explanation>It works.</explanation>\n<confidence>85</confidence>", 85),
        ("<confidence> 100 </confidence>", 100),
        ("<confidence>70%</confidence>", 70),
        ("<confidence>92.5</confidence>", 92),
        ("Step 3 of 4 is right. Confidence: 60/100", 60),
        ("My confidence score is 45 %.", 45),
        # A number that is no confidence is skipped for the next one.
        ("<confidence>250</confidence> ... confidence 30", 30),
        ("The plan handles 3 cases well.", None),
        ("", None),
    ],
)
def test_the_confidence_in_the_forms_models_write_it(parse, answer, confidence):
    assert parse.read_confidence(answer) == confidence


def test_a_pane_row_is_one_line(parse):
    assert parse.one_line("a\n  b\tc") == "a b c"
    assert parse.one_line("x" * 200, 10) == "x" * 9 + "…"
