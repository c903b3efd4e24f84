"""A session's page marks a person's edits and a fork: each steering edit in
the timeline under its step, and the parent session and branch step a fork
names (read from the session file as the reader gives it)."""

from __future__ import annotations

import dataclasses
import re
from html import unescape

from qflow_tui.core import events as ev
from qflow_tui.core.htmlpage.session_page import session_page
from qflow_tui.core.session import read_session


def test_steering_edits_and_a_fork_are_marked(bench):
    data = read_session(bench / "sessions" / "humaneval-0.jsonl")
    end = next(i for i, e in enumerate(data.events) if isinstance(e, ev.RunFinished))
    edit = ev.Steered(seq=0, step="self_debug:1", progression=0, what="test verdict", before="rejected",
                      after="kept", test="assert has_close_elements([1.0], 0.5) == False")  # fmt: skip
    data = dataclasses.replace(
        data,
        events=[*data.events[:end], edit, *data.events[end:]],
        header={**data.header, "parent": {"session": "/somewhere/parent-run.jsonl", "forked_at": "self_debug:1"}},
    )
    body = session_page(data).body
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", body)).split())
    assert "✎ steered user changed test verdict at self_debug:1 (progression 0): test assert has_close_elements" in text
    assert '<li class="steered">' in body
    assert "Forked from ⑂ fork parent-run.jsonl at self_debug:1" in text
    assert "/somewhere" not in text  # the parent's name, not a path of the machine that ran it
