"""The type checker's words for a wrong value, and that reading an annotation
once a process (its plan, cached by identity) changes none of them. (No
``from __future__ import annotations``: a TypedDict reads ``NotRequired`` only
as a real annotation.)"""

from typing import Literal, NotRequired, TypedDict

from qflow_tui.core import typecheck
from qflow_tui.core.typecheck import keys_problem, type_problem


class Row(TypedDict):
    name: str
    passed: bool
    kind: Literal["pass", "fail"]
    scores: NotRequired[list[float]]
    tags: NotRequired[dict[str, int]]


class Line(TypedDict):
    id: str
    rows: list[Row]
    pair: NotRequired[tuple[int, str]]


GOOD: Line = {"id": "a", "rows": [{"name": "x", "passed": True, "kind": "pass", "scores": [1, 2.5]}]}


def test_a_good_value_has_no_problem_however_often_it_is_checked() -> None:
    for _ in range(3):
        assert keys_problem(GOOD, Line) is None


def test_the_first_wrong_field_is_named_with_its_whole_path() -> None:
    bad_item = {**GOOD, "rows": [GOOD["rows"][0], {"name": "y", "passed": "yes", "kind": "pass"}]}
    assert keys_problem(bad_item, Line) == "rows[1].passed is 'yes' (a str), not true or false"
    bad_score = {**GOOD, "rows": [{**GOOD["rows"][0], "scores": [1.0, "2"]}]}
    assert keys_problem(bad_score, Line) == "rows[0].scores[1] is '2' (a str), not a number"
    bad_tag = {**GOOD, "rows": [{**GOOD["rows"][0], "tags": {"k": True}}]}
    assert keys_problem(bad_tag, Line) == "rows[0].tags['k'] is True (a bool), not a whole number"
    bad_key = {**GOOD, "rows": [{**GOOD["rows"][0], "tags": {3: 1}}]}
    assert keys_problem(bad_key, Line) == "rows[0].tags key is 3 (an int), not text"
    assert keys_problem({**GOOD, "pair": (1, 2)}, Line) == "pair[1] is 2 (an int), not text"
    assert keys_problem({**GOOD, "pair": (1,)}, Line) == "pair is a tuple, not a tuple of 2"
    missing = {"id": "a", "rows": [{"name": "x", "kind": "fail"}]}
    assert keys_problem(missing, Line) == "rows[0].passed is missing"
    assert keys_problem({"rows": []}, Line) == "id is missing"


def test_literals_and_unions_say_what_they_accept() -> None:
    assert (
        type_problem("maybe", Literal["pass", "fail"], "kind") == "kind is 'maybe' (a str), not one of 'pass', 'fail'"
    )
    assert type_problem(1, Literal[True], "flag") == "flag is 1 (an int), not one of True"
    assert type_problem(2.5, int | None, "n") == "n is 2.5 (a float), not a whole number or None"
    assert type_problem(None, int | None, "n") is None


def test_many_distinct_annotations_do_not_grow_the_plans_past_their_bound() -> None:
    for i in range(typecheck._MAX_PLANS + 50):
        assert type_problem(i, Literal[i], "x") is None  # a distinct annotation each time
    assert len(typecheck._PLANS) <= typecheck._MAX_PLANS
    assert type_problem(["a"], list[int], "x") == "x[0] is 'a' (a str), not a whole number"


def test_an_annotation_made_afresh_finds_the_plan_of_an_equal_one() -> None:
    typecheck._PLANS.clear()
    for i in range(10):
        assert type_problem([i], list[int], "x") is None  # a new, equal list[int] object each time
    assert len(typecheck._PLANS) == 2  # list[int] and int


def test_an_annotation_that_cannot_be_a_key_is_still_checked() -> None:
    unhashable = Literal[[1]]  # type: ignore[valid-type]  # Literal takes any value at run time
    assert type_problem([1], unhashable, "x") is None
    assert type_problem([2], unhashable, "x") == "x is a list, not one of [1]"
