"""Text from a provider is valid text before the core sees it: a surrogate pair
that a provider (or a proxy slicing by UTF-16 unit) sends in two chunks is
joined, a lone half is marked with U+FFFD, and hashing a prompt never raises."""

from __future__ import annotations

import itertools
import json

import stub_server
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from qflow_tui.core.llm import LLMRequest
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.safe_text import StreamText, valid_json_text, valid_text


def _valid(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def req(content: str = "Write add(a, b).") -> LLMRequest:
    return LLMRequest(agent="program_generator", messages=[{"role": "user", "content": content}], max_tokens=300)


async def test_a_pair_split_across_chunks_is_joined_and_lone_halves_marked(make):
    deltas: list[str] = []
    completion = await make("split-pairs").complete(req(), deltas.append)
    assert all(d and _valid(d) for d in deltas)
    assert "".join(deltas) == stub_server.SPLIT_TEXT
    assert completion.text == stub_server.SPLIT_TEXT


async def test_a_script_models_lone_surrogates_are_marked():
    client = ScriptClient.from_function(lambda r: "a \ud800 b \ud83d\ude00 c")
    deltas: list[str] = []
    completion = await client.complete(req(), deltas.append)
    assert completion.text == "a \ufffd b \U0001f600 c" == "".join(deltas)


def test_a_prompt_with_a_lone_surrogate_hashes_as_recorded():
    lone = req("bad \ud800 char")
    assert lone.prompt_hash() == req("bad \ufffd char").prompt_hash()


# -- properties -------------------------------------------------------------------------------

#: Any code point, surrogates included, with the halves, a pair and JSON's
#: escape characters made common (hypothesis rarely draws them on its own).
_text = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=()),
        st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00", "\U0001f600", "\\", "u"]),
    ),
    max_size=40,
)


@seed(26)
@settings(max_examples=200, deadline=None)
@given(text=_text, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_a_stream_cut_anywhere_by_utf16_unit_reads_as_the_text(text, cuts):
    """Cut a valid text's UTF-16 units anywhere (through pairs too): the deltas
    after StreamText join to the text itself, and each one is valid."""
    units = valid_text(text).encode("utf-16-le", "surrogatepass")
    points = sorted({min(c, len(units) // 2) * 2 for c in cuts} | {0, len(units)})
    pieces = [units[a:b].decode("utf-16-le", "surrogatepass") for a, b in itertools.pairwise(points)]
    stream = StreamText()
    out = [stream.feed(p) for p in pieces] + [stream.end()]
    assert all(_valid(o) for o in out)
    assert "".join(out) == valid_text(text)


@seed(27)
@settings(max_examples=200, deadline=None)
@given(values=st.lists(_text, max_size=5))
def test_json_escapes_of_any_text_read_back_as_valid_text(values):
    """Any strings, lone surrogates included, written as JSON escapes (as any
    JSON library writes them) read back as valid text, the same as
    valid_text() of each."""
    for ascii_only in (True, False):
        try:
            raw = json.dumps(values, ensure_ascii=ascii_only)
        except UnicodeEncodeError:  # pragma: no cover - dumps never encodes
            continue
        if not ascii_only and not _valid(raw):
            continue  # raw surrogates cannot be in a file's decoded text
        assert json.loads(valid_json_text(raw)) == [valid_text(v) for v in values]
