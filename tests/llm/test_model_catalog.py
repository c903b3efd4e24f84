"""The models a user can name (issue 30's model picker): the price table's and
the named local ones, and what a local server's /v1/models reports, with its
context window; a server that cannot say is one line. ``qflow models`` lists
them headless. Against the stub server."""

from __future__ import annotations

import argparse
import json
import socket

import pytest

from qflow_tui.commands import models as models_command
from qflow_tui.core.llm import LLMError
from qflow_tui.core.llm.catalog import MAX_LISTED, server_model_list, server_models, table_models
from qflow_tui.core.llm.prices import BUILT_IN


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_the_price_table_and_the_named_local_models_are_known():
    names = [k.name for k in table_models(dict(BUILT_IN))]
    assert set(BUILT_IN) <= set(names) and "local/smollm2" in names


def test_a_server_lists_its_models_with_their_window(stub):
    stub.n_ctx = 4096
    (known,) = server_models(stub.url + "/v1")
    assert (known.name, known.context_window) == ("openai/ok", 4096)
    stub.n_ctx = None
    assert server_models(stub.url + "/v1")[0].context_window is None


def test_a_server_that_cannot_say_is_one_line(stub):
    with pytest.raises(LLMError) as info:
        server_models(closed_port_url(), timeout=2)
    assert str(info.value).startswith("could not reach http://127.0.0.1:") and "\n" not in str(info.value)
    with pytest.raises(LLMError) as info:
        server_models(stub.url)  # the API root without /v1: no /models there
    assert "answered 404" in str(info.value)


def test_qflow_models_lists_the_same_headless(stub, capsys, monkeypatch):
    monkeypatch.setattr(models_command, "today", lambda: "2026-11-29")
    stub.n_ctx = 2048
    assert models_command.run(argparse.Namespace(base_url=stub.url + "/v1", json=True)) == 0
    rows = json.loads(capsys.readouterr().out)["models"]
    assert rows[0] == {
        "model": "openai/ok",
        "source": stub.url + "/v1",
        "context_window": 2048,
        "price": None,
        "retires": None,
    }
    assert any(r["model"] == "anthropic/claude-sonnet-5-5" and "as of" in r["price"] for r in rows)
    # A model its provider retires says when, and what to use instead.
    (old,) = [r for r in rows if r["model"] == "anthropic/claude-sonnet-4-5"]
    assert old["retires"] == "retires 2026-11-30: use anthropic/claude-sonnet-5-5"
    for as_json in (False, True):
        # Asked for a server that is not there: one line and a failure, no catalog
        # that reads as if the server had answered.
        assert models_command.run(argparse.Namespace(base_url=closed_port_url(), json=as_json)) == 1
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith("qflow: could not reach") and err.count("\n") == 1
        # The reason is the operating system's, not the HTTP library's bookkeeping.
        assert "Errno" in err and "event loop" not in err


def test_a_retired_model_says_retired_from_its_day_on(capsys, monkeypatch):
    for day, verb in (("2026-11-29", "retires"), ("2026-11-30", "retired"), ("2026-12-02", "retired")):
        monkeypatch.setattr(models_command, "today", lambda day=day: day)
        assert models_command.run(argparse.Namespace(base_url=None, json=True)) == 0
        rows = json.loads(capsys.readouterr().out)["models"]
        (old,) = [r for r in rows if r["model"] == "anthropic/claude-sonnet-4-5"]
        assert old["retires"] == f"{verb} 2026-11-30: use anthropic/claude-sonnet-5-5"


def test_a_list_cut_short_says_how_many_the_server_offered(stub, capsys):
    stub.more_models = 100_000 - 1  # 100,000 models in all
    url = stub.url + "/v1"
    listed = server_model_list(url)
    assert len(listed.models) == MAX_LISTED and listed.offered == 100_000 and listed.cut
    assert models_command.run(argparse.Namespace(base_url=url, json=False)) == 0
    out = capsys.readouterr().out
    assert "openai/m9998 " in out and "openai/m9999 " not in out  # ok, m0 .. m9998
    assert out.splitlines()[-1] == (
        f"({url} offers 100000 models: only the first {MAX_LISTED} are listed here; "
        "any of the others can still be named as openai/<id>)"
    )
    assert models_command.run(argparse.Namespace(base_url=url, json=True)) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["cut"] == {"server": url, "offered": 100_000, "listed": MAX_LISTED}
    # A list that fits says nothing of the kind.
    stub.more_models = MAX_LISTED - 1
    assert not server_model_list(url).cut
    assert models_command.run(argparse.Namespace(base_url=url, json=False)) == 0
    assert "offers" not in capsys.readouterr().out
    assert models_command.run(argparse.Namespace(base_url=url, json=True)) == 0
    assert json.loads(capsys.readouterr().out)["cut"] is None
