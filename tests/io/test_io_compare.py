"""The output comparisons, each as its dataset's harness reads outputs
(CodeContests's OutputsMatch, APPS's testing_util); cases written for the project."""

from __future__ import annotations

import pytest

from qflow_tui.core.iojudge import apps_call_match, apps_stdio_match, codecontests_match


@pytest.mark.parametrize(
    ("out", "want", "ok"),
    [
        ("3\n", "3", True),
        ("1 2\n3", "1\n2 3\n\n", True),  # whitespace of any kind, trailing newlines
        ("YES\n", "yes", True),  # lowercased
        ("0.3333333\n", "0.333333333", True),  # within 1e-5
        ("0.33\n", "0.333333333", False),
        ("1e-6", "0", True),  # both numbers: absolute tolerance
        ("1", "1.000001", True),
        ("2", "3", False),
        ("1 2", "1 2 3", False),
        ("abc", "abd", False),
        ("nan", "nan", True),  # equal tokens match before any number is read
        ("nan", "NaN ", True),
        ("inf", "1e400", False),  # 1e400 reads as inf; inf - inf is nan, never < 1e-5
        ("10000000000000000", "10000000000000001", True),  # as doubles they are one value
        ("", "", True),
        ("", "0", False),
        # CodeContests reads ASCII digits only: any other digit is text, and
        # text must be equal (Python's float() reads each of these as 3).
        ("\uff13\n", "3", False),  # fullwidth
        ("\u0663", "3", False),  # Arabic-Indic
        ("\U0001d7d1", "3", False),  # mathematical bold
        ("\uff13", "\uff13", True),  # the same text still matches
        ("1_000", "1000", False),  # float() reads underscores; absl does not
    ],
)
def test_codecontests(out: str, want: str, ok: bool) -> None:
    assert codecontests_match(out, want) is ok


@pytest.mark.parametrize(
    ("out", "want", "ok"),
    [
        ("3\n", "3\n", True),
        ("  3  \n", "3", True),  # each line stripped
        ("1\n\n2\n", "1\n2\n", True),  # empty printed lines dropped
        ("1.0000001\n", "1.0\n", True),  # numpy.allclose
        ("1.001\n", "1.0\n", False),
        ("2 1\n4 3\n", "3 4\n1 2\n", True),  # sets of per-line token sets
        ("1.0004 2\n", "2 1.0001\n", True),  # values rounded to 3 places
        ("1 2 3\n", "1 2\n", False),
        ("YES\n", "yes\n", False),  # no lowercasing in APPS
        ("a\nb\n", ["a", "b"], True),  # a list of outputs is joined
    ],
)
def test_apps_stdio(out: str, want: str | list[str], ok: bool) -> None:
    assert apps_stdio_match(out, want) is ok


def test_apps_call() -> None:
    assert apps_call_match(3, [3])  # the expected output wrapped in a list
    assert apps_call_match((1, 2), [1, 2])  # a tuple reads as a list
    assert apps_call_match([(1, 2)], [[[1, 2]]])
    assert apps_call_match({1: "a"}, {"1": "a"})  # JSON's text keys read back as ints
    assert not apps_call_match(4, [3])
    assert not apps_call_match("3", [3])
