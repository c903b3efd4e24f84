"""An event's ``to_dict`` is what ``dataclasses.asdict`` gives, without its
deep copy of every string: the session writer writes it for every event."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import qflow_tui
from qflow_tui.core import events
from qflow_tui.core.events import Event, RunStarted
from qflow_tui.core.session.reader import read_session

DEMO = Path(qflow_tui.__file__).parent / "data" / "demo"


def _asdict(event: Event) -> dict[str, object]:
    return {"kind": event.kind, **dataclasses.asdict(event)}


def test_every_event_of_the_bundled_sessions_gives_asdicts_dict():
    files = sorted(DEMO.glob("*.jsonl*"))
    assert files, f"no bundled session under {DEMO}"
    kinds: set[str] = set()
    for path in files:
        for event in read_session(path).events:
            assert event.to_dict() == _asdict(event), event.kind
            kinds.add(event.kind)
    assert len(kinds) >= 8, kinds  # a whole run's worth of kinds, not one or two


class _Pair(NamedTuple):
    a: int
    b: list[int]


@dataclasses.dataclass
class _Inner:
    name: str
    values: tuple[int, ...]


def test_nested_dataclasses_tuples_and_dict_subclasses_come_out_as_asdict_makes_them():
    @dataclasses.dataclass(kw_only=True)
    class _Odd(Event):
        kind: ClassVar[str] = "test_odd_fields"
        pair: Any = None
        inner: Any = None
        ordered: Any = None
        nested: Any = None

    event_kinds_before = dict(events._REGISTRY)
    try:
        _check_odd(_Odd)
    finally:  # an event kind of this test's own is no kind of the product's
        events._REGISTRY.clear()
        events._REGISTRY.update(event_kinds_before)
        events._REGISTRY.pop("test_odd_fields", None)


def _check_odd(odd: Any) -> None:
    event = odd(
        pair=_Pair(1, [2, 3]),
        inner=[_Inner("x", (1, 2))],
        ordered=OrderedDict([("k", {"deep": [1, {"d": 2.5}]})]),
        nested={"t": (1, "two", None), "s": {3}},
    )
    got = event.to_dict()
    assert got == _asdict(event)
    assert type(got["pair"]) is _Pair and type(got["ordered"]) is OrderedDict
    assert got["inner"] == [{"name": "x", "values": (1, 2)}]
    assert got["nested"]["s"] is not event.nested["s"]  # a set is copied, as asdict deep-copies it


def test_the_dict_is_a_copy_changing_it_leaves_the_event_as_it_was():
    event = RunStarted(workflow="zeroshot", model="m", config={"a": [1]}, problem={"p": {"q": 1}})
    got = event.to_dict()
    got["config"]["a"].append(2)  # type: ignore[index]
    got["problem"]["p"]["q"] = 5  # type: ignore[index]
    assert event.config == {"a": [1]} and event.problem == {"p": {"q": 1}}
