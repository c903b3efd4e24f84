"""Lists and tuples of plain numbers cross from the program's process to the
oracle as one JSON array (the harness's ``_fast_text``, read back by
``decode_value``): every value comes back equal and of the same exact types
as the program returned it, anything else takes the tagged path, and a
malformed array from a compromised child is refused."""

from __future__ import annotations

import math

import pytest

from qflow_tui.core.sandbox.harness import codec, prelude, values


def through_the_wire(value):
    text = values._plain_text(value, 1 << 30)
    return text, codec.decode_value(prelude._json_loads(text))


def same_exactly(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_exactly(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, float) and a == 0.0:
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


FAST = [
    [0, 1, -1, 2**63 - 1, -(2**63) + 1],
    (1, 2, 3),
    [1, 2.0, 0.1, -0.0, 1e16, 1e-05, 5e-324, -1e18, 3],
    list(range(-1000, 1000)),
    [x / 7 for x in range(-500, 500)],
]
TAGGED = [
    [2**63, 1],  # past the bound: hex
    [1.7976931348623157e308, 1.0],  # a float past it too
    [1, float("nan")],
    [1.0, float("inf")],
    [True, 1],  # bool is not a number here
    [1, "1"],
    [[1, 2], [3]],
    [],
    (),
]


@pytest.mark.parametrize("value", FAST, ids=range(len(FAST)))
def test_numbers_go_as_one_array_and_come_back_exact(value):
    text, back = through_the_wire(value)
    assert text.startswith('["L",[' if type(value) is list else '["T",['), text[:40]
    assert same_exactly(back, value)


@pytest.mark.parametrize("value", TAGGED, ids=range(len(TAGGED)))
def test_other_lists_keep_their_tags_and_come_back_exact(value):
    text, back = through_the_wire(value)
    assert not text.startswith(('["L"', '["T"')), text[:40]
    assert same_exactly(back, value)


def test_a_nested_list_of_number_lists_uses_the_array_inside():
    value = [[1, 2.5], (3, 4)]
    text, back = through_the_wire(value)
    assert '["L",[1,2.5]]' in text and '["T",[3,4]]' in text
    assert same_exactly(back, value)


@pytest.mark.parametrize(
    "text",
    [
        '["L",[true]]',
        '["L",["1"]]',
        '["L",[[1]]]',
        '["L",[null]]',
        '["L",{"a":1}]',
        '["L",[1],[2]]',
        '["T",[1,' + "9" * 5000 + "]]",  # past Python's digit limit
    ],
)
def test_a_malformed_number_array_is_refused(text):
    with pytest.raises(ValueError):
        codec.decode_value(prelude._json_loads(text))
